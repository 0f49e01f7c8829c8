package org.rpcrdma4j.verbs.soft.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.zip.CRC32C;

import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.DeviceCapability;
import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.soft.wire.Ddp;
import org.rpcrdma4j.verbs.soft.wire.Fpdu;
import org.rpcrdma4j.verbs.soft.wire.Rdmap;
import org.rpcrdma4j.verbs.soft.wire.Terminate;

/**
 * The sending half of a connected queue pair: turns send-queue work requests, Read Responses, placement-confirmation
 * probes and Terminates into FPDUs and writes them with gathering writes, straight from registered memory.
 * <p>
 * One message is built at a time, segment by segment ({@code maxUlpdu} payload bytes each, or up to a page fewer so
 * that a segment taken from fast-registered pages ends on a page boundary), so tagged messages never interleave.
 * Between messages Read Responses (IRQ) and send-queue work alternate, at most four responses in a row while the
 * send queue has work (as siw). Local work requests (REG_MR, LOCAL_INV) execute when the send queue
 * reaches them. A Read waits while the ORD is used up; a fenced request waits for earlier Reads.
 * <p>
 * A Read Response's source is checked once, when the response starts; its pieces are then {@linkplain Gather#guard
 * guarded} by the region's generation, which is compared before every gathering write: if the source was invalidated,
 * mapped anew or deregistered meanwhile, none of its bytes that are not yet written go out. The FPDUs holding them are
 * dropped and a Terminate follows what went before, or, when such an FPDU is partly written already, the connection
 * is reset.
 * <p>
 * Engine thread only.
 */
final class Transmitter {
    private static final int NONE = 0;
    private static final int SQ_SEND = 1;
    private static final int SQ_WRITE = 2;
    private static final int READ_REQUEST = 3;
    private static final int READ_RESPONSE = 4;
    private static final int PROBE = 5;
    private static final int RTR = 6;
    private static final int TERMINATE = 7;

    /** Unconfirmed bytes after which a probe goes out even while more work is queued. */
    private static final int PROBE_BYTES = 256 * 1024;
    /** Most Read Responses sent in a row while the send queue has work. */
    private static final int IRQ_BURST = 4;
    /** The STag of zero-length frames (ready-to-receive, probes): index 0 is never allocated. */
    static final int NULL_STAG = 1;

    private final SoftQp qp;
    private final SendQueue sq;
    private final int engineId;
    private final int maxPayload;
    private final Gather gather = new Gather();
    private final CRC32C crc = new CRC32C();
    private final ByteBuffer terminateBody = ByteBuffer.allocateDirect(128);
    private final ByteBuffer quoted = ByteBuffer.allocateDirect(128);

    private SocketChannel channel;
    private boolean crcOn;
    private boolean ackMode;
    private boolean gated;
    private boolean rtrPending;
    private boolean messageSent;
    private boolean writeInterest;

    private int kind = NONE;
    private SendWqe wqe;
    private ReadEntry read;
    private int msgLength;
    private int msgDone;
    private int sgeIndex;
    private int sgeOffset;
    private SoftRegion source;
    private long sourceOffset;
    /** {@link #source}'s generation before its check. */
    private int sourceGeneration;
    /** The source of the Read Response being built changed since its check (found while building). */
    private boolean sourceRevoked;

    private boolean segOpen;
    private boolean segLast;
    private int segRemaining;
    private int segPad;
    private int segBytes;

    private int sendMsn;
    private int readRequestMsn;
    private int terminateMsn;
    private int irqBurst;
    private int unackedSinceReadRequest;
    /**
     * Of the work requests since the last Read Request, those whose completion waits for a confirmation: signaled
     * Writes and Sends, and signaled local operations executed behind an unconfirmed message (completions are
     * reported in posting order).
     */
    private int awaitedSinceReadRequest;
    private long unackedBytes;
    private boolean probeOutstanding;
    /** Gathering writes started (engine or claim holder writes it; read from any thread). */
    private volatile long gatheringWrites;

    private boolean terminateStaged;
    private boolean terminateBuilt;
    /** 0 while running; else the teardown in progress: stop at an FPDU boundary, then (Terminate,) FIN. */
    private int finishing;
    private boolean finished;

