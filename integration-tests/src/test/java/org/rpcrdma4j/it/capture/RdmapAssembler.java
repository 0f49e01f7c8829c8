package org.rpcrdma4j.it.capture;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reassembles the DDP segments one side sent into RDMAP messages (RFC 5040, RFC 5041 section 5):
 * <ul>
 *   <li>untagged segments on queue 0 (the Send opcodes) by MSN, each placed at its MO; a message is complete when its
 *       last segment (L) has arrived and every byte below it is there. Messages must complete in MSN order, one
 *       after the other (the MSN counts per queue);</li>
 *   <li>queue 1 carries RDMA Read Requests (one 28-byte segment each), queue 2 Terminate messages;</li>
 *   <li>tagged segments (RDMA Write, Read Response) continue the tagged message in progress: same opcode and STag,
 *       and a TO that follows on exactly (a tagged message's segments never interleave with another tagged
 *       message's, though they may with untagged ones).</li>
 * </ul>
 * Anything else (an unknown queue, a Send on the wrong queue, a gap, a segment past the end, a Read Request of the
 * wrong size) raises {@link CaptureFormatException}.
 */
public final class RdmapAssembler {

    private final String who;
    private final List<RdmapMessage> messages = new ArrayList<>();
    private final TreeMap<Long, Untagged> pendingSends = new TreeMap<>();
    private long nextSendMsn = -1;
    private long nextReadRequestMsn = -1;
    private DdpSegment taggedStart;
    private long taggedNextOffset;
    private int taggedSegments;
    private final ByteArrayOutputStream taggedData = new ByteArrayOutputStream();

    private static final class Untagged {
        final int opcode;
        final int rsvdUlp;
        final TreeMap<Long, byte[]> pieces = new TreeMap<>();
        long total = -1;
        int frame;

        Untagged(int opcode, int rsvdUlp) {
            this.opcode = opcode;
            this.rsvdUlp = rsvdUlp;
        }
    }

    private RdmapAssembler(String who) {
        this.who = who;
    }

    /**
     * @param who      names the sender in error messages
     * @param segments the sender's DDP segments, in stream order
     * @return its RDMAP messages in the order they completed
     */
    public static List<RdmapMessage> assemble(String who, List<DdpSegment> segments) throws CaptureFormatException {
        RdmapAssembler a = new RdmapAssembler(who);
        for (DdpSegment s : segments) {
            if (s.tagged()) {
                a.tagged(s);
            } else {
                a.untagged(s);
            }
        }
        if (a.taggedStart != null) {
            throw a.error(a.taggedStart, "tagged message never finished");
        }
        if (!a.pendingSends.isEmpty()) {
            throw new CaptureFormatException(who + ": Send messages never finished, MSNs " + a.pendingSends.keySet());
        }
        return a.messages;
    }

    private CaptureFormatException error(DdpSegment s, String what) {
        return new CaptureFormatException(who + ", FPDU at stream offset " + s.streamOffset() + " (frame " + s.frame()
                + "): " + what);
    }

    private void tagged(DdpSegment s) throws CaptureFormatException {
        if (s.opcode() != RdmapMessage.WRITE && s.opcode() != RdmapMessage.READ_RESPONSE) {
            throw error(s, "tagged segment with opcode " + RdmapMessage.opcodeName(s.opcode()));
        }
        if (taggedStart == null) {
            taggedStart = s;
            taggedNextOffset = s.taggedOffset();
            taggedSegments = 0;
            taggedData.reset();
        } else if (s.opcode() != taggedStart.opcode() || s.stag() != taggedStart.stag()
                || s.taggedOffset() != taggedNextOffset) {
            throw error(s, String.format("tagged segment (%s STag %08x TO %x) does not continue the message in "
                            + "progress (%s STag %08x next TO %x)", RdmapMessage.opcodeName(s.opcode()), s.stag(),
                    s.taggedOffset(), RdmapMessage.opcodeName(taggedStart.opcode()), taggedStart.stag(),
                    taggedNextOffset));
        }
        taggedData.writeBytes(s.payload());
        taggedNextOffset += s.payload().length;
        taggedSegments++;
        if (s.last()) {
            messages.add(new RdmapMessage.Tagged(s.frame(), messages.size(), taggedStart.opcode(), taggedStart.stag(),
                    taggedStart.taggedOffset(), taggedData.toByteArray(), taggedSegments));
            taggedStart = null;
        }
    }

    private void untagged(DdpSegment s) throws CaptureFormatException {
        switch (s.queueNumber()) {
            case RdmapMessage.QN_SEND -> send(s);
            case RdmapMessage.QN_READ_REQUEST -> readRequest(s);
            case RdmapMessage.QN_TERMINATE -> {
                if (s.opcode() != RdmapMessage.TERMINATE) {
                    throw error(s, "queue 2 carries " + RdmapMessage.opcodeName(s.opcode()));
                }
                messages.add(new RdmapMessage.Terminate(s.frame(), messages.size(), s.payload()));
            }
            default -> throw error(s, "untagged segment for queue " + Integer.toUnsignedString(s.queueNumber()));
        }
    }

    private void send(DdpSegment s) throws CaptureFormatException {
        if (s.opcode() < RdmapMessage.SEND || s.opcode() > RdmapMessage.SEND_SOLICITED_INVALIDATE) {
            throw error(s, "queue 0 carries " + RdmapMessage.opcodeName(s.opcode()));
        }
        if (nextSendMsn >= 0 && s.msn() < nextSendMsn) {
            throw error(s, "Send segment for MSN " + s.msn() + ", already complete");
        }
        Untagged u = pendingSends.get(s.msn());
        if (u == null) {
            if (pendingSends.size() >= 1024) {
                throw error(s, "more than 1024 Send messages in progress");
            }
            u = new Untagged(s.opcode(), s.stag());
            pendingSends.put(s.msn(), u);
        } else if (u.opcode != s.opcode() || u.rsvdUlp != s.stag()) {
            throw error(s, "segment of MSN " + s.msn() + " changes opcode or RsvdULP");
        }
        if (u.pieces.put(s.messageOffset(), s.payload()) != null) {
            throw error(s, "two segments of MSN " + s.msn() + " at MO " + s.messageOffset());
        }
        if (s.last()) {
            if (u.total >= 0) {
                throw error(s, "two last segments for MSN " + s.msn());
            }
            u.total = s.messageOffset() + s.payload().length;
        }
        u.frame = Math.max(u.frame, s.frame());
        // deliver every message that is now complete, in MSN order
        while (!pendingSends.isEmpty()) {
            Map.Entry<Long, Untagged> first = pendingSends.firstEntry();
            byte[] whole = complete(s, first.getKey(), first.getValue());
            if (whole == null) {
                return;
            }
            if (nextSendMsn >= 0 && first.getKey() != nextSendMsn) {
                throw error(s, "Send MSN " + first.getKey() + " completes, MSN " + nextSendMsn + " expected");
            }
            nextSendMsn = first.getKey() + 1;
            pendingSends.remove(first.getKey());
            Untagged m = first.getValue();
            messages.add(new RdmapMessage.Send(m.frame, messages.size(), m.opcode, m.rsvdUlp, first.getKey(), whole,
                    m.pieces.size()));
        }
    }

    /** @return the message's bytes when every byte up to its last segment is there, else null */
    private byte[] complete(DdpSegment s, long msn, Untagged u) throws CaptureFormatException {
        if (u.total < 0) {
            return null;
        }
        long at = 0;
        for (Map.Entry<Long, byte[]> e : u.pieces.entrySet()) {
            if (e.getKey() != at) {
                if (e.getKey() > at) {
                    return null; // a hole, not yet filled
                }
                throw error(s, "segments of MSN " + msn + " overlap at MO " + e.getKey());
            }
            at += e.getValue().length;
        }
        if (at != u.total) {
            throw error(s, "MSN " + msn + " has bytes past its last segment");
        }
        if (at > Integer.MAX_VALUE) {
            throw error(s, "MSN " + msn + " exceeds 2 GiB");
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream((int) at);
        u.pieces.values().forEach(out::writeBytes);
        return out.toByteArray();
    }

    private void readRequest(DdpSegment s) throws CaptureFormatException {
        if (s.opcode() != RdmapMessage.READ_REQUEST) {
            throw error(s, "queue 1 carries " + RdmapMessage.opcodeName(s.opcode()));
        }
        if (!s.last() || s.messageOffset() != 0 || s.payload().length != RdmapMessage.ReadRequest.LENGTH) {
            throw error(s, "RDMA Read Request must be one " + RdmapMessage.ReadRequest.LENGTH
                    + "-byte segment at MO 0, got " + s.payload().length + " bytes at MO " + s.messageOffset());
        }
        if (nextReadRequestMsn >= 0 && s.msn() != nextReadRequestMsn) {
            throw error(s, "Read Request MSN " + s.msn() + ", " + nextReadRequestMsn + " expected");
        }
        nextReadRequestMsn = s.msn() + 1;
        ByteBuffer b = ByteBuffer.wrap(s.payload());
        messages.add(new RdmapMessage.ReadRequest(s.frame(), messages.size(), s.msn(), b.getInt(0), b.getLong(4),
                Integer.toUnsignedLong(b.getInt(12)), b.getInt(16), b.getLong(20)));
    }
}
