package org.rpcrdma4j.nfs.v4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs.binding.Nfs3UpperLayerBinding;
import org.rpcrdma4j.xprt.DataItem;
import org.rpcrdma4j.xprt.XdrFormatException;

/**
 * Known answers from real traffic: COMPOUND arguments and results the Linux 6.1 NFSv4.1 client and knfsd exchanged
 * over RDMA (the integration-tests module's reference capture; the RPC headers are stripped). The WRITE call and the
 * READ reply are as they crossed the wire, reduced: their data went through a Read and a Write chunk.
 */
class Nfs4UpperLayerBindingLinuxVectorsTest {
    private static final Nfs4UpperLayerBinding ULB = Nfs4UpperLayerBinding.INSTANCE;

    /** SEQUENCE, PUTFH, WRITE (131072 bytes, in a Read chunk at position 184), GETATTR. */
    static final String WRITE_CALL_REDUCED =
            "0000000000000001000000040000003596310c6b16c6663b020000000000000000000011000000010000000100000000" +
            "000000160000001401000101010000006773ab870900000000000000000000260000000096310c6b16c6663b02000000" +
            "0000000000020000000000000002000000000009000000020000001800302000";

    /** The WRITE's results: SEQUENCE, PUTFH, WRITE, GETATTR. */
    static final String WRITE_REPLY =
            "000000000000000000000004000000350000000096310c6b16c6663b020000000000000000000011000000010000001d" +
            "0000001d0000000000000016000000000000002600000000000200000000000066542ad5a35891fa0000000900000000" +
            "000000020000001800302000000000301ac30c71d75d733200000000000400000000000000020000000000006b0c31c7" +
            "175d7331000000006b0c31c7175d7331";

    /** SEQUENCE, PUTFH, READ of 16384 bytes (a Write chunk of 16384 bytes came with it). */
    static final String READ_CALL =
            "0000000000000001000000030000003596310c6b16c6663b020000000000000000000010000000010000000100000000" +
            "0000001600000014010001010100000010d5adf80300000000000000000000190000000096310c6b16c6663b01000000" +
            "00000000003fc00000004000";

    /** SEQUENCE, PUTFH, READ: the data went into the Write chunk, the length word stayed. */
    static final String READ_REPLY_REDUCED =
            "000000000000000000000003000000350000000096310c6b16c6663b020000000000000000000010000000010000001d" +
            "0000001d00000000000000160000000000000019000000000000000100004000";

    /** SEQUENCE, PUTFH, CREATE (NF4LNK "hello.txt", named "link", mode 0777), GETFH, GETATTR: sent inline. */
    static final String CREATE_SYMLINK_CALL =
            "0000000000000001000000050000003596310c6b16c6663b020000000000000000000037000000000000000000000001" +
            "00000016000000140100010101000000783ce8e7060000000000000000000006000000050000000968656c6c6f2e7478" +
            "74000000000000046c696e6b00000002000000000000000200000004000001ff0000000a00000009000000020010011a" +
            "00b0a23a";

    /** SEQUENCE, PUTFH, OPEN (CLAIM_NULL), ACCESS, GETATTR. */
    static final String OPEN_CALL =
            "0000000000000001000000050000003596310c6b16c6663b02000000000000000000001c000000000000000000000001" +
            "0000001600000014010001010100000010d5adf803000000000000000000001200000000000000010000000096310c6b" +
            "16c6663b000000186f70656e2069643a0000001e000000000000000d03f052ff0000000000000004000000030000003d" +
            "00000009000000020010011a00b0a23a";

    /** Its results, sent in a Reply chunk. */
    static final String OPEN_REPLY =
            "000000000000000000000005000000350000000096310c6b16c6663b02000000000000000000001c000000000000001d" +
            "0000001d00000000000000160000000000000012000000000000000196310c6b16c6663b010000000000000000000000" +
            "0000000000000000000000000000002400000001000000000000000000000003000000000000002d0000000d00000009" +
            "00000000000000020010011a00b0a23a00000080000000011ac30c65765c041c00000000004000000000000000000001" +
            "00000000000000000000000000000003000001a400000001000000013000000000000001300000000000000000000000" +
            "0000000000400000000000006b0c31a3352ad768000000006b0c3195365c0419000000006b0c2fed0000000000000000" +
            "00000003";