    private boolean pumping;
    private boolean repump;
    private boolean faultCorruptCrc;
    private boolean faultTruncate;
    private long delayedUntil;

    Transmitter(SoftQp qp, SendQueue sq, int engineId, int maxPayload) {
        this.qp = qp;
        this.sq = sq;
        this.engineId = engineId;
        this.maxPayload = maxPayload;
    }

    /** Starts sending on an established connection. */
    void start(SocketChannel channel, boolean crcOn, boolean ackMode, boolean gated, boolean sendRtr) {
        this.channel = channel;
        this.crcOn = crcOn;
        this.ackMode = ackMode;
        this.gated = gated;
        this.rtrPending = sendRtr;
    }

    /** The work request whose message is being built, or null. */
    SendWqe current() {
        return kind == SQ_SEND || kind == SQ_WRITE ? wqe : null;
    }

    /** The first FPDU from the peer arrived: a responder may now send (the initiator sends first). */
    void ungate() {
        gated = false;
    }

    /** Queues one more zero-length RDMA Write to STag 1 (like the ready-to-receive frame), sent between messages. */
    void wakePeer() {
        rtrPending = true;
    }

    long gatheringWrites() {
        return gatheringWrites;
    }

    /** A placement-confirmation probe's response arrived. */
    void probeAnswered() {
        probeOutstanding = false;
    }

    void onWritable() {
        pump();
    }

    /**
     * Writes what is pending and builds more until the socket is full or there is nothing to send, then decides the
     * completions this made due ({@link SoftQp#retire}): without placement confirmation a Send or Write is done once
     * written, and whoever pumped (a post, the engine, a timer) must not leave it done but unreported. Re-entrant
     * calls are folded into the running one: an error found while building tears the connection down, and a
     * completion listener called from the retire posts again (its work goes in the next turn of this loop, instead of
     * a pump nested in the listener, one stack frame deeper per completion).
     */
    void pump() {
        if (pumping) {
            repump = true;
            return;
        }
        pumping = true;
        try {
            do {
                repump = false;
                pumpOnce();
                qp.retire();
            } while (repump && channel != null && !finished);
        } finally {
            pumping = false;
        }
    }

    /**
     * Whether nothing is being written: no FPDU staged or half sent, no Read Response waiting, no wait for the socket
     * to drain. A posting thread transmits only then (its own small chain); otherwise the output in progress (a
     * mebibyte Read Response, a full socket) is the engine's to finish. A held probe answer ({@link ProbeHold}) is
     * no output in progress: the poster carries it with its chain. Engine or claim holder only.
     */
    boolean idleForPoster() {
        return gather.count() == 0 && !segOpen && !writeInterest && (qp.irq.isEmpty() || qp.hold.isHeld());
    }

    private void pumpOnce() {
        if (channel == null || finished) {
            return;
        }
        if (delayedUntil != 0) {
            if (System.nanoTime() - delayedUntil < 0) {
                interestWrite(false);
                return;
            }
            delayedUntil = 0;
        }
        try {
            for (;;) {
                if (gather.count() > 0) {
                    if (sourceRevoked || gather.firstRevoked() >= 0) {
                        dropRevoked();
                        return;
                    }
                    gatheringWrites++;
                    if (!gather.write(channel)) {
                        if (gather.budgetExhausted()) {
                            qp.onTruncationFault();
                            return;
                        }
                        interestWrite(true);
                        return;
                    }
                    gather.continuesFpdu(segOpen);
                    onFlushed();
                }
                if (!fill()) {
                    break;
                }
            }
            interestWrite(false);
            if (finishing != 0 && !segOpen && (!terminateStaged || terminateBuilt) && gather.count() == 0) {
                finished = true;
                qp.onOutputFinished();
            }
        } catch (IOException e) {
            qp.onTransportError(e);
        }
    }

