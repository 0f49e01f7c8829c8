package org.rpcrdma4j.verbs.disni;

import java.io.IOException;
import java.util.LinkedList;

import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.SVCPostSend;
import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.verbs.PostException;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.Sge;
import org.rpcrdma4j.verbs.TransportType;

/**
 * The pure translation of the SPI's send work requests into DiSNI's {@link IbvSendWR}: opcodes, flags, SGEs and RDMA
 * fields, plus every check that can refuse a chain before it reaches native code.
 * <p>
 * DiSNI 2.1 defines only SEND, SEND_WITH_IMM, RDMA_WRITE(_WITH_IMM), RDMA_READ and the atomics. Of the SPI's opcodes
 * this provider therefore carries SEND, RDMA_WRITE and RDMA_READ; SEND_WITH_INV, RDMA_READ_WITH_INV, REG_MR and
 * LOCAL_INV are refused with a {@link PostException} that names the missing capability. (Raw libibverbs opcode values
 * would reach some providers, but DiSNI gives no fast-register MR to use them with, no {@code invalidate_rkey} field
 * and no receive-side report of an invalidation, so the device capabilities do not claim them.)
 * <p>
 * Two ways into DiSNI: {@link #toIbv} fills a fresh {@link IbvSendWR} (used when a new chain shape is serialised,
 * which allocates), and {@link #apply} rewrites a serialised request in place through DiSNI's
 * {@link SVCPostSend.SendWRMod} (the steady-state path, which allocates nothing). Both must produce the same request;
 * the unit tests check that they do.
 */
final class SendTranslation {
    /** libibverbs' {@code IBV_SEND_*} flags: the bit values DiSNI defines in {@link IbvSendWR}. */
    static final int IBV_SEND_FENCE = 1;
    static final int IBV_SEND_SIGNALED = 1 << 1;
    static final int IBV_SEND_SOLICITED = 1 << 2;
    static final int IBV_SEND_INLINE = 1 << 3;

    private static final int KNOWN_FLAGS = SendWorkRequest.SIGNALED | SendWorkRequest.INLINE | SendWorkRequest.FENCE
            | SendWorkRequest.SOLICITED;

    private SendTranslation() {
    }

    /** The libibverbs opcode for an SPI opcode, or -1 when DiSNI cannot carry it ({@link #unsupportedReason}). */
    static int ibvOpcode(Opcode opcode) {
        switch (opcode) {
            case SEND:
                return IbvSendWR.IBV_WR_SEND;
            case RDMA_WRITE:
                return IbvSendWR.IBV_WR_RDMA_WRITE;
            case RDMA_READ:
                return IbvSendWR.IBV_WR_RDMA_READ;
            default:
                return -1;
        }
    }

    /** Why an opcode is refused, or null when it is carried. */
    static String unsupportedReason(Opcode opcode) {
        switch (opcode) {
            case SEND_WITH_INV:
                return "SEND_WITH_INV is not supported by the DiSNI provider: DiSNI 2.1 has no such opcode and no "
                        + "invalidate_rkey field, so the device does not report SEND_WITH_INV; send a plain SEND and "
                        + "let the peer invalidate";
            case RDMA_READ_WITH_INV:
                return "RDMA_READ_WITH_INV is not supported by the DiSNI provider: libibverbs and DiSNI 2.1 do not "
                        + "expose it (no READ_WITH_INV capability)";
            case REG_MR:
                return "REG_MR is not supported by the DiSNI provider: DiSNI 2.1 has no fast-registration verbs "
                        + "(no FAST_REG capability); register memory with ProtectionDomain.registerMemory";
            case LOCAL_INV:
                return "LOCAL_INV is not supported by the DiSNI provider: DiSNI 2.1 has no LOCAL_INV opcode and no "
                        + "fast-register MRs to invalidate (no LOCAL_INV capability); close the memory region instead";
            default:
                return null;
        }
    }

    /** The {@code IBV_SEND_*} flags for the SPI's {@link SendWorkRequest} flags (which use other bit values). */
    static int ibvSendFlags(int flags) {
        int ibv = 0;
        if ((flags & SendWorkRequest.SIGNALED) != 0) {
            ibv |= IBV_SEND_SIGNALED;
        }
        if ((flags & SendWorkRequest.INLINE) != 0) {
            ibv |= IBV_SEND_INLINE;
        }
        if ((flags & SendWorkRequest.FENCE) != 0) {
            ibv |= IBV_SEND_FENCE;
        }
        if ((flags & SendWorkRequest.SOLICITED) != 0) {
            ibv |= IBV_SEND_SOLICITED;
        }
        return ibv;
    }

    /**
     * Checks a whole chain against the queue pair's limits and DiSNI's opcodes; refuses it, naming the first offending
     * request, before anything is posted. Allocates nothing unless it throws.
     *
     * @return the number of requests in the chain
     */
    static int validate(SendWorkRequest chain, QpLimits limits) throws PostException {
        if (chain == null) {
            throw new PostException("empty chain", 0, 0);
        }
        int index = 0;
        for (SendWorkRequest wr = chain; wr != null; wr = wr.next) {
            if (index == limits.maxSendWr()) {
                throw new PostException("chain longer than the send queue (" + limits.maxSendWr()
                        + " work requests), or a cycle", index, wr.wrId);
            }
            check(wr, index, limits);
            index++;
        }
        return index;
    }

