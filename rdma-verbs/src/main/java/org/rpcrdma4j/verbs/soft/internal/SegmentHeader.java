package org.rpcrdma4j.verbs.soft.internal;

import java.nio.ByteBuffer;

import org.rpcrdma4j.verbs.soft.wire.Ddp;
import org.rpcrdma4j.verbs.soft.wire.Fpdu;
import org.rpcrdma4j.verbs.soft.wire.Rdmap;

/**
 * The decoded header of one DDP segment (and, for a Read Request, its body). Reused for every segment; can write
 * itself back to wire form for a Terminate that quotes it.
 */
final class SegmentHeader {
    int ulpduLength;
    int ddpControl;
    int rdmapControl;
    int opcode;
    boolean tagged;
    boolean last;
    int stag;
    long taggedOffset;
    int rsvdUlp;
    int queueNumber;
    int msn;
    int mo;
    int sinkStag;
    long sinkTo;
    int readSize;
    int sourceStag;
    long sourceTo;

    int headerLength() {
        return tagged ? Ddp.TAGGED_HEADER_LENGTH : Ddp.UNTAGGED_HEADER_LENGTH;
    }

    /** Bytes of RDMAP header after the DDP header (the Read Request body), for a Terminate's R flag. */
    int rdmapLength() {
        return !tagged && opcode == Rdmap.READ_REQUEST ? Rdmap.READ_REQUEST_BODY_LENGTH : 0;
    }

    /** Decodes the header held in {@code src} from index 0 (its ULPDU_Length field first). */
    void decode(ByteBuffer src) {
        ulpduLength = src.getShort(0) & 0xFFFF;
        int u = Fpdu.LENGTH_FIELD;
        ddpControl = src.get(u + Ddp.OFFSET_DDP_CONTROL) & 0xFF;
        rdmapControl = src.get(u + Ddp.OFFSET_RDMAP_CONTROL) & 0xFF;
        opcode = rdmapControl & Rdmap.OPCODE_MASK;
        tagged = (ddpControl & Ddp.FLAG_TAGGED) != 0;
        last = (ddpControl & Ddp.FLAG_LAST) != 0;
        if (tagged) {
            stag = src.getInt(u + Ddp.OFFSET_STAG);
            taggedOffset = src.getLong(u + Ddp.OFFSET_TAGGED_OFFSET);
        } else {
            rsvdUlp = src.getInt(u + Ddp.OFFSET_INVALIDATE_STAG);
            queueNumber = src.getInt(u + Ddp.OFFSET_QN);
            msn = src.getInt(u + Ddp.OFFSET_MSN);
            mo = src.getInt(u + Ddp.OFFSET_MO);
        }
    }

    /** Decodes a Read Request body held in {@code src} (ULPDU_Length field at index 0). */
    void decodeReadRequest(ByteBuffer src) {
        int u = Fpdu.LENGTH_FIELD;
        sinkStag = src.getInt(u + Rdmap.OFFSET_SINK_STAG);
        sinkTo = src.getLong(u + Rdmap.OFFSET_SINK_TO);
        readSize = src.getInt(u + Rdmap.OFFSET_READ_SIZE);
        sourceStag = src.getInt(u + Rdmap.OFFSET_SOURCE_STAG);
        sourceTo = src.getLong(u + Rdmap.OFFSET_SOURCE_TO);
    }

    /** Sets this header to describe a received Read Request (to quote it in a Terminate). */
    void setReadRequest(ReadEntry e) {
        tagged = false;
        last = true;
        opcode = Rdmap.READ_REQUEST;
        ddpControl = Ddp.control(false, true);
        rdmapControl = Rdmap.control(Rdmap.READ_REQUEST);
        ulpduLength = Rdmap.READ_REQUEST_ULPDU_LENGTH;
        rsvdUlp = 0;
        queueNumber = Ddp.QN_READ_REQUEST;
        msn = e.msn;
        mo = 0;
        sinkStag = e.sinkStag;
        sinkTo = e.sinkTo;
        readSize = e.size;
        sourceStag = e.sourceStag;
        sourceTo = e.sourceTo;
    }

    /** Writes the ULPDU_Length field, the DDP header and any Read Request body to {@code dst} from index 0. */
    void encode(ByteBuffer dst) {
        dst.putShort(0, (short) ulpduLength);
        int u = Fpdu.LENGTH_FIELD;
        dst.put(u + Ddp.OFFSET_DDP_CONTROL, (byte) ddpControl);
        dst.put(u + Ddp.OFFSET_RDMAP_CONTROL, (byte) rdmapControl);
        if (tagged) {
            dst.putInt(u + Ddp.OFFSET_STAG, stag);
            dst.putLong(u + Ddp.OFFSET_TAGGED_OFFSET, taggedOffset);
        } else {
            dst.putInt(u + Ddp.OFFSET_INVALIDATE_STAG, rsvdUlp);
            dst.putInt(u + Ddp.OFFSET_QN, queueNumber);
            dst.putInt(u + Ddp.OFFSET_MSN, msn);
            dst.putInt(u + Ddp.OFFSET_MO, mo);
            if (opcode == Rdmap.READ_REQUEST) {
                Rdmap.putReadRequestBody(dst, u, sinkStag, sinkTo, readSize, sourceStag, sourceTo);
            }
        }
    }
}