    /**
     * Unwritten bytes of a Read Response's source that changed since its check are in the gather list (or were about
     * to be): drops them with the FPDUs holding them, then sends a Terminate after what went before, or, when part of
     * such an FPDU went out already, resets the connection.
     */
    private void dropRevoked() {
        int entry = gather.firstRevoked();
        boolean cut = gather.cutBefore(entry >= 0 ? entry : gather.count());
        sourceRevoked = false;
        if (!cut) {
            qp.responseSourceRevoked(false);
            return;
        }
        segOpen = false;
        kind = NONE;
        wqe = null;
        read = null;
        source = null;
        qp.responseSourceRevoked(true);
    }

    private void onFlushed() {
        if (!ackMode) {
            qp.acknowledge(sq.exec);
        } else if (qp.peerResponseSourceInvalidated()) {
            // no probe may go (probeDue): what has been written completes as without placement confirmation
            qp.acknowledge(sq.exec);
            clearUnconfirmed();
        }
    }

    /** Nothing built so far waits for a confirmation any more (a Read Request or probe confirms it, or it is done). */
    private void clearUnconfirmed() {
        unackedSinceReadRequest = 0;
        awaitedSinceReadRequest = 0;
        unackedBytes = 0;
    }

    private void interestWrite(boolean on) {
        if (on != writeInterest) {
            writeInterest = on;
            qp.interestWrite(on);
        }
    }

    /** Builds FPDUs into the gather list; returns whether it holds anything to write. */
    private boolean fill() {
        for (;;) {
            if (segOpen) {
                if (!appendPayload() || !appendTrailer()) {
                    return true;
                }
                continue;
            }
            if (finishing != 0 && kind != TERMINATE) {
                kind = NONE;
                wqe = null;
            }
            if (kind == NONE && !pickMessage()) {
                return gather.count() > 0;
            }
            if (!startSegment()) {
                return true;
            }
        }
    }

    // ---------------------------------------------------------------- choosing the next message

    private boolean pickMessage() {
        if (terminateStaged && !terminateBuilt) {
            terminateBuilt = true;
            kind = TERMINATE;
            msgLength = terminateBody.remaining();
            msgDone = 0;
            return true;
        }
        if (finishing != 0 || gated || qp.isErrorState()) {
            return false;
        }
        if (qp.hold.isHeld() && (rtrPending || sqHeadReady() || probeDue(false))) {
            // answered first, in the same gather as what follows it. Not after it: a peer that handles a request
            // and posts its reply within the receive completion (on its engine) would then still have its probe
            // outstanding, and send its next probe alone, after the reply
            qp.hold.releaseForOutput();
        }
        if (rtrPending) {
            rtrPending = false;
            kind = RTR;
            msgLength = 0;
            msgDone = 0;
            return true;
        }
        for (;;) {
            boolean sqReady = sqHeadReady();
            if (!qp.irq.isEmpty() && !qp.hold.isHeld() && (irqBurst < IRQ_BURST || !sqReady)) {
                irqBurst++;
                return startReadResponse();
            }
            if (!sqReady) {
                break;
            }
            if (probeDue(true)) {
                return startProbe();
            }
            SendWqe w = sq.slot(sq.exec);
            switch (w.opcode) {
                case REG_MR, LOCAL_INV -> {
                    executeLocal(w);
                    if (qp.isErrorState()) {
                        return false;
                    }
                    continue;
                }
                case RDMA_READ, RDMA_READ_WITH_INV -> {
                    if (qp.orq.limit() == 0) {
                        failLocal(w, WcStatus.LOC_QP_OP_ERR, "RDMA READ with an ORD of 0");
                        return false;
                    }
                    if (!checkSges(w, Access.LOCAL_WRITE)) {
                        return false;
                    }
                    irqBurst = 0;
                    return startMessage(w, READ_REQUEST);
                }
                default -> {
                    if (!w.inline && !checkSges(w, 0)) {
                        return false;
                    }
                    irqBurst = 0;
                    return startMessage(w, w.opcode == Opcode.RDMA_WRITE ? SQ_WRITE : SQ_SEND);
                }
            }
        }
        if (probeDue(false)) {
            return startProbe();
        }
        return false;
    }

