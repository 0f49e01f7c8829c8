package org.rpcrdma4j.verbs.disni;

import java.io.IOException;
import java.lang.ref.Reference;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;

import com.ibm.disni.util.MemoryUtils;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;

/**
 * {@link NativeCmId} over DiSNI's {@link RdmaCmId}. Used on the connection-manager thread only.
 * <p>
 * DiSNI facts this relies on (read from its 2.1 classes): {@code resolveAddr} ignores the source address;
 * {@code createQP} passes libdisni only the queue depths and max_inline_data (the SGE counts are libdisni's own);
 * {@code RdmaConnParam} refuses responder resources, initiator depth, flow control and SRQ, and DiSNI's accept sends
 * only the retry counts, never private data.
 */
final class DisniCmId implements NativeCmId {
    private final RdmaCmId id;
    private final CmEventLoop loop;

    DisniCmId(RdmaCmId id, CmEventLoop loop) {
        this.id = id;
        this.loop = loop;
    }

    RdmaCmId raw() {
        return id;
    }

    @Override
    public void resolveAddr(InetSocketAddress destination, int timeoutMillis) throws IOException {
        id.resolveAddr(null, destination, timeoutMillis);
    }

    @Override
    public void resolveRoute(int timeoutMillis) throws IOException {
        id.resolveRoute(timeoutMillis);
    }

    @Override
    public int contextKey() throws IOException {
        IbvContext context = id.getVerbs();
        if (context == null) {
            throw new IOException("the rdma_cm id is bound to no RDMA device");
        }
        return context.getCmd_fd();
    }

    @Override
    public NativeQp createQp(QpSpec spec) throws IOException {
        IbvQPInitAttr attr = new IbvQPInitAttr();
        attr.setQp_type(IbvQP.IBV_QPT_RC);
        attr.setSend_cq(spec.sendCq());
        attr.setRecv_cq(spec.recvCq());
        attr.cap().setMax_send_wr(spec.maxSendWr());
        attr.cap().setMax_recv_wr(spec.maxRecvWr());
        attr.cap().setMax_send_sge(spec.maxSendSge());
        attr.cap().setMax_recv_sge(spec.maxRecvSge());
        attr.cap().setMax_inline_data(spec.maxInlineData());
        IbvQP qp = id.createQP(spec.pd(), attr);
        return qp == null ? null : new DisniNativeQp(qp);
    }

    @Override
    public void connect(byte[] privateData, int retryCount, int rnrRetryCount) throws IOException {
        RdmaConnParam param = new RdmaConnParam();
        param.setRetry_count((byte) retryCount);
        param.setRnr_retry_count((byte) rnrRetryCount);
        ByteBuffer data = null;
        if (privateData.length > 0) {
            // native memory for librdmacm to copy from; referenced until connect returns
            data = ByteBuffer.allocateDirect(privateData.length);
            data.put(privateData);
            param.setPrivate_data(MemoryUtils.getAddress(data));
            param.setPrivate_data_len((byte) privateData.length);
        }
        id.connect(param);
        Reference.reachabilityFence(data);
    }

    @Override
    public void accept(int retryCount, int rnrRetryCount) throws IOException {
        RdmaConnParam param = new RdmaConnParam();
        param.setRetry_count((byte) retryCount);
        param.setRnr_retry_count((byte) rnrRetryCount);
        id.accept(param);
    }

    @Override
    public void disconnect() throws IOException {
        id.disconnect();
    }

    @Override
    public void destroyQp() throws IOException {
        if (id.getQp() != null && id.getQp().isOpen()) {
            id.destroyQP();
        }
    }

    @Override
    public void destroy() throws IOException {
        loop.unregister(id);
        if (id.isOpen()) {
            id.destroyId();
        }
    }

    @Override
    public InetSocketAddress source() throws IOException {
        return inet(id.getSource());
    }

    @Override
    public InetSocketAddress destination() throws IOException {
        return inet(id.getDestination());
    }

    private static InetSocketAddress inet(SocketAddress a) {
        return a instanceof InetSocketAddress ? (InetSocketAddress) a : null;
    }
}
