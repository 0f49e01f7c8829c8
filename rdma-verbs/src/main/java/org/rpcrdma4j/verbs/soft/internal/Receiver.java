package org.rpcrdma4j.verbs.soft.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.zip.CRC32C;

import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.Stag;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.soft.wire.Ddp;
import org.rpcrdma4j.verbs.soft.wire.Fpdu;
import org.rpcrdma4j.verbs.soft.wire.Rdmap;
import org.rpcrdma4j.verbs.soft.wire.Terminate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receiving half of a connected queue pair: reads FPDUs, checks them as siw does and places their payload.
 * <p>
 * A segment's header is read into a small buffer of {@value #HEADER_BUFFER} bytes, as much of the stream as it holds
 * (a Read Request or Terminate is read whole; a header is decoded once its 16 or 20 bytes are in). Once the header
 * is checked, the payload is read with a scattering read straight into its destination — the registered memory of a
 * tagged message or the posted receive's SGEs of a Send — followed in the same read by the pad and CRC and the start
 * of what follows, into the header buffer: so a stream of large segments takes one read per segment, and many small FPDUs (Read Requests, probes and their responses, short
 * Sends) come in one read. Bytes the header buffer holds beyond a header are that segment's first payload bytes, then
 * its pad and CRC ({@link #carry}: copied, at most {@value #HEADER_BUFFER} bytes), then the next FPDU's start, which
 * is moved to the front of the buffer. Payload is otherwise read in place: there is no staging copy.
 * <p>
 * Checks: DDP and RDMAP versions; opcode against the T bit; queue number, MSN and MO of untagged segments; STag,
 * protection domain, access right and bounds of tagged segments (a Read Response must match the head of the ORQ);
 * exact continuity within a message (same STag and TO = previous TO + bytes; same MSN and MO = previous MO + bytes);
 * CRC when negotiated. A failure becomes a Terminate (see {@link SoftQp#protocolError}).
 * <p>
 * The memory a segment's payload lands in is checked when its header arrives, and before every later read into it
 * its region's {@linkplain SoftRegion#generation() generation} is compared with the one read before that check: a
 * region invalidated, mapped anew or deregistered meanwhile ends the connection as any access violation does, and
 * nothing more is placed in it.
 * <p>
 * Engine thread only.
 */
final class Receiver {
    private static final Logger LOG = LoggerFactory.getLogger(Receiver.class);
    private static final int HEADER = 0;
    private static final int PAYLOAD = 1;
    private static final int DISCARD = 2;
    private static final int STOPPED = 3;

    /** ULPDU_Length plus the shortest (tagged) header. */
    private static final int MIN_HEADER = Fpdu.LENGTH_FIELD + Ddp.TAGGED_HEADER_LENGTH;
    private static final int UNTAGGED_HEADER = Fpdu.LENGTH_FIELD + Ddp.UNTAGGED_HEADER_LENGTH;
    /** The header buffer: the longest FPDU read whole (Read Request, Terminate) and the read-ahead. */
    static final int HEADER_BUFFER = 512;
    /** Bytes read per readiness event before other queue pairs get their turn. */
    private static final long READ_BUDGET = 1 << 20;
    private static final int MAX_PIECES = 62;
    private static final String CHANGED = "its memory was invalidated, mapped anew or deregistered since its check";

    private final SoftQp qp;
    private final int engineId;
    private final ByteBuffer hdr = ByteBuffer.allocateDirect(HEADER_BUFFER);
    private final ByteBuffer trailer = ByteBuffer.allocateDirect(8);
    private final ByteBuffer sink = ByteBuffer.allocateDirect(16 * 1024);
    private final ByteBuffer[] scatter = new ByteBuffer[MAX_PIECES + 2];
    private final SegmentHeader seg = new SegmentHeader();
    private final CRC32C crc = new CRC32C();

    private SocketChannel channel;
    private boolean crcOn;
    private int state = STOPPED;
    private int need;
    private boolean headerSized;

    private SoftRegion destRegion;
    private long destOffset;
    /** {@link #destRegion}'s generation before its check. */
    private int destGeneration;
    private RecvWqe destRecv;
    /** The current segment's payload is read into {@link #junk} and dropped (a probe's over-long Read Response). */
    private boolean dropping;
    /**
     * Where dropped payload goes; allocated at the first drop (only peers with the siw defect ever need it), on the
     * heap: a direct buffer per queue pair could fail for want of direct memory in the middle of a read.
     */
    private ByteBuffer junk;
    private long probeBytesDropped;
    private int payloadLength;
    private int payloadDone;
    private int padLength;

    private ByteBuffer pieceBuffer;
    private int pieceIndex;
    private int pieceLength;

    private boolean taggedOpen;
    private int taggedStag;
    private long taggedNextTo;
    private int taggedOpcode;
    private final boolean[] untaggedOpen = new boolean[3];
    private final int[] expectedMsn = {1, 1, 1};
    private final int[] nextMo = new int[3];
    private RecvWqe currentRecv;
    private int sendOpcode;
    private int sendInvalidateStag;
    private boolean seenFirst;
    /** The FPDU being handled came right behind a whole small Send, with nothing sent since (see {@link ProbeHold}). */
    private boolean behindWholeSend;
    /**
     * The last read got less than it had room for: the socket was empty then, so the next read would most likely
     * find nothing (a wasted system call); what arrives later makes the socket readable again.
     */
    private boolean drained;

    Receiver(SoftQp qp, int engineId) {
        this.qp = qp;
        this.engineId = engineId;
    }

    void start(SocketChannel channel, boolean crcOn) {
        this.channel = channel;
        this.crcOn = crcOn;
        hdr.clear();
        need = MIN_HEADER;
        headerSized = false;
        state = HEADER;
    }

    /**
     * Reads and throws away everything until the peer closes: once the queue pair has left RTS nothing is placed
     * (the segment being read is dropped too), and a peer that goes on sending is read, not left readable.
     */
    void discard() {
        if (state != STOPPED || channel != null) {
            state = DISCARD;
        }
    }

    void stop() {
        state = STOPPED;
        channel = null;
        destRegion = null;
        destRecv = null;
        dropping = false;
        currentRecv = null;
        pieceBuffer = null;
        for (int i = 0; i < scatter.length; i++) {
            scatter[i] = null;
        }
    }

    void onReadable() throws IOException {
        long budget = READ_BUDGET;
        drained = false;
        while (channel != null && ((budget > 0 && !drained) || canAdvanceWithoutReading())) {
            switch (state) {
                case DISCARD -> {
                    Engine.notifyDeferred();
                    sink.clear();
                    int n = channel.read(sink);
                    if (n < 0) {
                        qp.onPeerClosed(true);
                        return;
                    }
                    if (n == 0) {
                        return;
                    }
                    budget -= n;
                }
                case HEADER -> {
                    if (hdr.position() < need) {
                        Engine.notifyDeferred(); // what was read so far is handled: its completions go out first
                        hdr.limit(hdr.capacity());
                        int room = hdr.remaining();
                        int n = channel.read(hdr);
                        if (n < 0) {
                            endOfStream();
                            return;
                        }
                        if (n == 0) {
                            return;
                        }
                        budget -= n;
                        drained = n < room;
                        if (hdr.position() < need) {
                            continue;
                        }
                    }
                    onHeaderBytes();
                }
                case PAYLOAD -> {
                    if (payloadDone == payloadLength && !trailer.hasRemaining()) {
                        segmentComplete(); // the header's look-ahead held the whole rest of the segment
                        continue;
                    }
                    long n = readPayload();
                    if (n <= 0) {
                        return;
                    }
                    budget -= n;
                }
                default -> {
                    return;
                }
            }
        }
    }

    /**
     * Whether the bytes already read are enough for the next step: the header buffer may hold whole FPDUs after the
     * socket has been drained, and no readiness event would come for them, so they are handled even once the read
     * budget is spent.
     */
    private boolean canAdvanceWithoutReading() {
        return state == HEADER ? hdr.position() >= need
                : state == PAYLOAD && payloadDone == payloadLength && !trailer.hasRemaining();
    }

    private void endOfStream() {
        boolean clean = state == HEADER && hdr.position() == 0;
        qp.onPeerClosed(clean);
    }

    // ---------------------------------------------------------------- headers

    private void onHeaderBytes() {
        if (!headerSized) {
            int ulpduLength = hdr.getShort(0) & 0xFFFF;
            int ddp = hdr.get(Fpdu.LENGTH_FIELD) & 0xFF;
            int rdmap = hdr.get(Fpdu.LENGTH_FIELD + 1) & 0xFF;
            boolean tagged = (ddp & Ddp.FLAG_TAGGED) != 0;
            if ((ddp & Ddp.VERSION_MASK) != Ddp.VERSION) {
                fail(Terminate.LAYER_DDP, tagged ? Terminate.DDP_TAGGED_BUFFER : Terminate.DDP_UNTAGGED_BUFFER,
                        tagged ? Terminate.DDP_TAGGED_INVALID_VERSION : Terminate.DDP_UNTAGGED_INVALID_VERSION,
                        "DDP version " + (ddp & Ddp.VERSION_MASK));
                return;
            }
            if ((rdmap & Rdmap.VERSION_MASK) != Rdmap.VERSION_BITS) {
                fail(Terminate.LAYER_RDMAP, Terminate.RDMAP_REMOTE_OPERATION, Terminate.RDMAP_INVALID_VERSION,
                        "RDMAP version " + ((rdmap & Rdmap.VERSION_MASK) >>> 6));
                return;
            }
            int total;
            int opcode = rdmap & Rdmap.OPCODE_MASK;
            if (tagged) {
                total = MIN_HEADER;
            } else if (ulpduLength < Ddp.UNTAGGED_HEADER_LENGTH) {
                failLength("untagged ULPDU of " + ulpduLength + " bytes");
                return;
            } else if (opcode == Rdmap.READ_REQUEST) {
                if (ulpduLength != Rdmap.READ_REQUEST_ULPDU_LENGTH) {
                    fail(Terminate.LAYER_DDP, Terminate.DDP_UNTAGGED_BUFFER, Terminate.DDP_UNTAGGED_TOO_LONG,
                            "Read Request ULPDU of " + ulpduLength + " bytes");
                    return;
                }
                total = Fpdu.fpduLength(ulpduLength);
            } else if (opcode == Rdmap.TERMINATE) {
                if (ulpduLength < Terminate.OFFSET_SEGMENT_LENGTH || Fpdu.fpduLength(ulpduLength) > hdr.capacity()) {
                    failLength("Terminate ULPDU of " + ulpduLength + " bytes");
                    return;
                }
                total = Fpdu.fpduLength(ulpduLength);
            } else {
                total = UNTAGGED_HEADER;
            }
            if (ulpduLength < total - Fpdu.LENGTH_FIELD && total <= UNTAGGED_HEADER) {
                failLength("ULPDU of " + ulpduLength + " bytes is shorter than its header");
                return;
            }
            headerSized = true;
            if (total > need) {
                need = total;
                return;
            }
        }
        seg.decode(hdr);
        boolean readResponse = seg.tagged && seg.opcode == Rdmap.READ_RESPONSE;
        behindWholeSend = qp.hold.onPeerFpdu(readResponse);
        if (!readResponse) {
            qp.peerMessageArrived();
        }
        if (!seenFirst) {
            seenFirst = true;
            qp.onFirstFpdu();
        }
        if (seg.tagged) {
            taggedHeader();
        } else {
            untaggedHeader();
        }
    }

    /** @return payload bytes of Read Responses to placement probes that were dropped (see dropProbePayload) */
    long probeBytesDropped() {
        return probeBytesDropped;
    }

    /** @return whether any FPDU arrived from the peer on this connection */
    boolean seenFirstFpdu() {
        return seenFirst;
    }

    private void taggedHeader() {
        int op = seg.opcode;
        if (op != Rdmap.WRITE && op != Rdmap.READ_RESPONSE) {
            failQuoting(Terminate.LAYER_RDMAP, Terminate.RDMAP_REMOTE_OPERATION, Terminate.RDMAP_UNEXPECTED_OPCODE,
                    "tagged segment with " + Rdmap.name(op));
            return;
        }
        payloadLength = seg.ulpduLength - Ddp.TAGGED_HEADER_LENGTH;
        if (taggedOpen) {
            if (op != taggedOpcode || seg.stag != taggedStag) {
                failQuoting(Terminate.LAYER_DDP, Terminate.DDP_TAGGED_BUFFER, Terminate.DDP_TAGGED_INVALID_STAG,
                        "tagged segment interleaved into another tagged message");
                return;
            }
            if (seg.taggedOffset != taggedNextTo) {
                failQuoting(Terminate.LAYER_DDP, Terminate.DDP_TAGGED_BUFFER, Terminate.DDP_TAGGED_BASE_BOUNDS,
                        "tagged offset " + Long.toHexString(seg.taggedOffset) + " does not continue at "
                                + Long.toHexString(taggedNextTo));
                return;
            }
        } else {
            taggedOpcode = op;
            taggedStag = seg.stag;
            taggedNextTo = seg.taggedOffset;
        }
        destRegion = null;
        destRecv = null;
        if (op == Rdmap.WRITE) {
            if (payloadLength > 0 && !placeTagged(seg.stag, seg.taggedOffset, false)) {
                return;
            }
        } else {
            ReadEntry e = qp.orq.head();
            if (e == null) {
                failQuoting(Terminate.LAYER_RDMAP, Terminate.RDMAP_REMOTE_OPERATION,
                        Terminate.RDMAP_UNEXPECTED_OPCODE, "Read Response without an outstanding Read Request");
                return;
            }
            if (!taggedOpen && seg.stag != e.sinkStag) {
                failQuoting(Terminate.LAYER_DDP, Terminate.DDP_TAGGED_BUFFER, Terminate.DDP_TAGGED_INVALID_STAG,
                        "Read Response to " + Stag.toString(seg.stag) + ", expected " + Stag.toString(e.sinkStag));
                return;
            }
            boolean probe = e.kind == ReadEntry.PROBE;
            if ((!taggedOpen && seg.taggedOffset != e.sinkTo)
                    || (!probe && (long) e.progress + payloadLength > (e.size & 0xFFFF_FFFFL))) {
                failQuoting(Terminate.LAYER_DDP, Terminate.DDP_TAGGED_BUFFER, Terminate.DDP_TAGGED_BASE_BOUNDS,
                        "Read Response outside its Read Request");
                return;
            }
            if (probe && payloadLength > 0) {
                dropProbePayload();
            } else if (payloadLength > 0 && !placeTagged(seg.stag, seg.taggedOffset, true)) {
                return;
            }
        }
        taggedOpen = !seg.last;
        startPayload(Ddp.TAGGED_HEADER_LENGTH);
    }

    /**
     * Linux siw (seen in 6.1) sometimes answers our zero-length placement probe with a Read Response that carries
     * bytes, apparently left over from an earlier message of its own. The probe asked for nothing and has no sink, so
     * those bytes are read and dropped; the response still confirms placement. Refusing it (a DDP base-and-bounds
     * Terminate) tore down every such connection.
     */
    private void dropProbePayload() {
        if (junk == null) {
            junk = ByteBuffer.allocate(1 << 16); // a segment's whole ULPDU fits; kept for the CRC check
        }
        dropping = true;
        probeBytesDropped += payloadLength;
        LOG.debug("queue pair {}: dropped {} bytes of a Read Response to a zero-length probe ({} in all)",
                qp.qpNum(), payloadLength, probeBytesDropped);
    }

    /** Checks a tagged destination (REMOTE_WRITE, for Write and Read Response sinks alike) and aims the payload at it. */
    private boolean placeTagged(int stag, long to, boolean readResponse) {
        SoftRegion region = qp.device.stags.byStag(stag);
        int generation = region == null ? 0 : region.generation();
        long offset = region == null ? SoftRegion.INVALID_STAG
                : region.check(stag, qp.pd, Access.REMOTE_WRITE, to, payloadLength);
        if (offset < 0) {
            int code = offset == SoftRegion.BOUNDS_VIOLATION ? Terminate.DDP_TAGGED_BASE_BOUNDS
                    : offset == SoftRegion.PD_MISMATCH ? Terminate.DDP_TAGGED_STAG_NOT_ASSOCIATED
                    : offset == SoftRegion.TO_WRAP ? Terminate.DDP_TAGGED_TO_WRAP
                    : Terminate.DDP_TAGGED_INVALID_STAG;
            failTagged(code, (readResponse ? "Read Response" : "RDMA Write") + " to " + Stag.toString(stag)
                    + " refused: " + LocalOps.describe(offset));
            return false;
        }
        destRegion = region;
        destOffset = offset;
        destGeneration = generation;
        return true;
    }

    /** Fails the tagged segment being handled (and, for a Read Response, the Read it answers) with a DDP error. */
    private void failTagged(int code, String why) {
        if (seg.opcode == Rdmap.READ_RESPONSE) {
            qp.failOutstandingRead(WcStatus.LOC_PROT_ERR,
                    Terminate.vendorError(Terminate.LAYER_DDP, Terminate.DDP_TAGGED_BUFFER, code, false));
        }
        failQuoting(Terminate.LAYER_DDP, Terminate.DDP_TAGGED_BUFFER, code, why);
    }

    private void untaggedHeader() {
        int op = seg.opcode;
        int qn = Rdmap.queueNumber(op);
        if (qn < 0) {
            failQuoting(Terminate.LAYER_RDMAP, Terminate.RDMAP_REMOTE_OPERATION, Terminate.RDMAP_UNEXPECTED_OPCODE,
                    "untagged segment with " + Rdmap.name(op));
            return;
        }
        if (seg.queueNumber != qn) {
            failQuoting(Terminate.LAYER_DDP, Terminate.DDP_UNTAGGED_BUFFER, Terminate.DDP_UNTAGGED_INVALID_QN,
                    Rdmap.name(op) + " on queue " + seg.queueNumber);
            return;
        }
        if (seg.msn != expectedMsn[qn]) {
            failQuoting(Terminate.LAYER_DDP, Terminate.DDP_UNTAGGED_BUFFER,
                    Terminate.DDP_UNTAGGED_INVALID_MSN_RANGE, "MSN " + seg.msn + " on queue " + qn + ", expected "
                            + expectedMsn[qn]);
            return;
        }
        if (seg.mo != (untaggedOpen[qn] ? nextMo[qn] : 0)) {
            failQuoting(Terminate.LAYER_DDP, Terminate.DDP_UNTAGGED_BUFFER, Terminate.DDP_UNTAGGED_INVALID_MO,
                    "MO " + seg.mo + " on queue " + qn);
            return;
        }
        if (qn == Ddp.QN_READ_REQUEST) {
            readRequest();
        } else if (qn == Ddp.QN_TERMINATE) {
            if (frameCrcOk()) {
                state = DISCARD;
                qp.onTerminateReceived(hdr, seg.ulpduLength);
            }
        } else {
            sendSegment(op);
        }
    }

    private void readRequest() {
        if (!frameCrcOk()) {
            return;
        }
        if (!seg.last) {
            failQuoting(Terminate.LAYER_DDP, Terminate.DDP_UNTAGGED_BUFFER, Terminate.DDP_UNTAGGED_INVALID_MO,
                    "Read Request without the L bit");
            return;
        }
        seg.decodeReadRequest(hdr);
        if (qp.irq.isFull()) {
            failQuoting(Terminate.LAYER_RDMAP, Terminate.RDMAP_REMOTE_OPERATION, Terminate.RDMAP_CATASTROPHIC_STREAM,
                    "Read Request beyond the IRD of " + qp.irq.limit());
            return;
        }
        boolean alone = qp.irq.isEmpty();
        ReadEntry e = qp.irq.push();
        e.msn = seg.msn;
        e.sinkStag = seg.sinkStag;
        e.sinkTo = seg.sinkTo;
        e.size = seg.readSize;
        e.sourceStag = seg.sourceStag;
        e.sourceTo = seg.sourceTo;
        expectedMsn[Ddp.QN_READ_REQUEST]++;
        resetHeader(Fpdu.fpduLength(seg.ulpduLength));
        boolean probe = e.size == 0 && e.sinkStag == Transmitter.NULL_STAG && e.sourceStag == Transmitter.NULL_STAG;
        if (!(probe && alone && qp.hold.offer(behindWholeSend))) {
            qp.readRequestQueued();
        }
    }

    private void sendSegment(int op) {
        payloadLength = seg.ulpduLength - Ddp.UNTAGGED_HEADER_LENGTH;
        if (Rdmap.invalidates(op) && !qp.acceptsRemoteInvalidate()) {
            failQuoting(Terminate.LAYER_RDMAP, Terminate.RDMAP_REMOTE_OPERATION, Terminate.RDMAP_UNEXPECTED_OPCODE,
                    "Send with Invalidate, but remote invalidation is not enabled on this device");
            return;
        }
        if (!untaggedOpen[Ddp.QN_SEND]) {
            RecvWqe recv = qp.headReceive();
            if (recv == null) {
                failQuoting(Terminate.LAYER_DDP, Terminate.DDP_UNTAGGED_BUFFER, Terminate.DDP_UNTAGGED_NO_BUFFER,
                        "Send " + seg.msn + " but no receive is posted");
                return;
            }
            if (!checkReceive(recv)) {
                return;
            }
            currentRecv = recv;
            sendOpcode = op;
            sendInvalidateStag = seg.rsvdUlp;
        } else if (op != sendOpcode) {
            failQuoting(Terminate.LAYER_RDMAP, Terminate.RDMAP_REMOTE_OPERATION, Terminate.RDMAP_UNEXPECTED_OPCODE,
                    Rdmap.name(op) + " continuing a " + Rdmap.name(sendOpcode));
            return;
        }
        if ((long) seg.mo + payloadLength > currentRecv.capacity) {
            long capacity = currentRecv.capacity;
            int vendor = Terminate.vendorError(Terminate.LAYER_DDP, Terminate.DDP_UNTAGGED_BUFFER,
                    Terminate.DDP_UNTAGGED_NO_BUFFER, false);
            qp.failHeadReceive(WcStatus.LOC_LEN_ERR, vendor);
            currentRecv = null;
            failQuoting(Terminate.LAYER_DDP, Terminate.DDP_UNTAGGED_BUFFER, Terminate.DDP_UNTAGGED_NO_BUFFER,
                    "Send of at least " + ((long) seg.mo + payloadLength) + " bytes into a receive of "
                            + capacity);
            return;
        }
        destRegion = null;
        destRecv = currentRecv;
        untaggedOpen[Ddp.QN_SEND] = !seg.last;
        startPayload(Ddp.UNTAGGED_HEADER_LENGTH);
    }

    /** Checks the SGEs of the receive a new Send lands in (valid lkey, same PD, LOCAL_WRITE, bounds). */
    private boolean checkReceive(RecvWqe recv) {
        long capacity = 0;
        for (int i = 0; i < recv.numSge; i++) {
            recv.regions[i] = null;
            if (recv.len[i] == 0) {
                continue;
            }
            SoftRegion region = qp.device.stags.byStag(recv.lkey[i]);
            int generation = region == null ? 0 : region.generation();
            long offset = region == null ? SoftRegion.INVALID_STAG
                    : region.check(recv.lkey[i], qp.pd, Access.LOCAL_WRITE, recv.addr[i], recv.len[i]);
            if (offset < 0) {
                failReceive(i, "failed the protection check: " + LocalOps.describe(offset));
                return false;
            }
            recv.regions[i] = region;
            recv.offsets[i] = offset;
            recv.generations[i] = generation;
            capacity += recv.len[i];
        }
        recv.capacity = capacity;
        return true;
    }

    /** Fails the receive a Send lands in, for its SGE {@code i}, and the connection (a local catastrophic error). */
    private void failReceive(int i, String why) {
        RecvWqe recv = qp.headReceive();
        int lkey = recv.lkey[i];
        int vendor = Terminate.vendorError(Terminate.LAYER_RDMAP, Terminate.RDMAP_LOCAL_CATASTROPHIC,
                Terminate.RDMAP_UNSPECIFIED, false);
        qp.failHeadReceive(WcStatus.LOC_PROT_ERR, vendor);
        currentRecv = null;
        destRecv = null;
        fail(Terminate.LAYER_RDMAP, Terminate.RDMAP_LOCAL_CATASTROPHIC, Terminate.RDMAP_UNSPECIFIED,
                "receive SGE " + i + " (lkey " + Stag.toString(lkey) + ") " + why);
    }

    // ---------------------------------------------------------------- payload

    private void startPayload(int headerLength) {
        padLength = Fpdu.padLength(seg.ulpduLength);
        payloadDone = 0;
        trailer.clear();
        trailer.limit(padLength + Fpdu.CRC_LENGTH);
        int headerEnd = Fpdu.LENGTH_FIELD + headerLength;
        if (crcOn) {
            crc.reset();
            Fpdu.update(crc, hdr, 0, headerEnd);
        }
        int consumed = carry(headerEnd, hdr.position());
        if (consumed < 0) {
            return;
        }
        resetHeader(consumed);
        state = PAYLOAD;
    }

    /**
     * Places bytes {@code from..to} of the header buffer, read beyond this segment's header, as the segment's first
     * payload bytes, then its pad and CRC.
     *
     * @return where the bytes of the next FPDU begin in the header buffer ({@code to} if none came), or -1 when the
     *         destination's region changed since its check (the connection failed)
     */
    private int carry(int from, int to) {
        int i = from;
        while (i < to && payloadDone < payloadLength) {
            if (!locate(payloadDone, Math.min(to - i, payloadLength - payloadDone))) {
                return -1;
            }
            aim(pieceBuffer, pieceIndex, pieceIndex + pieceLength); // absolute bulk puts are checked against the limit
            pieceBuffer.put(pieceIndex, hdr, i, pieceLength);
            payloadDone += pieceLength;
            i += pieceLength;
        }
        int t = Math.min(to - i, trailer.remaining());
        if (t > 0) {
            trailer.put(trailer.position(), hdr, i, t);
            trailer.position(trailer.position() + t);
            i += t;
        }
        return i;
    }

    /** Starts the next header with the bytes of the header buffer from {@code consumed} on (moved to its front). */
    private void resetHeader(int consumed) {
        int left = hdr.position() - consumed;
        for (int i = 0; i < left; i++) {
            hdr.put(i, hdr.get(consumed + i));
        }
        hdr.limit(hdr.capacity());
        hdr.position(Math.max(0, left));
        need = MIN_HEADER;
        headerSized = false;
    }

    /** Reads payload, trailer and the next header's start; returns bytes read, 0 if none, -1 at end. */
    private long readPayload() throws IOException {
        // before the buffers are aimed: a listener's posts may aim the same region buffers for the transmitter
        Engine.notifyDeferred();
        int count = 0;
        boolean complete = true;
        long offset = payloadDone;
        int remaining = payloadLength - payloadDone;
        while (remaining > 0) {
            if (count == MAX_PIECES) {
                complete = false;
                break;
            }
            if (!locate(offset, remaining)) {
                return -1;
            }
            ByteBuffer b = pieceBuffer;
            boolean duplicate = false;
            for (int i = 0; i < count; i++) {
                if (scatter[i] == b) {
                    duplicate = true;
                    break;
                }
            }
            if (duplicate) {
                complete = false;
                break;
            }
            aim(b, pieceIndex, pieceIndex + pieceLength);
            scatter[count++] = b;
            offset += pieceLength;
            remaining -= pieceLength;
        }
        if (complete) {
            scatter[count++] = trailer;
            hdr.limit(hdr.capacity()); // empty here: bytes beyond a segment's header are carried only when they end it
            scatter[count++] = hdr;
        }
        long room = 0;
        for (int i = 0; i < count; i++) {
            room += scatter[i].remaining();
        }
        long n = channel.read(scatter, 0, count);
        drained = n < room;
        if (n < 0) {
            qp.onPeerClosed(false);
            return -1;
        }
        payloadDone += (int) Math.min(n, payloadLength - payloadDone);
        if (payloadDone == payloadLength && !trailer.hasRemaining()) {
            segmentComplete();
        }
        return n;
    }

    private static void aim(ByteBuffer b, int position, int limit) {
        if (b.position() > limit) {
            b.position(position);
            b.limit(limit);
        } else {
            b.limit(limit);
            b.position(position);
        }
    }

    /**
     * Sets the piece fields to the destination bytes at payload offset {@code offset}, at most {@code max}; false
     * (the connection failed) when the destination's region changed since its check.
     */
    private boolean locate(long offset, int max) {
        if (dropping) {
            pieceBuffer = junk;
            pieceIndex = (int) offset;
            pieceLength = max;
            return true;
        }
        if (destRecv == null) {
            SoftRegion region = destRegion;
            if (region.generation() != destGeneration) {
                failTagged(Terminate.DDP_TAGGED_INVALID_STAG, Rdmap.name(seg.opcode) + " to "
                        + Stag.toString(seg.stag) + " stopped: " + CHANGED);
                return false;
            }
            long o = destOffset + offset;
            pieceBuffer = region.piece(o, engineId);
            pieceIndex = region.pieceIndex(o);
            pieceLength = Math.min(max, region.pieceRemaining(o));
            return true;
        }
        long m = seg.mo + offset;
        RecvWqe r = destRecv;
        for (int i = 0; i < r.numSge; i++) {
            if (m < r.len[i]) {
                SoftRegion region = r.regions[i];
                if (region.generation() != r.generations[i]) {
                    failReceive(i, CHANGED);
                    return false;
                }
                long o = r.offsets[i] + m;
                pieceBuffer = region.piece(o, engineId);
                pieceIndex = region.pieceIndex(o);
                pieceLength = (int) Math.min(Math.min(max, region.pieceRemaining(o)), r.len[i] - m);
                return true;
            }
            m -= r.len[i];
        }
        throw new IllegalStateException("receive offset beyond the checked capacity");
    }

    private void segmentComplete() {
        if (crcOn && !payloadCrcOk()) {
            return;
        }
        state = HEADER;
        if (seg.tagged) {
            taggedNextTo += payloadLength;
            if (seg.opcode == Rdmap.READ_RESPONSE) {
                ReadEntry e = qp.orq.head();
                e.progress += dropping ? 0 : payloadLength;
                dropping = false;
                if (seg.last) {
                    if (e.progress != e.size) {
                        failQuoting(Terminate.LAYER_DDP, Terminate.DDP_TAGGED_BUFFER,
                                Terminate.DDP_TAGGED_BASE_BOUNDS, "Read Response of " + e.progress
                                        + " bytes for a Read Request of " + e.size);
                        return;
                    }
                    qp.readResponseComplete(e);
                }
            }
        } else {
            nextMo[Ddp.QN_SEND] = seg.mo + payloadLength;
            if (seg.last) {
                expectedMsn[Ddp.QN_SEND]++;
                nextMo[Ddp.QN_SEND] = 0;
                RecvWqe recv = currentRecv;
                currentRecv = null;
                qp.sendReceived(recv, seg.mo + payloadLength, sendOpcode, sendInvalidateStag, seg);
                if (seg.mo == 0 && payloadLength <= ProbeHold.MAX_SEND_BYTES) {
                    qp.hold.onWholeSend();
                }
            }
        }
        destRegion = null;
        destRecv = null;
    }

    private boolean payloadCrcOk() {
        long offset = 0;
        int remaining = payloadLength;
        while (remaining > 0) {
            if (!locate(offset, remaining)) {
                return false;
            }
            Fpdu.update(crc, pieceBuffer, pieceIndex, pieceIndex + pieceLength);
            offset += pieceLength;
            remaining -= pieceLength;
        }
        if (padLength > 0) {
            Fpdu.update(crc, trailer, 0, padLength);
        }
        int expected = (int) crc.getValue();
        int actual = Fpdu.getCrc(trailer, padLength);
        if (expected != actual) {
            fail(Terminate.LAYER_LLP, 0, Terminate.LLP_CRC_ERROR, String.format(
                    "CRC mismatch in %s segment: carried %08x, computed %08x", Rdmap.name(seg.opcode), actual,
                    expected));
            return false;
        }
        return true;
    }

    /** CRC of a frame read whole into the header buffer (Read Request, Terminate). */
    private boolean frameCrcOk() {
        if (!crcOn) {
            return true;
        }
        int covered = Fpdu.LENGTH_FIELD + seg.ulpduLength + Fpdu.padLength(seg.ulpduLength);
        crc.reset();
        Fpdu.update(crc, hdr, 0, covered);
        int expected = (int) crc.getValue();
        int actual = Fpdu.getCrc(hdr, covered);
        if (expected != actual) {
            fail(Terminate.LAYER_LLP, 0, Terminate.LLP_CRC_ERROR, String.format(
                    "CRC mismatch in %s: carried %08x, computed %08x", Rdmap.name(seg.opcode), actual, expected));
            return false;
        }
        return true;
    }

    // ---------------------------------------------------------------- errors

    private void failLength(String why) {
        fail(Terminate.LAYER_LLP, 0, Terminate.LLP_LENGTH_MISMATCH, why);
    }

    /** Fails the connection; whatever follows is read and dropped (see {@link #discard}). */
    private void fail(int layer, int etype, int code, String why) {
        state = DISCARD;
        qp.protocolError(layer, etype, code, 0, null, why);
    }

    /** Fails quoting the offending segment's header, with the M/D(/R) flags siw uses for the error class. */
    private void failQuoting(int layer, int etype, int code, String why) {
        state = DISCARD;
        int flags = Terminate.FLAG_M | Terminate.FLAG_D;
        if (layer == Terminate.LAYER_RDMAP && etype == Terminate.RDMAP_REMOTE_PROTECTION) {
            flags |= Terminate.FLAG_R;
        }
        qp.protocolError(layer, etype, code, flags, seg, why);
    }
}
