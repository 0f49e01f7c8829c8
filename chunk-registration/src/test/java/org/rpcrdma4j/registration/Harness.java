package org.rpcrdma4j.registration;

import java.util.function.BooleanSupplier;

import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * A client side (buffer pool, registration pool, QP with its send CQ) and a peer that can access what the client
 * exposes. Implemented over the fake device and over the software iWARP device.
 */
interface Harness extends AutoCloseable {

    RegisteredBufferPool buffers();

    RegistrationPool pool();

    /** Posts the registration's pending chain followed by a Send (the RPC call), and waits until it was sent. */
    void send(Registration registration) throws Exception;

    /** The peer's RDMA READ of {@code length} bytes at {@code offset} under {@code stag}. */
    PeerResult peerRead(int stag, long offset, int length) throws Exception;

    /** The peer's RDMA WRITE of {@code data} at {@code offset} under {@code stag}. */
    PeerResult peerWrite(int stag, long offset, byte[] data) throws Exception;

    /** Whether the device can do Send with Invalidate (peer) and remote invalidation (client). */
    boolean supportsRemoteInvalidation();

    /** The peer replies with Send with Invalidate naming {@code stag}; returns the client's receive completion. */
    WorkCompletion peerSendWithInvalidate(int stag) throws Exception;

    /** Polls the (wrapped) send CQ, routing the pool's completions to it, until {@code done} holds. */
    void pumpUntil(BooleanSupplier done) throws Exception;

    /** Breaks the connection: the QP goes to error, then the pool is told and a new QP attached. */
    void disconnect() throws Exception;

    /** Makes the next synchronous or fast registration fail; false if the device cannot be made to. */
    boolean injectRegistrationFailure();

    /** Memory regions the device has open. */
    int deviceRegions();

    /** Outcome of a peer's tagged access. */
    record PeerResult(WcStatus status, byte[] data) {
        boolean ok() {
            return status == WcStatus.SUCCESS;
        }
    }
}