    /**
     * Whether to send a placement-confirmation probe now: when there is unconfirmed data, a completion waits for it
     * (an unsignaled Write or Send needs no probe of its own: a later probe or Read Response confirms it, and until
     * then it holds its slot as it would anyway), and no probe is in flight — at once when the send queue has nothing
     * else ready, or, while more work follows, once enough data (a quarter of the send queue, or
     * {@value #PROBE_BYTES} bytes) went out unconfirmed, so that completions keep flowing during long streams.
     * <p>
     * Never while a Read of the consumer's is outstanding: the peer is then, or soon, transmitting its response, and
     * Linux siw answers a zero-length Read Request that arrives while it transmits from its Read Response queue, where
     * it takes the length and STag of the work request it served before; once that STag is invalid (an NFS client's
     * read chunk after the reply invalidated it) it ends the connection with a Terminate. The Read Response confirms
     * what went before the Read.
     * <p>
     * Nor behind a Send With Invalidate of the STag our last Read came from, until the peer sends anything but a Read
     * Response: siw's transmitter may still be at that response (its last bytes sent, the work request not yet
     * retired) when the probe arrives, and it serves a probe queued there with the STag of the work request before
     * it, now invalid (an NFS server's reply invalidating the client's read chunk). Meanwhile what is written
     * completes once written ({@link #onFlushed}), as without placement confirmation; the peer's next message (an NFS
     * client's next call) ends that, and the queue pair is scheduled then. For the same reason such a Send waits
     * while a probe is outstanding ({@link #sqHeadReady}): a probe sent after the Read may still be queued at the
     * peer.
     */
    private boolean probeDue(boolean moreWork) {
        if (!ackMode || awaitedSinceReadRequest == 0 || probeOutstanding || qp.orq.isFull()
                || qp.hasOutstandingUserReads() || qp.peerResponseSourceInvalidated()) {
            return false;
        }
        return !moreWork || unackedBytes >= PROBE_BYTES || unackedSinceReadRequest >= Math.max(1, sq.depth / 4);
    }

    private boolean startProbe() {
        kind = PROBE;
        msgLength = 0;
        msgDone = 0;
        return true;
    }

    /**
     * Whether the send queue's next request can go now: not fenced behind an outstanding Read, and not a Read while
     * the ORD is used up (a Read with an ORD of 0 can "go": it fails).
     */
    private boolean sqHeadReady() {
        if (sq.exec >= sq.published) {
            return false;
        }
        SendWqe w = sq.slot(sq.exec);
        if (w.fenced() && qp.hasOutstandingUserReads()) {
            return false;
        }
        if (probeOutstanding && w.opcode == Opcode.SEND_WITH_INV && qp.invalidatesPeerResponseSource(w.invalidateStag)) {
            return false; // see probeDue
        }
        return !w.isRead() || qp.orq.limit() == 0 || !qp.orq.isFull();
    }

    private boolean startMessage(SendWqe w, int messageKind) {
        firstMessage();
        if (messageKind != READ_REQUEST) {
            qp.hold.onSendQueueMessage();
        }
        kind = messageKind;
        wqe = w;
        msgDone = 0;
        sgeIndex = 0;
        sgeOffset = 0;
        if (messageKind == READ_REQUEST) {
            msgLength = 0;
            w.msn = ++readRequestMsn;
        } else {
            msgLength = (int) (w.inline ? w.inlineLength : w.length);
            if (messageKind == SQ_SEND) {
                w.msn = ++sendMsn;
                if (w.opcode == Opcode.SEND_WITH_INV) {
                    qp.remoteInvalidateSent(w.invalidateStag);
                }
            }
        }
        return true;
    }

    /** Tells the queue pair when the first message (not a ready-to-receive frame or probe) goes out. */
    private void firstMessage() {
        if (!messageSent) {
            messageSent = true;
            qp.firstMessageSent();
        }
    }

