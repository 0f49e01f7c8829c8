package org.rpcrdma4j.xprt.server;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;

import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.rpcrdma4j.codec.RpcRdmaLimits;
import org.rpcrdma4j.registration.RegistrationMode;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.xprt.UpperLayerBinding;

/**
 * The settings of an {@link RdmaRpcServer}, as its {@link RdmaRpcServer.Builder} collected and checked them.
 * Immutable (the maps are copies).
 */
record ServerConfig(
        String name,
        InetSocketAddress bindAddress,
        String provider,
        Map<String, String> providerOptions,
        RdmaDevice device,
        int credits,
        int receiveMargin,
        int inlineSend,
        int inlineReceive,
        Map<OncRpcProgram, RpcDispatchable> programs,
        List<UpperLayerBinding> bindings,
        ExecutorService dispatchExecutor,
        int dispatchThreads,
        int ioThreads,
        int agentThreads,
        int maxConnections,
        int maxCallSize,
        int maxReadChunkBytes,
        int maxReadChunks,
        int maxReadsInFlight,
        long registeredMemoryBytes,
        long keptCallMemoryBytes,
        Duration bufferWait,
        Duration stopTimeout,
        Duration warningInterval,
        Duration reverseReplyTimeout,
        RegistrationMode registrationMode,
        RpcRdmaLimits limits,
        boolean jmx,
        boolean inlineAgentWork,
        boolean sameThreadDispatch) {

    static final int PAGE = 4096;

    /** Slots (and receive buffers) per connection: the grant plus a margin for replies whose Send is completing. */
    int slotsPerConnection() {
        return credits + receiveMargin;
    }

    /** Receive buffers per connection: one per slot, and one per reverse-direction credit for its reply. */
    int receivesPerConnection() {
        return slotsPerConnection() + ReverseChannel.REQUESTS;
    }

    /**
     * The call buffer pool's arena size: large enough for any call's sink (4 MiB at least). Replies' copies and
     * programs' reply buffers come from the same pool.
     */
    int arenaSize() {
        // a call's sink leaves up to a page in front of it (its first READ lands on a page boundary)
        long largest = Math.max(4L << 20, roundUp(maxCallSize) + PAGE);
        if (largest > 1 << 30) {
            throw new IllegalArgumentException("a call would need " + largest + " bytes in one buffer");
        }
        return (int) largest;
    }

    /**
     * The connection pool's arena size: one connection's fixed buffers at the server's own inline sizes, the most a
     * connection takes ({@link ConnectionResources.Layout}). A connection takes one piece, never more than an arena.
     */
    int connectionArenaSize() {
        return ConnectionResources.Layout.of(receivesPerConnection(), inlineReceive, slotsPerConnection(), inlineSend)
                .bytes();
    }

    private static long roundUp(long bytes) {
        return (bytes + PAGE - 1) / PAGE * PAGE;
    }
}
