package org.rpcrdma4j.verbs.soft.internal;

import java.nio.ByteBuffer;

import org.rpcrdma4j.verbs.DeviceCapability;
import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.verbs.PageList;
import org.rpcrdma4j.verbs.PageTable;
import org.rpcrdma4j.verbs.PostException;
import org.rpcrdma4j.verbs.QpState;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.Sge;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * The send queue: a ring of {@link SendWqe} slots made when the queue pair is created.
 * <p>
 * Four counters walk the ring, each only forward: {@code published} (next slot a post fills; written by posting
 * threads under the queue's lock), {@code exec} (next slot the engine executes or transmits), {@code retire} (next
 * slot whose completion the engine decides) and {@code free} (slots below it may be reused: advanced when a signaled
 * or failed work request completes, so unsignaled slots are reclaimed by a later signaled completion). The engine
 * owns {@code exec} and {@code retire}; {@code free} is written by the engine and read by posters.
 */
final class SendQueue {
    final SendWqe[] slots;
    final int mask;
    final int depth;
    private final SoftQp qp;
    private final ByteBuffer inlineArea;

    volatile long published;
    volatile long free;
    long exec;
    long retire;
    /** Work requests below this were confirmed placed by the peer (or written, without confirmation). */
    long acked;

    SendQueue(SoftQp qp, int depth, int maxSge, int maxInline) {
        this.qp = qp;
        this.depth = depth;
        int size = 1;
        while (size < depth) {
            size <<= 1;
        }
        slots = new SendWqe[size];
        mask = size - 1;
        inlineArea = maxInline > 0 ? ByteBuffer.allocateDirect(size * maxInline) : null;
        for (int i = 0; i < size; i++) {
            ByteBuffer inline = null;
            if (inlineArea != null) {
                inline = inlineArea.duplicate().position(i * maxInline).limit((i + 1) * maxInline).slice();
            }
            slots[i] = new SendWqe(maxSge, inline);
        }
    }

    SendWqe slot(long index) {
        return slots[(int) (index & mask)];
    }

    /** Copies a chain into the ring, all or nothing. Any thread. */
    synchronized void post(SendWorkRequest chain) throws PostException {
        long t = published;
        int i = 0;
        for (SendWorkRequest wr = chain; wr != null; wr = wr.next, i++) {
            if (qp.state() == QpState.CLOSED) {
                throw new PostException("queue pair " + qp.qpNum() + " is closed", i, wr.wrId);
            }
            validate(wr, i);
            if (t - free >= depth) {
                throw new PostException("send queue full (" + depth + " work requests outstanding)", i, wr.wrId);
            }
            copy(wr, slot(t), i);
            t++;
        }
        published = t;
    }

    private void validate(SendWorkRequest wr, int i) throws PostException {
        Opcode op = wr.opcode;
        if (op == null) {
            throw new PostException("no opcode", i, wr.wrId);
        }
        DeviceCapability needed = switch (op) {
            case SEND_WITH_INV -> DeviceCapability.SEND_WITH_INV;
            case RDMA_READ_WITH_INV -> DeviceCapability.READ_WITH_INV;
            case REG_MR -> DeviceCapability.FAST_REG;
            case LOCAL_INV -> DeviceCapability.LOCAL_INV;
            default -> null;
        };
        if (needed != null && !qp.device.attributes().has(needed)) {
            throw new PostException(op + " needs device capability " + needed + ", which this device lacks", i,
                    wr.wrId);
        }
        if (wr.numSge() > qp.config().maxSendSge()) {
            throw new PostException(wr.numSge() + " SGEs exceed the queue pair's " + qp.config().maxSendSge(), i,
                    wr.wrId);
        }
        long total = 0;
        for (int s = 0; s < wr.numSge(); s++) {
            Sge sge = wr.sge(s);
            if (sge.length < 0) {
                throw new PostException("negative SGE length " + sge.length, i, wr.wrId);
            }
            total += sge.length;
        }
        if (total > Integer.MAX_VALUE) {
            throw new PostException("message of " + total + " bytes exceeds " + Integer.MAX_VALUE, i, wr.wrId);
        }
        boolean inline = (wr.flags & SendWorkRequest.INLINE) != 0;
        switch (op) {
            case RDMA_READ, RDMA_READ_WITH_INV -> {
                if (wr.numSge() > 1) {
                    throw new PostException("an iWARP RDMA READ takes exactly one sink SGE, got " + wr.numSge(), i,
                            wr.wrId);
                }
                if (inline) {
                    throw new PostException("RDMA READ cannot be inline", i, wr.wrId);
                }
            }
            case REG_MR -> {
                if (!(wr.mr instanceof SoftFastRegMr mr) || mr.device != qp.device) {
                    throw new PostException("REG_MR needs a fast-register MR of this device, got " + wr.mr, i,
                            wr.wrId);
                }
                try {
                    SoftPd.checkPageList(wr.pageList, mr.maxPages());
                    SoftPd.checkAccess(wr.access);
                    String refusal = qp.device.attributes().has(DeviceCapability.MEMORY_WINDOW)
                            ? wr.pageList.windowRefusal(qp.pd) : null;
                    if (refusal != null) {
                        throw new VerbsException(refusal);
                    }
                } catch (VerbsException e) {
                    throw new PostException("REG_MR: " + e.getMessage(), i, wr.wrId);
                }
            }
            default -> {
            }
        }
        if (inline) {
            if (op != Opcode.SEND && op != Opcode.SEND_WITH_INV && op != Opcode.RDMA_WRITE) {
                throw new PostException(op + " cannot be inline", i, wr.wrId);
            }
            if (total > qp.config().maxInlineData()) {
                throw new PostException(total + " inline bytes exceed the queue pair's maxInlineData "
                        + qp.config().maxInlineData(), i, wr.wrId);
            }
        }
    }