    private boolean startReadResponse() {
        firstMessage();
        ReadEntry e = qp.irq.head();
        source = null;
        sourceOffset = 0;
        if (e.size != 0) {
            SoftRegion region = qp.device.stags.byStag(e.sourceStag);
            sourceGeneration = region == null ? 0 : region.generation();
            long offset = region == null ? SoftRegion.INVALID_STAG
                    : region.check(e.sourceStag, qp.pd, Access.REMOTE_READ, e.sourceTo, e.size & 0xFFFF_FFFFL);
            if (offset < 0) {
                int code = offset == SoftRegion.BOUNDS_VIOLATION ? Terminate.RDMAP_BASE_BOUNDS
                        : offset == SoftRegion.PD_MISMATCH ? Terminate.RDMAP_STAG_NOT_ASSOCIATED
                        : offset == SoftRegion.ACCESS_VIOLATION ? Terminate.RDMAP_ACCESS_RIGHTS
                        : offset == SoftRegion.TO_WRAP ? Terminate.RDMAP_TO_WRAP
                        : Terminate.RDMAP_INVALID_STAG;
                SegmentHeader quotedHeader = qp.scratchHeader();
                quotedHeader.setReadRequest(e);
                qp.protocolError(Terminate.LAYER_RDMAP, Terminate.RDMAP_REMOTE_PROTECTION, code,
                        Terminate.FLAG_M | Terminate.FLAG_D | Terminate.FLAG_R, quotedHeader,
                        "RDMA Read source " + org.rpcrdma4j.verbs.Stag.toString(e.sourceStag) + " refused");
                return false;
            }
            source = region;
            sourceOffset = offset;
        }
        read = e;
        kind = READ_RESPONSE;
        msgLength = e.size;
        msgDone = 0;
        return true;
    }

    /** Checks a work request's local SGEs (lkey valid, same PD, rights, bounds) and resolves them. */
    private boolean checkSges(SendWqe w, int rights) {
        for (int i = 0; i < w.numSge; i++) {
            w.regions[i] = null;
            if (w.len[i] == 0) {
                continue;
            }
            SoftRegion region = qp.device.stags.byStag(w.lkey[i]);
            long offset = region == null ? SoftRegion.INVALID_STAG
                    : region.check(w.lkey[i], qp.pd, rights, w.addr[i], w.len[i]);
            if (offset < 0) {
                failLocal(w, WcStatus.LOC_PROT_ERR, "SGE " + i + " (lkey "
                        + org.rpcrdma4j.verbs.Stag.toString(w.lkey[i]) + ") failed the protection check: "
                        + LocalOps.describe(offset));
                return false;
            }
            w.regions[i] = region;
            w.offsets[i] = offset;
        }
        return true;
    }

    private void executeLocal(SendWqe w) {
        int result = w.opcode == Opcode.REG_MR ? LocalOps.register(qp, w) : LocalOps.invalidate(qp, w.invalidateStag);
        if (result != 0) {
            // a refused bind of a window is a memory window bind error
            WcStatus status = result == SoftRegion.PD_MISMATCH ? WcStatus.LOC_PROT_ERR
                    : w.opcode == Opcode.REG_MR && qp.device.attributes().has(DeviceCapability.MEMORY_WINDOW)
                    ? WcStatus.MW_BIND_ERR : WcStatus.LOC_ACCESS_ERR;
            failLocal(w, status, w.opcode + " failed: " + LocalOps.describe(result));
            return;
        }
        w.done(WcStatus.SUCCESS, 0);
        sq.exec++;
        if (unackedSinceReadRequest > 0 && w.signaled()) {
            awaitedSinceReadRequest++;
        }
    }

    private void failLocal(SendWqe w, WcStatus status, String why) {
        int vendor = Terminate.vendorError(Terminate.LAYER_RDMAP, Terminate.RDMAP_LOCAL_CATASTROPHIC,
                Terminate.RDMAP_UNSPECIFIED, false);
        w.done(status, vendor);
        sq.exec++;
        qp.protocolError(Terminate.LAYER_RDMAP, Terminate.RDMAP_LOCAL_CATASTROPHIC, Terminate.RDMAP_UNSPECIFIED, 0,
                null, "work request " + w.wrId + ": " + why);
    }

    // ---------------------------------------------------------------- building segments

