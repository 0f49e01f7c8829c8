package org.rpcrdma4j.codec;

import java.util.List;
import java.util.function.Supplier;

/**
 * Valid RPC-over-RDMA version 1 headers written out by hand from the RFC 8166 XDR, each with the builder calls that
 * describe the same header. Shared by the vector, truncation and fuzz tests.
 */
final class Vectors {

    /** A named hand-written header and the header the builder makes for it. */
    static final class Vector {
        final String name;
        final String hex;
        final Supplier<RpcRdmaHeader> header;

        Vector(String name, String hex, Supplier<RpcRdmaHeader> header) {
            this.name = name;
            this.hex = hex;
            this.header = header;
        }

        byte[] bytes() {
            return Hex.bytes(hex);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    private Vectors() {
    }

    /** PROTOCOLS.md A.1: xid 0x12345678, credits 32, RDMA_MSG, no chunks. */
    static final Vector MSG_NO_CHUNKS = new Vector("RDMA_MSG, no chunks (28 bytes)",
            "12345678 00000001 00000020 00000000 | 00000000 | 00000000 | 00000000",
            () -> new RpcRdmaHeader().xid(0x12345678).credits(32).proc(RpcRdmaProc.RDMA_MSG));

    /** A Call too large to send inline: RDMA_NOMSG with the whole Call in a position-zero Read chunk. */
    static final Vector NOMSG_POSITION_ZERO = new Vector("RDMA_NOMSG, position-zero Read chunk",
            "cafef00d 00000001 00000080 00000001"
                    + "| 00000001 00000000 00001234 00000094 00007f00deadbe00 | 00000000"
                    + "| 00000000"
                    + "| 00000000",
            () -> new RpcRdmaHeader().xid(0xcafef00d).credits(128).proc(RpcRdmaProc.RDMA_NOMSG)
                    .addReadSegment(0, 0x1234, 148, 0x00007f00deadbe00L));

    /** Two Read chunks: two segments at position 132, one of 3 unpadded bytes at position 256. */
    static final Vector READ_TWO_POSITIONS = new Vector("RDMA_MSG, read segments at two positions",
            "00000001 00000001 00000020 00000000"
                    + "| 00000001 00000084 0000a001 00001000 0000000010000000"
                    + "| 00000001 00000084 0000a002 00000800 0000000020000000"
                    + "| 00000001 00000100 0000b001 00000003 0000000030000000"
                    + "| 00000000"
                    + "| 00000000"
                    + "| 00000000",
            () -> new RpcRdmaHeader().xid(1).credits(32)
                    .addReadSegment(132, 0xa001, 4096, 0x10000000L)
                    .addReadSegment(132, 0xa002, 2048, 0x20000000L)
                    .addReadSegment(256, 0xb001, 3, 0x30000000L));

    /** Two Write chunks of three and two segments. */
    static final Vector TWO_WRITE_CHUNKS = new Vector("RDMA_MSG, two Write chunks",
            "00000002 00000001 00000080 00000000"
                    + "| 00000000"
                    + "| 00000001 00000003"
                    + "  00000101 00001000 0000000000010000"
                    + "  00000102 00001000 0000000000011000"
                    + "  00000103 00000800 0000000000012000"
                    + "| 00000001 00000002"
                    + "  00000201 00000200 fffffffffffff000"
                    + "  00000202 00000200 0000000000000000"
                    + "| 00000000"
                    + "| 00000000",
            () -> new RpcRdmaHeader().xid(2).credits(128)
                    .beginWriteChunk()
                    .addWriteSegment(0x101, 0x1000, 0x10000L)
                    .addWriteSegment(0x102, 0x1000, 0x11000L)
                    .addWriteSegment(0x103, 0x800, 0x12000L)
                    .beginWriteChunk()
                    .addWriteSegment(0x201, 0x200, 0xfffffffffffff000L)
                    .addWriteSegment(0x202, 0x200, 0L));

    /** The Responder's answer to {@link #TWO_WRITE_CHUNKS}: 5000 bytes in chunk 0, nothing in chunk 1. */
    static final Vector WRITE_LIST_ECHO = new Vector("RDMA_MSG reply echoing the Write list with lengths written",
            "00000002 00000001 00000020 00000000"
                    + "| 00000000"
                    + "| 00000001 00000003"
                    + "  00000101 00001000 0000000000010000"
                    + "  00000102 00000388 0000000000011000"
                    + "  00000103 00000000 0000000000012000"
                    + "| 00000001 00000002"
                    + "  00000201 00000000 fffffffffffff000"
                    + "  00000202 00000000 0000000000000000"
                    + "| 00000000"
                    + "| 00000000",
            () -> new RpcRdmaHeader().xid(2).credits(32)
                    .copyWriteListFrom(TWO_WRITE_CHUNKS.header.get())
                    .setWriteChunkBytesWritten(0, 5000)
                    .setWriteChunkBytesWritten(1, 0));

    /** A Reply chunk of two segments. */
    static final Vector REPLY_CHUNK = new Vector("RDMA_MSG, Reply chunk",
            "00000003 00000001 00000040 00000000"
                    + "| 00000000"
                    + "| 00000000"
                    + "| 00000001 00000002"
                    + "  0000c001 00002000 0000000100000000"
                    + "  0000c002 00001000 0000000100002000",
            () -> new RpcRdmaHeader().xid(3).credits(64)
                    .beginReplyChunk()
                    .addReplySegment(0xc001, 0x2000, 0x100000000L)
                    .addReplySegment(0xc002, 0x1000, 0x100002000L));

    /** RDMA_NOMSG with a position-zero Read chunk and a Reply chunk. */
    static final Vector READ_AND_REPLY = new Vector("RDMA_NOMSG, Read list and Reply chunk",
            "00000004 00000001 00000080 00000001"
                    + "| 00000001 00000000 0000d001 00000400 0000000000400000 | 00000000"
                    + "| 00000000"
                    + "| 00000001 00000001 0000d002 00001000 0000000000500000",
            () -> new RpcRdmaHeader().xid(4).credits(128).proc(RpcRdmaProc.RDMA_NOMSG)
                    .addReadSegment(0, 0xd001, 0x400, 0x400000L)
                    .beginReplyChunk().addReplySegment(0xd002, 0x1000, 0x500000L));

    /** Read, Write and Reply chunks in one header (the benchmark's shape). */
    static final Vector ALL_LISTS = new Vector("RDMA_MSG, Read list, Write list and Reply chunk",
            "0000000c 00000001 00000010 00000000"
                    + "| 00000001 00000008 00000011 00000100 0000000000001000 | 00000000"
                    + "| 00000001 00000001 00000021 00000200 0000000000002000 | 00000000"
                    + "| 00000001 00000001 00000031 00000300 0000000000003000",
            () -> new RpcRdmaHeader().xid(12).credits(16)
                    .addReadSegment(8, 0x11, 0x100, 0x1000L)
                    .beginWriteChunk().addWriteSegment(0x21, 0x200, 0x2000L)
                    .beginReplyChunk().addReplySegment(0x31, 0x300, 0x3000L));

    /** RDMA_ERROR / ERR_VERS reporting 1..1 (28 bytes). */
    static final Vector ERR_VERS = new Vector("RDMA_ERROR / ERR_VERS (28 bytes)",
            "00000005 00000001 00000020 00000004 | 00000001 | 00000001 00000001",
            () -> new RpcRdmaHeader().xid(5).credits(32).errorVers(1, 1));

    /** RDMA_ERROR / ERR_CHUNK (20 bytes). */
    static final Vector ERR_CHUNK = new Vector("RDMA_ERROR / ERR_CHUNK (20 bytes)",
            "00000006 00000001 00000020 00000004 | 00000002",
            () -> new RpcRdmaHeader().xid(6).credits(32).errorChunk());

    /** ERR_VERS from a version 2 peer (low 1, high 2): the fixed words and ERR_VERS are common to all versions. */
    static final Vector ERR_VERS_FROM_V2 = new Vector("RDMA_ERROR / ERR_VERS from a version 2 peer",
            "0000000b 00000002 00000001 00000004 | 00000001 | 00000001 00000002",
            () -> new RpcRdmaHeader().xid(11).vers(2).credits(1).errorVers(1, 2));

    /** Unsigned extremes: length 0xFFFFFFFF, offsets with the top bit set, position 0xFFFFFFFC, all-ones words. */
    static final Vector UNSIGNED_EXTREMES = new Vector("unsigned extremes",
            "ffffffff 00000001 ffffffff 00000000"
                    + "| 00000001 fffffffc ffffffff ffffffff 8000000000000001 | 00000000"
                    + "| 00000001 00000001 80000000 ffffffff ffffffffffffffff | 00000000"
                    + "| 00000000",
            () -> new RpcRdmaHeader().xid(0xffffffff).credits(0xffffffff)
                    .addReadSegment(0xfffffffc, 0xffffffff, 0xffffffff, 0x8000000000000001L)
                    .beginWriteChunk().addWriteSegment(0x80000000, 0xffffffff, 0xffffffffffffffffL));

    /** An empty Write chunk (segment count 0). */
    static final Vector EMPTY_WRITE_CHUNK = new Vector("empty Write chunk",
            "00000009 00000001 00000010 00000000 | 00000000 | 00000001 00000000 | 00000000 | 00000000",
            () -> new RpcRdmaHeader().xid(9).credits(16).beginWriteChunk());

    /** A present Reply chunk with no segments. */
    static final Vector EMPTY_REPLY_CHUNK = new Vector("present Reply chunk with 0 segments",
            "0000000a 00000001 00000001 00000001 | 00000000 | 00000000 | 00000001 00000000",
            () -> new RpcRdmaHeader().xid(10).credits(1).proc(RpcRdmaProc.RDMA_NOMSG).beginReplyChunk());

    /** Every valid vector. */
    static List<Vector> valid() {
        return List.of(MSG_NO_CHUNKS, NOMSG_POSITION_ZERO, READ_TWO_POSITIONS, TWO_WRITE_CHUNKS, WRITE_LIST_ECHO,
                REPLY_CHUNK, READ_AND_REPLY, ALL_LISTS, ERR_VERS, ERR_CHUNK, ERR_VERS_FROM_V2, UNSIGNED_EXTREMES,
                EMPTY_WRITE_CHUNK, EMPTY_REPLY_CHUNK);
    }
}