    private static void check(SendWorkRequest wr, int index, QpLimits limits) throws PostException {
        if (wr.opcode == null) {
            throw new PostException("no opcode", index, wr.wrId);
        }
        String unsupported = unsupportedReason(wr.opcode);
        if (unsupported != null) {
            throw new PostException(unsupported, index, wr.wrId);
        }
        if ((wr.flags & ~KNOWN_FLAGS) != 0) {
            throw new PostException("unknown send flags 0x" + Integer.toHexString(wr.flags & ~KNOWN_FLAGS), index,
                    wr.wrId);
        }
        int numSge = wr.numSge();
        if (numSge > limits.maxSendSge()) {
            throw new PostException(numSge + " SGEs, the queue pair takes at most " + limits.maxSendSge(), index,
                    wr.wrId);
        }
        for (int i = 0; i < numSge; i++) {
            if (wr.sge(i).length < 0) {
                throw new PostException("SGE " + i + " has a negative length", index, wr.wrId);
            }
        }
        if ((wr.flags & SendWorkRequest.INLINE) != 0) {
            if (wr.opcode == Opcode.RDMA_READ) {
                throw new PostException("INLINE is meaningless for RDMA_READ (it carries no outgoing data)", index,
                        wr.wrId);
            }
            long total = wr.totalLength();
            if (total > limits.maxInlineData()) {
                throw new PostException(total + " bytes inline, the queue pair carries at most "
                        + limits.maxInlineData(), index, wr.wrId);
            }
        }
        if (wr.opcode == Opcode.RDMA_READ && limits.transportType() == TransportType.IWARP && numSge > 1) {
            throw new PostException("an iWARP RDMA_READ has one sink SGE, got " + numSge, index, wr.wrId);
        }
    }

    /**
     * Fills a fresh DiSNI request from an SPI request (which must have passed {@link #validate}). Allocates the SGE
     * objects; for serialising a new chain shape only.
     */
    static IbvSendWR toIbv(SendWorkRequest wr, IbvSendWR out) {
        out.setWr_id(wr.wrId);
        out.setOpcode(ibvOpcode(wr.opcode));
        out.setSend_flags(ibvSendFlags(wr.flags));
        out.setImm_data(0);
        boolean rdma = wr.opcode == Opcode.RDMA_WRITE || wr.opcode == Opcode.RDMA_READ;
        out.getRdma().setRemote_addr(rdma ? wr.remoteAddress : 0);
        out.getRdma().setRkey(rdma ? wr.rkey : 0);
        LinkedList<IbvSge> sges = new LinkedList<>();
        boolean dropEmpty = dropsEmptySges(wr);
        for (int i = 0; i < wr.numSge(); i++) {
            Sge s = wr.sge(i);
            if (dropEmpty && s.length == 0) {
                continue;
            }
            IbvSge ibv = new IbvSge();
            ibv.setAddr(s.address);
            ibv.setLength(s.length);
            ibv.setLkey(s.lkey);
            sges.add(ibv);
        }
        out.setSg_list(sges);
        return out;
    }

    /**
     * Rewrites a serialised DiSNI request in place with an SPI request of the same shape (same opcode, same number of
     * {@linkplain #postedSges posted SGEs}: DiSNI's modifier cannot change those). Allocates nothing.
     */
    static void apply(SendWorkRequest wr, SVCPostSend.SendWRMod mod) throws IOException {
        mod.setWr_id(wr.wrId);
        mod.setSend_flags(ibvSendFlags(wr.flags));
        if (wr.opcode == Opcode.RDMA_WRITE || wr.opcode == Opcode.RDMA_READ) {
            SVCPostSend.RdmaMod rdma = mod.getRdmaMod();
            rdma.setRemote_addr(wr.remoteAddress);
            rdma.setRkey(wr.rkey);
        }
        boolean dropEmpty = dropsEmptySges(wr);
        int posted = 0;
        for (int i = 0; i < wr.numSge(); i++) {
            Sge s = wr.sge(i);
            if (dropEmpty && s.length == 0) {
                continue;
            }
            SVCPostSend.SgeMod sge = mod.getSgeMod(posted++);
            sge.setAddr(s.address);
            sge.setLength(s.length);
            sge.setLkey(s.lkey);
        }
    }

    /**
     * Whether the zero-length SGEs of a request are left out of what is posted: when at least one of its SGEs carries
     * data. They contribute no bytes, and siw (Linux 6.1) dereferences a null memory reference in its transmit path
     * for a zero-length SGE followed by a non-empty one (a kernel oops, observed). A request whose SGEs are all empty
     * is posted as it is (zero-length Sends, Writes and Reads work on siw).
     */
    static boolean dropsEmptySges(SendWorkRequest wr) {
        boolean empty = false;
        boolean data = false;
        for (int i = 0; i < wr.numSge(); i++) {
            if (wr.sge(i).length == 0) {
                empty = true;
            } else {
                data = true;
            }
        }
        return empty && data;
    }

    /** The number of SGEs posted for a request: {@link #dropsEmptySges} leaves the empty ones out. */
    static int postedSges(SendWorkRequest wr) {
        if (!dropsEmptySges(wr)) {
            return wr.numSge();
        }
        int n = 0;
        for (int i = 0; i < wr.numSge(); i++) {
            if (wr.sge(i).length != 0) {
                n++;
            }
        }
        return n;
    }

    /** Whether a request is an RDMA operation (it names a remote address and rkey). */
    static boolean isRdma(Opcode opcode) {
        return opcode == Opcode.RDMA_WRITE || opcode == Opcode.RDMA_READ;
    }

    /** The SPI's completion opcode for a send-queue opcode this provider carries (for flushed requests). */
    static org.rpcrdma4j.verbs.WcOpcode completionOpcode(Opcode opcode) {
        switch (opcode) {
            case RDMA_WRITE:
                return org.rpcrdma4j.verbs.WcOpcode.RDMA_WRITE;
            case RDMA_READ:
                return org.rpcrdma4j.verbs.WcOpcode.RDMA_READ;
            default:
                return org.rpcrdma4j.verbs.WcOpcode.SEND;
        }
    }
}