    private boolean startSegment() {
        int payload = kind == TERMINATE ? msgLength : Math.min(maxPayload, msgLength - msgDone);
        if (kind != TERMINATE && payload < msgLength - msgDone) {
            payload -= pieceCut(payload);
        }
        if (!gather.canStartFpdu(payload > 0 ? 1 : 0)) {
            return false;
        }
        boolean last = msgDone + payload == msgLength;
        ByteBuffer h = gather.nextHeader();
        int u = Fpdu.LENGTH_FIELD;
        int headerLength;
        switch (kind) {
            case SQ_SEND -> {
                int opcode = sendOpcode(wqe);
                Ddp.putUntagged(h, u, last, opcode, Rdmap.invalidates(opcode) ? wqe.invalidateStag : 0,
                        Ddp.QN_SEND, wqe.msn, msgDone);
                headerLength = Ddp.UNTAGGED_HEADER_LENGTH;
            }
            case SQ_WRITE -> {
                Ddp.putTagged(h, u, last, Rdmap.WRITE, wqe.rkey, wqe.remoteAddress + msgDone);
                headerLength = Ddp.TAGGED_HEADER_LENGTH;
            }
            case READ_REQUEST -> {
                boolean sink = wqe.numSge == 1;
                Ddp.putUntagged(h, u, true, Rdmap.READ_REQUEST, 0, Ddp.QN_READ_REQUEST, wqe.msn, 0);
                Rdmap.putReadRequestBody(h, u, sink ? wqe.lkey[0] : NULL_STAG, sink ? wqe.addr[0] : 0,
                        (int) wqe.length, wqe.rkey, wqe.remoteAddress);
                headerLength = Rdmap.READ_REQUEST_ULPDU_LENGTH;
            }
            case PROBE -> {
                Ddp.putUntagged(h, u, true, Rdmap.READ_REQUEST, 0, Ddp.QN_READ_REQUEST, ++readRequestMsn, 0);
                Rdmap.putReadRequestBody(h, u, NULL_STAG, 0, 0, NULL_STAG, 0);
                headerLength = Rdmap.READ_REQUEST_ULPDU_LENGTH;
            }
            case READ_RESPONSE -> {
                Ddp.putTagged(h, u, last, Rdmap.READ_RESPONSE, read.sinkStag, read.sinkTo + msgDone);
                headerLength = Ddp.TAGGED_HEADER_LENGTH;
            }
            case RTR -> {
                Ddp.putTagged(h, u, true, Rdmap.WRITE, NULL_STAG, 0);
                headerLength = Ddp.TAGGED_HEADER_LENGTH;
            }
            default -> {
                Ddp.putUntagged(h, u, true, Rdmap.TERMINATE, 0, Ddp.QN_TERMINATE, ++terminateMsn, 0);
                headerLength = Ddp.UNTAGGED_HEADER_LENGTH;
            }
        }
        int ulpduLength = headerLength + payload;
        h.putShort(0, (short) ulpduLength);
        if (crcOn) {
            crc.reset();
            Fpdu.update(crc, h, 0, u + headerLength);
        }
        gather.add(h, 0, u + headerLength);
        segOpen = true;
        segLast = last;
        segRemaining = payload;
        segPad = Fpdu.padLength(ulpduLength);
        segBytes = Fpdu.fpduLength(ulpduLength);
        return true;
    }

    /**
     * How much shorter to make a segment of {@code payload} bytes that is not its message's last, so that it ends
     * where a piece of its source ends (a page of a fast-registered region). Otherwise the next segment would start
     * in the same page buffer, which one gathering write cannot name twice, and every write would carry one segment:
     * on loopback a mebibyte Read Response from a client's FRWR pages then went out in 16 writes of one FPDU each,
     * each FPDU a few bytes longer than the MSS, so twice the TCP segments (half of them tiny) and their ACKs.
     * Only a cut that leaves the segment more than it takes away: where a page is about as large as a segment or
     * larger (64 KiB pages, a small {@code maxUlpdu}), every segment lies in one or two pages anyway and a cut would
     * only add small segments. Never back into an earlier SGE: a segment whose end falls in an SGE that starts in
     * it then ends where that SGE starts.
     */
    private int pieceCut(int payload) {
        int cut = 0;
        if (kind == READ_RESPONSE) {
            cut = source == null ? 0 : source.pieceCut(sourceOffset + msgDone + payload);
        } else if ((kind == SQ_SEND || kind == SQ_WRITE) && !wqe.inline) {
            int i = sgeIndex;
            long from = sgeOffset;
            long left = payload;
            while (left > wqe.len[i] - from) {
                left -= wqe.len[i] - from;
                i++;
                from = 0;
            }
            long end = from + left;
            if (end < wqe.len[i]) {
                cut = (int) Math.min(wqe.regions[i].pieceCut(wqe.offsets[i] + end), left);
            }
        }
        return cut < payload - cut ? cut : 0;
    }

