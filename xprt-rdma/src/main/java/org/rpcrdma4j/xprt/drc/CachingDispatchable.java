package org.rpcrdma4j.xprt.drc;

import java.io.IOException;
import java.util.Objects;

import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;

/**
 * A program served through a {@link DuplicateRequestCache}: what {@link DuplicateRequestCache#wrap} returns, and what
 * one registers with {@code OncRpcSvcBuilder.withRpcService} or {@code RdmaRpcServer.Builder.program} instead of the
 * program itself. Thread-safe as far as the program is.
 */
public final class CachingDispatchable implements RpcDispatchable {
    private final DuplicateRequestCache cache;
    private final RpcDispatchable program;

    CachingDispatchable(DuplicateRequestCache cache, RpcDispatchable program) {
        this.cache = cache;
        this.program = Objects.requireNonNull(program, "program");
    }

    /** The program calls are executed by. */
    public RpcDispatchable program() {
        return program;
    }

    /** The cache in front of it (for its counters). */
    public DuplicateRequestCache cache() {
        return cache;
    }

    @Override
    public void dispatchOncRpcCall(RpcCall call) throws OncRpcException, IOException {
        cache.dispatch(program, call);
    }

    @Override
    public String toString() {
        return "CachingDispatchable[" + program + "]";
    }
}
