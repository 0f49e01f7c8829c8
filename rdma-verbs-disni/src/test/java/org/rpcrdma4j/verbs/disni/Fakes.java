package org.rpcrdma4j.verbs.disni;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.SVCPollCq;
import com.ibm.disni.verbs.SVCPostRecv;
import com.ibm.disni.verbs.SVCPostSend;

/**
 * Stand-ins for the native side, built on DiSNI's own plain classes ({@link IbvSendWR}, {@link IbvSge}, {@link IbvWC},
 * {@link IbvRecvWR}) and its abstract call classes ({@link SVCPostSend}, {@link SVCPostRecv}, {@link SVCPollCq}),
 * none of which needs libdisni.
 */
final class Fakes {
    private Fakes() {
    }

    /** A serialised send chain: keeps DiSNI's request objects and rewrites them through its modifier interfaces. */
    static final class PostSend extends SVCPostSend {
        final List<IbvSendWR> wrs;
        private final Mod[] mods;
        final NativeQpFake qp;
        int executions;
        boolean freed;

        PostSend(NativeQpFake qp, List<IbvSendWR> wrs) {
            this.qp = qp;
            this.wrs = new ArrayList<>(wrs);
            this.mods = new Mod[wrs.size()];
            for (int i = 0; i < mods.length; i++) {
                mods[i] = new Mod(wrs.get(i));
            }
        }

        @Override
        public SVCPostSend execute() throws IOException {
            if (freed) {
                throw new IOException("Trying to post send with a freed call");
            }
            if (qp.failPosts) {
                throw new IOException("ibv_post_send failed, errno 12");
            }
            executions++;
            qp.sendExecutions++;
            qp.lastSend = this;
            return this;
        }

        @Override
        public boolean isValid() {
            return !freed;
        }

        @Override
        public SVCPostSend free() {
            freed = true;
            return this;
        }

        @Override
        public SendWRMod getWrMod(int index) {
            return mods[index];
        }
    }

    static final class Mod implements SVCPostSend.SendWRMod, SVCPostSend.RdmaMod {
        private final IbvSendWR wr;
        private final SgeMod[] sges;

        Mod(IbvSendWR wr) {
            this.wr = wr;
            this.sges = new SgeMod[wr.getSg_list().size()];
            for (int i = 0; i < sges.length; i++) {
                sges[i] = new SgeMod(wr.getSg_list().get(i));
            }
        }

        @Override
        public void setWr_id(long wrId) {
            wr.setWr_id(wrId);
        }

        @Override
        public void setSend_flags(int flags) {
            wr.setSend_flags(flags);
        }

        @Override
        public long getWr_id() {
            return wr.getWr_id();
        }

        @Override
        public int getNum_sge() {
            return wr.getNum_sge();
        }

        @Override
        public int getOpcode() {
            return wr.getOpcode();
        }

        @Override
        public int getSend_flags() {
            return wr.getSend_flags();
        }

        @Override
        public SVCPostSend.RdmaMod getRdmaMod() {
            return this;
        }

        @Override
        public SVCPostSend.SgeMod getSgeMod(int index) {
            return sges[index];
        }

        @Override
        public void setRemote_addr(long addr) {
            wr.getRdma().setRemote_addr(addr);
        }

        @Override
        public long getRemote_addr() {
            return wr.getRdma().getRemote_addr();
        }

        @Override
        public void setRkey(int rkey) {
            wr.getRdma().setRkey(rkey);
        }

        @Override
        public int getRkey() {
            return wr.getRdma().getRkey();
        }

        @Override
        public void setReserved(int reserved) {
            wr.getRdma().setReserved(reserved);
        }

        @Override
        public int getReserved() {
            return wr.getRdma().getReserved();
        }
    }

    static final class SgeMod implements SVCPostSend.SgeMod {
        private final IbvSge sge;

        SgeMod(IbvSge sge) {
            this.sge = sge;
        }

        @Override
        public void setAddr(long addr) {
            sge.setAddr(addr);
        }