    /** SEQUENCE, PUTFH, READDIR. */
    static final String READDIR_CALL =
            "0000000000000001000000030000003596310c6b16c6663b020000000000000000000016000000000000000000000000" +
            "000000160000000801000100010000000000001a000000000000000000000000000000000000ffa80000ffa800000002" +
            "0018091a00b0a23a";

    /** Its results, sent in a Reply chunk. */
    static final String READDIR_REPLY =
            "000000000000000000000003000000350000000096310c6b16c6663b020000000000000000000016000000000000001d" +
            "0000001d0000000000000016000000000000001a00000000000000000000000000000001000000000000000300000007" +
            "7363726174636800000000020018091a00b0a23a0000009c000000021ac30c6c5908b1b9000000000000003c00000000" +
            "00000001000000000000000000000000000000140100010101000000783ce8e706000000000000000000000000000006" +
            "000003ff000000020000000130000000000000013000000000000000000000000000000000000000000000006b0c31b1" +
            "378d31b7000000006b0c31b11908b1b5000000006b0c31b11908b1b50000000000000006000000010000000000000004" +
            "0000000364697200000000020018091a00b0a23a0000009c000000021ac30c6576d6161e000000000000003c00000000" +
            "00000001000000000000000000000000000000140100010101000000187d8e4304000000000000000000000000000004" +
            "000001ed000000020000000130000000000000013000000000000000000000000000000000000000000000006b0c2fed" +
            "00000000000000006b0c319536d61619000000006b0c2fed000000000000000000000004000000010000000000000005" +
            "000000107061747465726e2d344d69422e62696e000000020018091a00b0a23a0000009c000000011ac30c65765c041c" +
            "0000000000400000000000000000000100000000000000000000000000000014010001010100000010d5adf803000000" +
            "000000000000000000000003000001a40000000100000001300000000000000130000000000000000000000000000000" +
            "00400000000000006b0c31a3352ad768000000006b0c3195365c0419000000006b0c2fed000000000000000000000003" +
            "0000000100000000000000060000000968656c6c6f2e747874000000000000020018091a00b0a23a0000009c00000001" +
            "1ac30c65752ad71b000000000000001c0000000000000001000000000000000000000000000000140100010101000000" +
            "9447835802000000000000000000000000000002000001a4000000010000000130000000000000013000000000000000" +
            "000000000000000000001000000000006b0c31a332c87d68000000006b0c3195352ad718000000006b0c2fed00000000" +
            "00000000000000020000000000000001";