    private void copy(SendWorkRequest wr, SendWqe wqe, int i) throws PostException {
        wqe.wrId = wr.wrId;
        wqe.opcode = wr.opcode;
        wqe.flags = wr.flags;
        wqe.remoteAddress = wr.remoteAddress;
        wqe.rkey = wr.rkey;
        wqe.invalidateStag = wr.invalidateStag;
        wqe.inline = (wr.flags & SendWorkRequest.INLINE) != 0;
        int n = wr.numSge();
        wqe.numSge = n;
        long total = 0;
        for (int s = 0; s < n; s++) {
            Sge sge = wr.sge(s);
            wqe.addr[s] = sge.address;
            wqe.len[s] = sge.length;
            wqe.lkey[s] = sge.lkey;
            total += sge.length;
        }
        wqe.length = total;
        if (wqe.inline) {
            copyInline(wr, wqe, i);
        }
        if (wr.opcode == Opcode.REG_MR) {
            copyRegistration(wr, wqe);
        } else {
            wqe.regMr = null;
        }
        wqe.state = SendWqe.QUEUED;
        wqe.status = null;
        wqe.vendorError = 0;
        wqe.byteLen = 0;
        wqe.msn = 0;
    }

    private void copyInline(SendWorkRequest wr, SendWqe wqe, int i) throws PostException {
        // the transmitter's gathering writes moved the area's position and limit when the slot last carried inline data
        wqe.inlineData.clear();
        int pos = 0;
        for (int s = 0; s < wqe.numSge; s++) {
            int length = wqe.len[s];
            if (length == 0) {
                continue;
            }
            SoftRegion region = qp.device.stags.byStag(wqe.lkey[s]);
            long offset = region == null ? SoftRegion.INVALID_STAG : region.checkInline(wqe.addr[s], length);
            if (offset < 0) {
                throw new PostException("inline SGE " + wr.sge(s) + " does not name registered memory", i, wr.wrId);
            }
            region.copyOut(offset, wqe.inlineData, pos, length);
            pos += length;
        }
        wqe.inlineLength = pos;
    }

    private static void copyRegistration(SendWorkRequest wr, SendWqe wqe) {
        PageList list = wr.pageList;
        int count = list.count();
        if (wqe.regTable == null) {
            for (int p = 0; p < wqe.regPageCount; p++) {
                wqe.regPages[p] = null;
            }
        }
        PageTable table = list.table();
        if (table != null) {
            // a run of a validated table: taken over whole, nothing copied per page
            wqe.regTable = table;
            wqe.regTableFirst = list.tableFirst();
        } else {
            if (wqe.regPages.length < count) {
                wqe.regPages = new ByteBuffer[count];
            }
            for (int p = 0; p < count; p++) {
                wqe.regPages[p] = list.page(p);
            }
            wqe.regTable = null;
            wqe.regTableFirst = 0;
        }
        wqe.regPageCount = count;
        wqe.regMr = (SoftFastRegMr) wr.mr;
        wqe.regPageSize = list.pageSize();
        wqe.regFbo = list.firstByteOffset();
        wqe.regLength = list.length();
        wqe.regIova = list.iova();
        wqe.regAccess = wr.access;
        wqe.regKey = wr.key;
    }
}