    private static int sendOpcode(SendWqe w) {
        boolean solicited = (w.flags & SendWorkRequest.SOLICITED) != 0;
        if (w.opcode == Opcode.SEND_WITH_INV) {
            return solicited ? Rdmap.SEND_SE_INVALIDATE : Rdmap.SEND_INVALIDATE;
        }
        return solicited ? Rdmap.SEND_SE : Rdmap.SEND;
    }

    private boolean appendPayload() {
        while (segRemaining > 0) {
            if (!gather.hasRoomForPiece()) {
                return false;
            }
            ByteBuffer buffer;
            int index;
            int n;
            if (kind == TERMINATE) {
                buffer = terminateBody;
                index = msgDone;
                n = segRemaining;
            } else if (kind == READ_RESPONSE) {
                if (source.generation() != sourceGeneration) {
                    sourceRevoked = true;
                    return false;
                }
                long offset = sourceOffset + msgDone;
                buffer = source.piece(offset, engineId);
                index = source.pieceIndex(offset);
                n = Math.min(segRemaining, source.pieceRemaining(offset));
            } else if (wqe.inline) {
                buffer = wqe.inlineData;
                index = msgDone;
                n = segRemaining;
            } else {
                while (sgeOffset == wqe.len[sgeIndex]) {
                    sgeIndex++;
                    sgeOffset = 0;
                }
                SoftRegion region = wqe.regions[sgeIndex];
                long offset = wqe.offsets[sgeIndex] + sgeOffset;
                buffer = region.piece(offset, engineId);
                index = region.pieceIndex(offset);
                n = Math.min(Math.min(segRemaining, region.pieceRemaining(offset)), wqe.len[sgeIndex] - sgeOffset);
            }
            if (gather.contains(buffer)) {
                buffer = variantNotInGather();
                if (buffer == null) {
                    return false;
                }
            }
            if (kind == READ_RESPONSE) {
                gather.guard(source, sourceGeneration);
            }
            gather.add(buffer, index, index + n);
            if (crcOn) {
                Fpdu.update(crc, buffer, index, index + n);
            }
            msgDone += n;
            segRemaining -= n;
            sgeOffset += n;
        }
        return true;
    }

    /** Another buffer object over the same bytes that the gather list does not hold yet, or null. */
    private ByteBuffer variantNotInGather() {
        SoftRegion region;
        long offset;
        if (kind == READ_RESPONSE) {
            region = source;
            offset = sourceOffset + msgDone;
        } else if (wqe != null && !wqe.inline) {
            region = wqe.regions[sgeIndex];
            offset = wqe.offsets[sgeIndex] + sgeOffset;
        } else {
            return null;
        }
        for (int v = 1;; v++) {
            ByteBuffer candidate = region.pieceVariant(offset, engineId, v);
            if (candidate == null || !gather.contains(candidate)) {
                return candidate;
            }
        }
    }

    private boolean appendTrailer() {
        if (!gather.hasRoomForTrailer()) {
            return false;
        }
        ByteBuffer t = gather.nextTrailer();
        for (int i = 0; i < segPad; i++) {
            t.put(i, (byte) 0);
        }
        int value = 0;
        if (crcOn) {
            if (segPad > 0) {
                Fpdu.update(crc, t, 0, segPad);
            }
            value = (int) crc.getValue();
        }
        if (faultCorruptCrc) {
            faultCorruptCrc = false;
            value = crcOn ? ~value : 0x0BAD0C0D;
        }
        Fpdu.putCrc(t, segPad, value);
        gather.add(t, 0, segPad + Fpdu.CRC_LENGTH);
        gather.fpduEnd();
        segOpen = false;
        if (faultTruncate) {
            faultTruncate = false;
            gather.budget(gather.bytesToLastFpduEnd() - segBytes / 2);
        }
        if (segLast) {
            if (finishing == 0 || kind == TERMINATE) {
                onMessageBuilt();
            } else {
                kind = NONE;
                wqe = null;
            }
        }
        return true;
    }

