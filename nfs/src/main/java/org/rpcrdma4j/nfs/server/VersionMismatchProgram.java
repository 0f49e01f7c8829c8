package org.rpcrdma4j.nfs.server;

import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;

/**
 * Answers every call with {@code PROG_MISMATCH} and the versions that are served: registered under the versions of
 * a program that are not served, so that a client probing for them (e.g. NFSv4 first) learns what to use instead of
 * {@code PROG_UNAVAIL}.
 */
public final class VersionMismatchProgram implements RpcDispatchable {
    private final int low;
    private final int high;

    public VersionMismatchProgram(int low, int high) {
        this.low = low;
        this.high = high;
    }

    @Override
    public void dispatchOncRpcCall(RpcCall call) {
        call.failProgramMismatch(low, high);
    }
}
