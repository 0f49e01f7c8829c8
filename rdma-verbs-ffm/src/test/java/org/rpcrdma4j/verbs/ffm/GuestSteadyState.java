package org.rpcrdma4j.verbs.ffm;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

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
 * The provider's data path in steady state, in the guest: one device connects to itself through the SPI, then a
 * receive is posted, a 64-byte signaled SEND and an unsignaled 64-byte RDMA WRITE are posted as one chain, and the
 * completions are polled, over and over with work requests and completion objects made once. Prints how many bytes
 * the calling thread allocated over the measured rounds after a warm-up (the thread's allocation counter, which JMH's
 * gc profiler reads too). Argument: the IPv4 address of the RDMA interface.
 */
public final class GuestSteadyState {
    private static final int RW = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;

    private GuestSteadyState() {
    }

    public static void main(String[] args) throws Exception {
        String address = args[0];
        try (RdmaDevice device = new FfmProvider().open(Map.of("address", address))) {
            ProtectionDomain pd = device.allocProtectionDomain();
            CompletionQueue clientCq = device.createCompletionQueue(64);
            CompletionQueue serverCq = device.createCompletionQueue(64);
            QueuePair client = pd.createQueuePair(new QueuePairConfig(clientCq, clientCq, 16, 16, 2, 2, 0));
            QueuePair server = pd.createQueuePair(new QueuePairConfig(serverCq, serverCq, 16, 16, 2, 2, 0));
            RegisteredMemory clientMem = pd.registerMemory(ByteBuffer.allocateDirect(4096), RW);
            RegisteredMemory serverMem = pd.registerMemory(ByteBuffer.allocateDirect(4096), RW);
            CompletableFuture<ConnectionRequest> requested = new CompletableFuture<>();
            RdmaListener listener = device.connectionManager().listen(new InetSocketAddress(address, 0),
                    requested::complete);
            CompletableFuture<?> connected = device.connectionManager().connect(client, listener.localAddress(),
                    new ConnectParameters(new byte[0], 4, 4), e -> { });
            requested.get(30, TimeUnit.SECONDS).accept(server, new AcceptParameters(new byte[0], 4, 4), e -> { });
            connected.get(30, TimeUnit.SECONDS);

            RecvWorkRequest recv = new RecvWorkRequest(1);
            recv.wrId = 1;
            recv.addSge().set(serverMem, 0, 64);
            SendWorkRequest write = new SendWorkRequest(1);
            write.wrId = 2;
            write.opcode = org.rpcrdma4j.verbs.Opcode.RDMA_WRITE;
            write.addSge().set(clientMem, 128, 64);
            write.remoteAddress = serverMem.address(128);
            write.rkey = serverMem.rkey();
            SendWorkRequest send = new SendWorkRequest(1);
            send.wrId = 3;
            send.flags = SendWorkRequest.SIGNALED;
            send.addSge().set(clientMem, 0, 64);
            write.next = send;
            WorkCompletion[] batch = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(),
                    new WorkCompletion()};
            com.sun.management.ThreadMXBean threads =
                    (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
            int rounds = 20_000;
            for (int i = 0; i < rounds; i++) {
                round(client, server, clientCq, serverCq, recv, write, batch);
            }
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < rounds; i++) {
                round(client, server, clientCq, serverCq, recv, write, batch);
            }
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            System.out.println("provider steady state: " + rounds + " rounds of receive, WRITE+SEND and polls, "
                    + allocated + " bytes allocated");
            client.close();
            server.close();
            listener.close();
            clientMem.close();
            serverMem.close();
            clientCq.close();
            serverCq.close();
            pd.close();
        }
    }

    private static void round(QueuePair client, QueuePair server, CompletionQueue clientCq, CompletionQueue serverCq,
                              RecvWorkRequest recv, SendWorkRequest chain, WorkCompletion[] batch) throws Exception {
        server.postRecv(recv);
        client.postSend(chain);
        awaitOne(clientCq, batch);
        awaitOne(serverCq, batch);
    }

    private static void awaitOne(CompletionQueue cq, WorkCompletion[] batch) {
        int n;
        while ((n = cq.poll(batch)) == 0) {
            Thread.onSpinWait();
        }
        if (n != 1 || !batch[0].ok()) {
            throw new IllegalStateException("expected one successful completion, got " + n + ": " + batch[0]);
        }
    }
}