        @Override
        public long getAddr() {
            return sge.getAddr();
        }

        @Override
        public void setLength(int length) {
            sge.setLength(length);
        }

        @Override
        public int getLength() {
            return sge.getLength();
        }

        @Override
        public void setLkey(int lkey) {
            sge.setLkey(lkey);
        }

        @Override
        public int getLkey() {
            return sge.getLkey();
        }
    }

    /** A serialised receive: immutable, as DiSNI's is. Each execution is logged by wr_id on the queue pair. */
    static final class PostRecv extends SVCPostRecv {
        final IbvRecvWR wr;
        final NativeQpFake qp;
        boolean freed;

        PostRecv(NativeQpFake qp, List<IbvRecvWR> wrs) {
            this.qp = qp;
            this.wr = wrs.get(0);
            if (wrs.size() != 1) {
                throw new AssertionError("receives are serialised one by one");
            }
        }

        @Override
        public SVCPostRecv execute() throws IOException {
            if (freed) {
                throw new IOException("Trying to post receive with a freed call");
            }
            if (qp.failPosts) {
                throw new IOException("ibv_post_recv failed, errno 22");
            }
            qp.logRecv(wr.getWr_id());
            return this;
        }

        @Override
        public boolean isValid() {
            return !freed;
        }

        @Override
        public SVCPostRecv free() {
            freed = true;
            return this;
        }

        @Override
        public RecvWRMod getWrMod(int index) {
            return () -> wr.getWr_id();
        }
    }

    /** A native queue pair that serialises into the fakes above and logs what was posted. */
    static final class NativeQpFake implements NativeQp {
        final int qpNum;
        final List<PostSend> sends = new ArrayList<>();
        final List<PostRecv> recvs = new ArrayList<>();
        final long[] recvLog = new long[1 << 16];
        int recvCount;
        long sendExecutions;
        PostSend lastSend;
        boolean failPosts;

        NativeQpFake(int qpNum) {
            this.qpNum = qpNum;
        }

        @Override
        public int qpNum() {
            return qpNum;
        }

        @Override
        public SVCPostSend prepareSend(List<IbvSendWR> chain) {
            PostSend p = new PostSend(this, chain);
            sends.add(p);
            return p;
        }

        @Override
        public SVCPostRecv prepareRecv(List<IbvRecvWR> chain) {
            PostRecv p = new PostRecv(this, chain);
            recvs.add(p);
            return p;
        }

        void logRecv(long wrId) {
            recvLog[recvCount++ & (recvLog.length - 1)] = wrId;
        }