    static ByteBuf hex(String s) {
        return Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(s));
    }

    /** The WRITE call as the client marshaled it: 131072 bytes of data (zeros here) after the length word. */
    private static ByteBuf unreducedWriteCall() {
        ByteBuf reduced = hex(WRITE_CALL_REDUCED);
        return Unpooled.wrappedBuffer(reduced.retainedSlice(0, 112), Unpooled.wrappedBuffer(new byte[131072]),
                reduced.retainedSlice(112, reduced.readableBytes() - 112));
    }

    @Test
    void theWriteDataIsWhereLinuxPutItsReadChunk() throws Exception {
        DataItem item = new DataItem();
        assertThat(ULB.locateReducedCallItem(4, 1, hex(WRITE_CALL_REDUCED), item)).isTrue();
        assertThat(item.offset()).isEqualTo(184 - 72); // the chunk's position minus the RPC call header
        assertThat(item.length()).isEqualTo(131072);
        // the unreduced walk wants the bytes, which are not there
        assertThatThrownBy(() -> ULB.locateCallItem(4, 1, hex(WRITE_CALL_REDUCED), new DataItem()))
                .isInstanceOf(XdrFormatException.class);
        // the call as the client had it, before reduction
        DataItem whole = new DataItem();
        assertThat(ULB.locateCallItem(4, 1, unreducedWriteCall(), whole)).isTrue();
        assertThat(whole.offset()).isEqualTo(item.offset());
        assertThat(whole.length()).isEqualTo(item.length());
        assertThat(ULB.maxReplyItemLength(4, 1, unreducedWriteCall())).isEqualTo(-1);
    }

    @Test
    void theReadDataIsWhereKnfsdLeftItsLengthWord() throws Exception {
        DataItem item = new DataItem();
        assertThat(ULB.locateReducedReplyItem(4, 1, hex(READ_REPLY_REDUCED), item)).isTrue();
        assertThat(item.offset()).isEqualTo(hex(READ_REPLY_REDUCED).readableBytes());
        assertThat(item.length()).isEqualTo(16384);
        assertThat(ULB.maxReplyItemLength(4, 1, hex(READ_CALL))).isEqualTo(16384);
        assertThat(ULB.locateCallItem(4, 1, hex(READ_CALL), item.clear())).isFalse();
        assertThat(item.isSet()).isFalse();
    }

    @Test
    void theSymlinkTextIsTheCreateItem() throws Exception {
        DataItem item = new DataItem();
        ByteBuf call = hex(CREATE_SYMLINK_CALL);
        assertThat(ULB.locateCallItem(4, 1, call, item)).isTrue();
        assertThat(item.offset()).isEqualTo(88);
        assertThat(call.toString(item.offset(), (int) item.length(), StandardCharsets.US_ASCII))
                .isEqualTo("hello.txt");
    }

    @Test
    void repliesWithoutItems() throws Exception {
        for (String reply : new String[] {WRITE_REPLY, OPEN_REPLY, READDIR_REPLY}) {
            DataItem item = new DataItem();
            assertThat(ULB.locateReplyItem(4, 1, hex(reply), item)).isFalse();
            assertThat(ULB.locateReducedReplyItem(4, 1, hex(reply), item)).isFalse();
            assertThat(item.isSet()).isFalse();
        }
        for (String call : new String[] {OPEN_CALL, READDIR_CALL}) {
            assertThat(ULB.locateCallItem(4, 1, hex(call), new DataItem())).isFalse();
            assertThat(ULB.maxReplyItemLength(4, 1, hex(call))).isEqualTo(-1);
        }
    }

    /**
     * READ: RPC reply header (at most 424 bytes), status, empty tag, count (12), SEQUENCE (8 + 36), PUTFH (8), READ
     * (8, eof, length word) = 504. WRITE: the same up to PUTFH (488), WRITE (8 + 16), GETATTR of change, size,
     * space_used, time_metadata, time_modify (8, bitmap of at most 8 words 36, attrlist length 4, values 8 + 8 + 8 +
     * 12 + 12) = 608. OPEN: unbounded (its delegation's ACE names a principal of any length); READDIR: bounded by
     * its maxcount.
     */
    @Test
    void replySizeBounds() throws Exception {
        int rpcReplyHeader = 24; // what knfsd sent: xid, REPLY, MSG_ACCEPTED, AUTH_NONE verifier, SUCCESS
        assertThat(ULB.maxInlineReplySize(4, 1, hex(READ_CALL))).isEqualTo(504);
        assertThat(rpcReplyHeader + hex(READ_REPLY_REDUCED).readableBytes()).isLessThanOrEqualTo(504);
        assertThat(ULB.maxInlineReplySize(4, 1, unreducedWriteCall())).isEqualTo(608);
        assertThat(rpcReplyHeader + hex(WRITE_REPLY).readableBytes()).isLessThanOrEqualTo(608);
        // OPEN, GETFH, GETATTR of Linux's attributes (owner and owner_group among them): bounded with names of at
        // most 1024 bytes, within knfsd's 4 KiB inline threshold, and above what knfsd answered
        long open = ULB.maxInlineReplySize(4, 1, hex(OPEN_CALL));
        assertThat(open).isEqualTo(3880).isLessThan(4096 - 28);
        assertThat((long) rpcReplyHeader + hex(OPEN_REPLY).readableBytes()).isLessThanOrEqualTo(open);
        long readdir = ULB.maxInlineReplySize(4, 1, hex(READDIR_CALL));
        assertThat(readdir).isPositive();
        assertThat((long) rpcReplyHeader + hex(READDIR_REPLY).readableBytes()).isLessThanOrEqualTo(readdir);
        assertThat(ULB.maxInlineReplySize(4, 0, hex(""))).isEqualTo(Nfs3UpperLayerBinding.MAX_REPLY_HEADER);
    }
}
