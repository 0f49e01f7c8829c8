package org.rpcrdma4j.benchmarks.verbs;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.rpcrdma4j.verbs.AcceptParameters;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.ConnectParameters;
import org.rpcrdma4j.verbs.ConnectionInfo;
import org.rpcrdma4j.verbs.ConnectionRequest;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaListener;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * Two connected queue pairs on one device, for benchmarks: the software device (its two engine threads: one per
 * side), or the device of the provider named by the option {@code provider} (e.g. {@code provider=ffm,
 * address=10.0.2.15}: the pair connects over the interface at {@code address}). Not a
 * benchmark itself: states build it in their setup and close it in their teardown; the end-to-end harness
 * ({@code org.rpcrdma4j.benchmarks.harness}) uses it for its RDMA WRITE / READ rows. Owns the device, the queue pairs
 * and every region made with {@link #register}; one thread drives it.
 */
public final class VerbsPair implements AutoCloseable {
    public final RdmaDevice device;
    public final ProtectionDomain pd;
    public final CompletionQueue clientSendCq;
    public final CompletionQueue clientRecvCq;
    public final CompletionQueue serverSendCq;
    public final CompletionQueue serverRecvCq;
    public final QueuePair client;
    public final QueuePair server;
    private final RdmaListener listener;
    private final List<RegisteredMemory> regions = new ArrayList<>();

    /**
     * Opens the device {@code options} name: the provider of the option {@code provider} (the software device without
     * it), given the other options.
     */
    public static RdmaDevice openDevice(Map<String, String> options) throws VerbsException {
        Map<String, String> deviceOptions = new java.util.HashMap<>(options);
        String provider = deviceOptions.remove("provider");
        return RdmaProviders.select(provider == null ? "soft" : provider).open(deviceOptions);
    }

    /** Opens a device with {@code options} and connects two queue pairs of {@code depth} work requests. */
    public VerbsPair(Map<String, String> options, int depth) throws Exception {
        String address = options.get("address");
        device = openDevice(options);
        pd = device.allocProtectionDomain();
        clientSendCq = device.createCompletionQueue(depth * 2);
        clientRecvCq = device.createCompletionQueue(depth * 2);
        serverSendCq = device.createCompletionQueue(depth * 2);
        serverRecvCq = device.createCompletionQueue(depth * 2);
        client = pd.createQueuePair(new QueuePairConfig(clientSendCq, clientRecvCq, depth, depth, 1, 1, 64));
        server = pd.createQueuePair(new QueuePairConfig(serverSendCq, serverRecvCq, depth, depth, 1, 1, 64));
        CompletableFuture<ConnectionRequest> requested = new CompletableFuture<>();
        InetAddress at = address == null ? InetAddress.getLoopbackAddress() : InetAddress.getByName(address);
        listener = device.connectionManager().listen(new InetSocketAddress(at, 0),
                requested::complete);
        CompletableFuture<ConnectionInfo> connected = device.connectionManager().connect(client,
                listener.localAddress(), new ConnectParameters(new byte[0], 16, 16), e -> { });
        requested.get(10, TimeUnit.SECONDS).accept(server, new AcceptParameters(new byte[0], 16, 16), e -> { });
        connected.get(10, TimeUnit.SECONDS);
        while (server.connectionInfo() == null) {
            Thread.onSpinWait();
        }
    }

    /**
     * Polls {@code cq} into {@code batch}; when it is empty, arms it and parks the calling thread until a completion
     * arrives (the way a consumer waits without burning a core). Allocation-free.
     */
    public static int pollOrWait(CompletionQueue cq, org.rpcrdma4j.verbs.WorkCompletion[] batch) {
        int n = cq.poll(batch);
        if (n > 0) {
            return n;
        }
        cq.requestNotify();
        n = cq.poll(batch);
        if (n > 0) {
            return n;
        }
        java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
        return cq.poll(batch);
    }

    /** Makes {@code cq}'s listener wake {@code thread} (for {@link #pollOrWait}). */
    public static void wakes(CompletionQueue cq, Thread thread) {
        cq.setListener(q -> java.util.concurrent.locks.LockSupport.unpark(thread));
    }

    /** {@code n} reusable completion objects to poll into. */
    public static org.rpcrdma4j.verbs.WorkCompletion[] completions(int n) {
        org.rpcrdma4j.verbs.WorkCompletion[] batch = new org.rpcrdma4j.verbs.WorkCompletion[n];
        for (int i = 0; i < n; i++) {
            batch[i] = new org.rpcrdma4j.verbs.WorkCompletion();
        }
        return batch;
    }

    /**
     * A signaled work request of {@code opcode} moving {@code size} bytes from the start of {@code local}; for RDMA
     * WRITE and READ its remote side is the start of {@code remote}.
     */
    public static org.rpcrdma4j.verbs.SendWorkRequest request(org.rpcrdma4j.verbs.Opcode opcode,
                                                              RegisteredMemory local, RegisteredMemory remote,
                                                              int size) {
        org.rpcrdma4j.verbs.SendWorkRequest wr = new org.rpcrdma4j.verbs.SendWorkRequest(1);
        wr.opcode = opcode;
        wr.flags = org.rpcrdma4j.verbs.SendWorkRequest.SIGNALED;
        wr.addSge().set(local, 0, size);
        wr.rkey = remote.rkey();
        wr.remoteAddress = remote.address(0);
        return wr;
    }

    /** A direct buffer of {@code size} bytes registered with {@code access}; closed with the pair. */
    public RegisteredMemory register(int size, int access) throws Exception {
        RegisteredMemory mr = pd.registerMemory(ByteBuffer.allocateDirect(size), access);
        regions.add(mr);
        return mr;
    }

    @Override
    public void close() {
        client.close();
        server.close();
        listener.close();
        for (RegisteredMemory r : regions) {
            r.close();
        }
        device.close();
    }
}
