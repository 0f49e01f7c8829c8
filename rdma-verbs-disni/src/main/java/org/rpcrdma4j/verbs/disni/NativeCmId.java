package org.rpcrdma4j.verbs.disni;

import java.io.IOException;
import java.net.InetSocketAddress;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvPd;

/**
 * An rdma_cm id as a connection drives it. The DiSNI implementation ({@link DisniCmId}) wraps an {@code RdmaCmId}
 * and must be used on the device's connection-manager thread only; tests give a fake that records the calls.
 */
interface NativeCmId {

    /** Starts address resolution; ADDR_RESOLVED or ADDR_ERROR follows. */
    void resolveAddr(InetSocketAddress destination, int timeoutMillis) throws IOException;

    /** Starts route resolution; ROUTE_RESOLVED or ROUTE_ERROR follows. */
    void resolveRoute(int timeoutMillis) throws IOException;

    /** Identifies the verbs context the id is bound to (its command descriptor), to tell devices apart. */
    int contextKey() throws IOException;

    /** Creates the id's queue pair. */
    NativeQp createQp(QpSpec spec) throws IOException;

    /**
     * Connects with private data (DiSNI copies it into the request; responder resources and initiator depth cannot be
     * set and are the device maxima).
     */
    void connect(byte[] privateData, int retryCount, int rnrRetryCount) throws IOException;

    /** Accepts a connection request (DiSNI sends no private data with an accept). */
    void accept(int retryCount, int rnrRetryCount) throws IOException;

    void disconnect() throws IOException;

    /** Destroys the id's queue pair. */
    void destroyQp() throws IOException;

    /**
     * Destroys the id. For the id of a connection request not yet accepted this is the reject: DiSNI has no
     * {@code rdma_reject}, and the kernel rejects a request whose id is destroyed.
     */
    void destroy() throws IOException;

    InetSocketAddress source() throws IOException;

    InetSocketAddress destination() throws IOException;

    /**
     * What a queue pair is created with.
     *
     * @param pd     the protection domain (null in tests)
     * @param sendCq the send queue's completion queue (null in tests)
     * @param recvCq the receive queue's completion queue (null in tests)
     */
    record QpSpec(IbvPd pd, IbvCQ sendCq, IbvCQ recvCq, int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge,
                  int maxInlineData) {
    }
}