    private void onMessageBuilt() {
        switch (kind) {
            case SQ_SEND, SQ_WRITE -> {
                wqe.state = SendWqe.AWAITING_ACK;
                sq.exec++;
                unackedSinceReadRequest++;
                if (wqe.signaled()) {
                    awaitedSinceReadRequest++;
                }
                unackedBytes += msgLength;
            }
            case READ_REQUEST -> {
                wqe.state = SendWqe.AWAITING_RESPONSE;
                ReadEntry e = qp.orq.push();
                e.kind = ReadEntry.USER_READ;
                e.wqeIndex = sq.exec;
                e.ackMark = sq.exec;
                e.msn = wqe.msn;
                e.size = (int) wqe.length;
                if (wqe.numSge == 1) {
                    e.sinkStag = wqe.lkey[0];
                    e.sinkTo = wqe.addr[0];
                    e.region = wqe.regions[0];
                    e.regionOffset = wqe.offsets[0];
                } else {
                    e.sinkStag = NULL_STAG;
                    e.sinkTo = 0;
                }
                sq.exec++;
                clearUnconfirmed();
                qp.userReadIssued();
            }
            case PROBE -> {
                ReadEntry e = qp.orq.push();
                e.kind = ReadEntry.PROBE;
                e.ackMark = sq.exec;
                e.msn = readRequestMsn;
                e.sinkStag = NULL_STAG;
                e.sinkTo = 0;
                e.size = 0;
                probeOutstanding = true;
                clearUnconfirmed();
            }
            case READ_RESPONSE -> {
                qp.irq.pop();
                read = null;
                source = null;
            }
            default -> {
            }
        }
        kind = NONE;
        wqe = null;
    }

    // ---------------------------------------------------------------- errors and teardown

    /** Prepares a Terminate, sent before the connection is shut down. */
    void stageTerminate(int layer, int etype, int code, int flags, SegmentHeader quotedHeader) {
        if (terminateStaged) {
            return;
        }
        terminateBody.clear();
        if (quotedHeader != null) {
            quoted.clear();
            quotedHeader.encode(quoted);
            Terminate.putBody(terminateBody, layer, etype, code, flags, quoted, quotedHeader.headerLength(),
                    quotedHeader.rdmapLength());
        } else {
            Terminate.putBody(terminateBody, layer, etype, code, 0, null, 0, 0);
        }
        terminateBody.flip();
        terminateStaged = true;
    }

    /**
     * Stops sending new messages: the FPDU being written is completed, later FPDUs are dropped, a staged Terminate
     * follows, then the engine is told that output is finished (to send FIN).
     */
    void finish(int mode) {
        if (finishing != 0 || channel == null) {
            return;
        }
        finishing = mode;
        if (gather.cutAfterCurrentFpdu(segOpen)) {
            segOpen = false;
            kind = NONE;
        }
        pump();
    }

    /** Whether output has ended: the teardown's last FPDU is written (our FIN may follow), or the socket is gone. */
    boolean outputFinished() {
        return finished;
    }

    /** Forgets the connection (socket closed). */
    void stop() {
        finished = true;
        channel = null;
        gather.reset();
        wqe = null;
        read = null;
        source = null;
        kind = NONE;
        segOpen = false;
        sourceRevoked = false;
    }

    // ---------------------------------------------------------------- faults

    void faultCorruptNextCrc() {
        faultCorruptCrc = true;
    }

    void faultTruncateNextFrame() {
        faultTruncate = true;
    }

    void faultDelay(long nanos) {
        delayedUntil = System.nanoTime() + nanos;
    }

    /** Whether a transmit delay ({@link #faultDelay}) is in effect. Engine or claim holder only. */
    boolean transmitDelayed() {
        return delayedUntil != 0;
    }
}