        List<Long> recvWrIds() {
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < recvCount; i++) {
                ids.add(recvLog[i]);
            }
            return ids;
        }
    }

    /** A poll call over a queue of completions; copies only wr_id, status and opcode of failed ones, as DiSNI does. */
    static final class PollCq extends SVCPollCq {
        private final IbvWC[] wcs;
        final Deque<IbvWC> pending = new ArrayDeque<>();
        private int polls;
        boolean freed;
        boolean fail;

        PollCq(IbvWC[] wcs) {
            this.wcs = wcs;
        }

        @Override
        public SVCPollCq execute() throws IOException {
            if (fail) {
                throw new IOException("Polling CQ failed");
            }
            polls = 0;
            while (polls < wcs.length && !pending.isEmpty()) {
                IbvWC src = pending.poll();
                IbvWC dst = wcs[polls++];
                dst.setWr_id(src.getWr_id());
                dst.setStatus(src.getStatus());
                dst.setOpcode(src.getOpcode());
                if (src.getStatus() == 0) {
                    dst.setVendor_err(src.getVendor_err());
                    dst.setByte_len(src.getByte_len());
                    dst.setImm_data(src.getImm_data());
                    dst.setQp_num(src.getQp_num());
                    dst.setWc_flags(src.getWc_flags());
                }
            }
            return this;
        }

        @Override
        public boolean isValid() {
            return !freed;
        }

        @Override
        public SVCPollCq free() {
            freed = true;
            return this;
        }

        @Override
        public int getPolls() {
            return polls;
        }
    }

    /** A native completion queue: a poll call, arming and an event counter. */
    static class NativeCqFake implements NativeCq {
        PollCq poll;
        int notifyRequests;
        int events;
        int acked;
        boolean destroyed;

        @Override
        public SVCPollCq newPoll(IbvWC[] wcs) {
            poll = new PollCq(wcs);
            return poll;
        }

        @Override
        public void requestNotify() {
            notifyRequests++;
        }

        @Override
        public boolean takeEvent() {
            if (events > 0) {
                events--;
                return true;
            }
            return false;
        }

        @Override
        public void ackEvents(int count) {
            acked += count;
        }

        @Override
        public void destroy() {
            destroyed = true;
        }

        @Override
        public IbvCQ ibvCq() {
            return null;
        }

        /** Queues a completion for the next poll. */
        void complete(long wrId, int status, int opcode, int byteLen, int qpNum) {
            IbvWC wc = new IbvWC();
            wc.setWr_id(wrId);
            wc.setStatus(status);
            wc.setOpcode(opcode);
            wc.setByte_len(byteLen);
            wc.setQp_num(qpNum);
            poll.pending.add(wc);
        }
    }

    /** An rdma_cm id that logs every call. */
    static class CmIdFake implements NativeCmId {
        final List<String> calls = new ArrayList<>();
        int contextKey = 7;
        NativeQpFake qp = new NativeQpFake(0x1234);
        boolean createQpReturnsNull;
        IOException failNext;
        byte[] connectedWith;
        QpSpec spec;
        InetSocketAddress source = new InetSocketAddress("10.0.0.1", 40000);
        InetSocketAddress destination = new InetSocketAddress("10.0.0.2", 20049);

        private void maybeFail(String call) throws IOException {
            calls.add(call);
            if (failNext != null) {
                IOException e = failNext;
                failNext = null;
                throw e;
            }
        }

        @Override
        public void resolveAddr(InetSocketAddress dst, int timeoutMillis) throws IOException {
            maybeFail("resolveAddr " + dst + " " + timeoutMillis);
        }

        @Override
        public void resolveRoute(int timeoutMillis) throws IOException {
            maybeFail("resolveRoute");
        }

        @Override
        public int contextKey() {
            return contextKey;
        }

        @Override
        public NativeQp createQp(QpSpec s) throws IOException {
            maybeFail("createQp");
            spec = s;
            return createQpReturnsNull ? null : qp;
        }

        @Override
        public void connect(byte[] privateData, int retryCount, int rnrRetryCount) throws IOException {
            maybeFail("connect " + retryCount + "/" + rnrRetryCount);
            connectedWith = privateData.clone();
        }

        @Override
        public void accept(int retryCount, int rnrRetryCount) throws IOException {
            maybeFail("accept " + retryCount + "/" + rnrRetryCount);
        }

        @Override
        public void disconnect() throws IOException {
            maybeFail("disconnect");
        }

        @Override
        public void destroyQp() throws IOException {
            maybeFail("destroyQp");
        }

        @Override
        public void destroy() throws IOException {
            maybeFail("destroy");
        }

        @Override
        public InetSocketAddress source() {
            return source;
        }

        @Override
        public InetSocketAddress destination() {
            return destination;
        }
    }

    /** Runs connection-manager work at once, on the caller's thread. */
    static final class DirectCm implements CmExecutor {
        @Override
        public void execute(Runnable work) {
            work.run();
        }

        @Override
        public <T> T call(java.util.concurrent.Callable<T> work) throws org.rpcrdma4j.verbs.VerbsException {
            try {
                return work.call();
            } catch (org.rpcrdma4j.verbs.VerbsException e) {
                throw e;
            } catch (Exception e) {
                throw new org.rpcrdma4j.verbs.VerbsException(e.getMessage(), e);
            }
        }

        @Override
        public boolean inLoop() {
            return true;
        }
    }
}
