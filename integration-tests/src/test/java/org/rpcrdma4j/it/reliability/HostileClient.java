package org.rpcrdma4j.it.reliability;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.ConnectParameters;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RecvWorkRequest;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * A requester on the verbs SPI that sends whatever bytes it is given as RPC-over-RDMA messages, for the hostile-client
 * and fuzz campaigns. Memory is shared by its connections and registered once: a send area, and an {@link #exposed}
 * region (remote read and write) that hostile chunk lists may name. Each {@link Conn} is one connection with its own
 * queue pair, completion queues and receives; {@link Conn#outcome} says what the server made of the messages.
 */
final class HostileClient implements AutoCloseable {
    static final int EXPOSED_SIZE = 8192;
    private static final int SEND_SIZE = 64 * 1024;
    private static final int RECEIVES = 16;
    private static final int RECEIVE_SIZE = 4096;

    /** What the server did with a connection's messages. */
    enum Outcome {
        /** It answered (a reply or an RDMA_ERROR). */
        ANSWERED,
        /** It closed the connection. */
        DISCONNECTED,
        /** Nothing within the wait (e.g. a message it drops by design). */
        SILENT
    }

    private final RdmaDevice device;
    private final ProtectionDomain pd;
    private final RegisteredMemory send;
    final RegisteredMemory exposed;
    private long nextWrId = 1;

    HostileClient(RdmaDevice device) throws VerbsException {
        this.device = device;
        this.pd = device.allocProtectionDomain();
        this.send = pd.registerMemory(ByteBuffer.allocateDirect(SEND_SIZE), Access.LOCAL_WRITE);
        this.exposed = pd.registerMemory(ByteBuffer.allocateDirect(EXPOSED_SIZE),
                Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE);
    }

    /** Connects to {@code server} with these private data bytes. */
    Conn connect(InetSocketAddress server, byte[] privateData) throws Exception {
        Conn c = new Conn();
        try {
            device.connectionManager().connect(c.qp, server, new ConnectParameters(privateData, 4, 4), e -> {
                if (e.type() == ConnectionEventType.DISCONNECTED || e.type() == ConnectionEventType.DEVICE_REMOVAL) {
                    c.lost = true;
                }
            }).get(30, TimeUnit.SECONDS);
            return c;
        } catch (Exception e) {
            c.close();
            throw e;
        }
    }

    /** One connection. Used by one thread. */
    final class Conn implements AutoCloseable {
        final QueuePair qp;
        private final CompletionQueue sendCq;
        private final CompletionQueue recvCq;
        private final RegisteredMemory receives;
        private final WorkCompletion[] one = {new WorkCompletion()};
        volatile boolean lost;
        int answers;

        Conn() throws VerbsException {
            sendCq = device.createCompletionQueue(1024);
            recvCq = device.createCompletionQueue(RECEIVES + 4);
            qp = pd.createQueuePair(new QueuePairConfig(sendCq, recvCq, 512, RECEIVES + 4, 2, 1, 0));
            receives = pd.registerMemory(ByteBuffer.allocateDirect(RECEIVES * RECEIVE_SIZE), Access.LOCAL_WRITE);
            for (int i = 0; i < RECEIVES; i++) {
                RecvWorkRequest wr = new RecvWorkRequest(1);
                wr.wrId = i;
                wr.addSge().set(receives, (long) i * RECEIVE_SIZE, RECEIVE_SIZE);
                qp.postRecv(wr);
            }
        }

        /** Posts {@code message} as a Send (unsignaled; a failure shows as a lost connection). */
        void send(byte[] message) {
            if (message.length > SEND_SIZE) {
                throw new IllegalArgumentException("at most " + SEND_SIZE + " bytes");
            }
            send.buffer().put(0, message);
            SendWorkRequest wr = new SendWorkRequest(1);
            wr.wrId = nextWrId++;
            wr.opcode = Opcode.SEND;
            wr.flags = SendWorkRequest.SIGNALED;
            wr.addSge().set(send, 0, message.length);
            try {
                qp.postSend(wr);
            } catch (VerbsException e) {
                lost = true;
                return;
            }
            // wait for the Send to complete before the send area is reused
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (System.nanoTime() - deadline < 0) {
                if (sendCq.poll(one) == 1) {
                    if (one[0].status != WcStatus.SUCCESS) {
                        lost = true;
                    }
                    if (one[0].wrId == wr.wrId) {
                        return;
                    }
                } else if (lost) {
                    return;
                } else {
                    java.util.concurrent.locks.LockSupport.parkNanos(10_000); // two shared cores: no busy wait
                }
            }
        }

        /**
         * The next message the server sent (its receive is posted again), or null when the connection ended or
         * nothing came within {@code wait}.
         */
        byte[] receive(Duration wait) throws VerbsException {
            long deadline = System.nanoTime() + wait.toNanos();
            while (System.nanoTime() - deadline < 0) {
                if (recvCq.poll(one) == 1) {
                    if (one[0].status != WcStatus.SUCCESS) {
                        lost = true;
                        return null;
                    }
                    int index = (int) one[0].wrId;
                    byte[] message = new byte[one[0].byteLen];
                    receives.buffer().get(index * RECEIVE_SIZE, message);
                    RecvWorkRequest wr = new RecvWorkRequest(1);
                    wr.wrId = index;
                    wr.addSge().set(receives, (long) index * RECEIVE_SIZE, RECEIVE_SIZE);
                    qp.postRecv(wr);
                    answers++;
                    return message;
                }
                if (lost) {
                    return null;
                }
                java.util.concurrent.locks.LockSupport.parkNanos(10_000); // two shared cores: no busy wait
            }
            return null;
        }

        /** Waits up to {@code wait} for an answer or the connection's end. */
        Outcome outcome(Duration wait) throws InterruptedException {
            long deadline = System.nanoTime() + wait.toNanos();
            while (System.nanoTime() - deadline < 0) {
                if (recvCq.poll(one) == 1) {
                    if (one[0].status == WcStatus.SUCCESS) {
                        answers++;
                        return Outcome.ANSWERED;
                    }
                    return Outcome.DISCONNECTED;
                }
                if (lost) {
                    return Outcome.DISCONNECTED;
                }
                Thread.sleep(1);
            }
            return Outcome.SILENT;
        }

        @Override
        public void close() {
            qp.close();
            WorkCompletion[] batch = {new WorkCompletion(), new WorkCompletion()};
            while (sendCq.poll(batch) > 0 || recvCq.poll(batch) > 0) {
                // discard flushed work
            }
            receives.close();
            try {
                sendCq.close();
                recvCq.close();
            } catch (VerbsException e) {
                // a test fixture: nothing more to do
            }
        }
    }

    @Override
    public void close() {
        send.close();
        exposed.close();
        try {
            pd.close();
        } catch (VerbsException e) {
            // a test fixture: nothing more to do
        }
    }
}
