package org.rpcrdma4j.verbs.ffm;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.rpcrdma4j.verbs.AcceptParameters;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.ConnectParameters;
import org.rpcrdma4j.verbs.ConnectionRequest;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaListener;
import org.rpcrdma4j.verbs.RecvWorkRequest;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * The provider's data path in steady state, through the SPI: one device connects to itself, and each {@link #round}
 * posts a receive, posts a 64-byte unsignaled RDMA WRITE and a signaled 64-byte SEND as one chain, and takes both
 * completions, with work requests and completion objects made once. A round either polls ({@code notify} false) or,
 * when a queue is empty, arms it and parks until its listener, called by the device thread on the completion event,
 * unparks it: the path a consumer that does not spin takes.
 */
final class SteadyStatePair implements AutoCloseable {
    private static final int RW = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;

    private final RdmaDevice device;
    private final ProtectionDomain pd;
    private final CompletionQueue clientCq;
    private final CompletionQueue serverCq;
    private final QueuePair client;
    private final QueuePair server;
    private final RegisteredMemory clientMem;
    private final RegisteredMemory serverMem;
    private final RdmaListener listener;
    private final RecvWorkRequest recv = new RecvWorkRequest(1);
    private final SendWorkRequest chain = new SendWorkRequest(1);
    private final WorkCompletion[] batch = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(),
        new WorkCompletion()};
    private final boolean notify;
    private volatile Thread waiter;

    SteadyStatePair(String address, boolean notify) throws Exception {
        this.notify = notify;
        device = new FfmProvider().open(Map.of("address", address));
        pd = device.allocProtectionDomain();
        clientCq = device.createCompletionQueue(64);
        serverCq = device.createCompletionQueue(64);
        client = pd.createQueuePair(new QueuePairConfig(clientCq, clientCq, 16, 16, 2, 2, 0));
        server = pd.createQueuePair(new QueuePairConfig(serverCq, serverCq, 16, 16, 2, 2, 0));
        clientMem = pd.registerMemory(ByteBuffer.allocateDirect(4096), RW);
        serverMem = pd.registerMemory(ByteBuffer.allocateDirect(4096), RW);
        CompletableFuture<ConnectionRequest> requested = new CompletableFuture<>();
        listener = device.connectionManager().listen(new InetSocketAddress(address, 0), requested::complete);
        CompletableFuture<?> connected = device.connectionManager().connect(client, listener.localAddress(),
                new ConnectParameters(new byte[0], 4, 4), e -> { });
        requested.get(30, TimeUnit.SECONDS).accept(server, new AcceptParameters(new byte[0], 4, 4), e -> { });
        connected.get(30, TimeUnit.SECONDS);
        CompletionQueue.CompletionListener wake = cq -> {
            Thread t = waiter;
            if (t != null) {
                LockSupport.unpark(t);
            }
        };
        clientCq.setListener(wake);
        serverCq.setListener(wake);

        recv.wrId = 1;
        recv.addSge().set(serverMem, 0, 64);
        chain.wrId = 2;
        chain.opcode = org.rpcrdma4j.verbs.Opcode.RDMA_WRITE;
        chain.addSge().set(clientMem, 128, 64);
        chain.remoteAddress = serverMem.address(128);
        chain.rkey = serverMem.rkey();
        SendWorkRequest send = new SendWorkRequest(1);
        send.wrId = 3;
        send.flags = SendWorkRequest.SIGNALED;
        send.addSge().set(clientMem, 0, 64);
        chain.next = send;
    }

    /** One receive, WRITE+SEND chain and its two completions. */
    void round() throws Exception {
        server.postRecv(recv);
        client.postSend(chain);
        awaitOne(clientCq);
        awaitOne(serverCq);
    }

    private void awaitOne(CompletionQueue cq) {
        int n;
        while ((n = cq.poll(batch)) == 0) {
            if (!notify) {
                Thread.onSpinWait();
                continue;
            }
            waiter = Thread.currentThread();
            cq.requestNotify();
            if ((n = cq.poll(batch)) != 0) {
                break;
            }
            LockSupport.parkNanos(10_000_000L);
        }
        waiter = null;
        if (n != 1 || !batch[0].ok()) {
            throw new IllegalStateException("expected one successful completion, got " + n + ": " + batch[0]);
        }
    }

    @Override
    public void close() throws Exception {
        client.close();
        server.close();
        listener.close();
        clientMem.close();
        serverMem.close();
        clientCq.close();
        serverCq.close();
        pd.close();
        device.close();
    }
}
