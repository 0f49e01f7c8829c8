package org.rpcrdma4j.xprt.client;

/**
 * Told once when an {@link RdmaCall} submitted with {@link RdmaClientTransport#submit} is done (answered or failed):
 * {@link RdmaCall#failure()} is null on success. Runs on the connection's agent thread: it must not block and must not
 * call {@link RdmaClientTransport#call} or {@link RdmaClientTransport#submit} (hand the next call to another thread).
 * Implement it once per caller and reuse it: no allocation per call.
 */
@FunctionalInterface
public interface RdmaCallListener {
    void onComplete(RdmaCall call);
}
