package org.rpcrdma4j.nfs.client.v4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.FileType;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.testing.XdrBytes;
import org.rpcrdma4j.nfs.v4.Bitmap4;
import org.rpcrdma4j.nfs.v4.Fattr4;
import org.rpcrdma4j.nfs.v4.Fattr4Decoded;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.v4.Nfs4UpperLayerBinding;
import org.rpcrdma4j.nfs.xdr.BadXdrException;
import org.rpcrdma4j.xprt.DataItem;

/**
 * The client's COMPOUND codec without a server: the arguments as RFC 8881's XDR lays them out (and where the NFSv4
 * binding finds the WRITE data), replies decoded into typed results, and every way a reply can be wrong ending in a
 * {@link BadXdrException}, never another exception.
 */
class CompoundCodecTest {
    private static final byte[] SESSION = "0123456789abcdef".getBytes();
    private static final FileHandle FH = FileHandle.of(new byte[] {1, 2, 3, 4, 5});

    private static Ops.Sequence sequence() {
        return new Ops.Sequence(SESSION, 7, 3, 5, true);
    }

    /** Writes XDR by hand. */
    private static byte[] xdr(Consumer<Xdr> body) {
        try (Xdr x = new Xdr(256)) {
            x.beginEncoding();
            body.accept(x);
            x.endEncoding();
            return x.getBytes();
        }
    }

    private static void opaque(Xdr x, byte[] b) {
        x.xdrEncodeInt(b.length);
        x.xdrEncodeOpaque(b, 0, b.length);
    }

    private static void sequenceOk(Xdr x, int seq, int slot) {
        x.xdrEncodeInt(Nfs4.OP_SEQUENCE);
        x.xdrEncodeInt(0);
        x.xdrEncodeOpaque(SESSION, 0, 16);
        x.xdrEncodeInt(seq);
        x.xdrEncodeInt(slot);
        x.xdrEncodeInt(15);
        x.xdrEncodeInt(15);
        x.xdrEncodeInt(0);
    }

    private static void head(Xdr x, int status, int count) {
        x.xdrEncodeInt(status);
        opaque(x, "t".getBytes());
        x.xdrEncodeInt(count);
    }

    /** A reply to SEQUENCE, PUTFH, GETFH, GETATTR(type, size). */
    private static byte[] lookupReply(byte[] fh) {
        return xdr(x -> {
            head(x, 0, 4);
            sequenceOk(x, 7, 3);
            x.xdrEncodeInt(Nfs4.OP_PUTFH);
            x.xdrEncodeInt(0);
            x.xdrEncodeInt(Nfs4.OP_GETFH);
            x.xdrEncodeInt(0);
            opaque(x, fh);
            x.xdrEncodeInt(Nfs4.OP_GETATTR);
            x.xdrEncodeInt(0);
            x.xdrEncodeInt(1);
            x.xdrEncodeInt((1 << Fattr4.FATTR4_TYPE) | (1 << Fattr4.FATTR4_SIZE));
            x.xdrEncodeInt(12);
            x.xdrEncodeInt(1); // NF4REG
            x.xdrEncodeLong(12345);
        });
    }

    private static Compound lookupCompound() {
        return new Compound("t").putfh(FH).getfh().getattr(Bitmap4.of(Fattr4.FATTR4_TYPE, Fattr4.FATTR4_SIZE));
    }

    private static CompoundRes decode(Compound c, byte[] reply) throws IOException {
        return XdrBytes.decode(reply, c.result(sequence()));
    }

    // ============================================================================================ arguments

    @Test
    void aWriteCompoundEndsWithItsDataWhereTheBindingFindsIt() throws Exception {
        byte[] data = new byte[4099];
        new Random(1).nextBytes(data);
        Compound c = new Compound("write").putfh(FH).add(new Ops.Write(StateidSource.ANONYMOUS, 1L << 33,
                StableHow.UNSTABLE, Unpooled.wrappedBuffer(data)));
        c.prepare(42);
        CompoundArgs args = c.args(1, sequence());
        assertThat(args).isInstanceOf(CompoundArgs.WithData.class);
        byte[] flat = XdrBytes.encode(args);
        byte[] before = xdr(x -> ((CompoundArgs.WithData) args).encodeBeforeItem(x));
        assertThat(flat).hasSize(before.length + 4 + 4100);
        assertThat(Arrays.copyOf(flat, before.length)).isEqualTo(before);
        assertThat(Arrays.copyOfRange(flat, before.length + 4, before.length + 4 + data.length)).isEqualTo(data);
        assertThat(((CompoundArgs.WithData) args).item().readableBytes()).isEqualTo(data.length);

        DataItem item = new DataItem();
        assertThat(Nfs4UpperLayerBinding.INSTANCE.locateCallItem(Nfs4.VERSION, Nfs4.PROC_COMPOUND,
                Unpooled.wrappedBuffer(flat), item)).isTrue();
        assertThat(item.offset()).isEqualTo(before.length + 4);
        assertThat(item.length()).isEqualTo(data.length);
    }

    @Test
    void theArgumentsAreRfc8881Xdr() {
        Compound c = new Compound("x").putfh(FH).add(Ops.Open.byHandle(Nfs4Ops.SHARE_ACCESS_READ,
                "o".getBytes()));
        c.prepare(0x1122334455667788L);
        byte[] got = XdrBytes.encode(c.args(2, sequence()));
        byte[] want = xdr(x -> {
            opaque(x, "x".getBytes());
            x.xdrEncodeInt(2);
            x.xdrEncodeInt(3);
            x.xdrEncodeInt(Nfs4.OP_SEQUENCE);
            x.xdrEncodeOpaque(SESSION, 0, 16);
            x.xdrEncodeInt(7);
            x.xdrEncodeInt(3);
            x.xdrEncodeInt(5);
            x.xdrEncodeInt(1); // cachethis
            x.xdrEncodeInt(Nfs4.OP_PUTFH);
            opaque(x, FH.toByteArray());
            x.xdrEncodeInt(Nfs4.OP_OPEN);
            x.xdrEncodeInt(0); // seqid
            x.xdrEncodeInt(0x0401); // share access READ, OPEN4_SHARE_ACCESS_WANT_NO_DELEG
            x.xdrEncodeInt(0); // deny NONE
            x.xdrEncodeLong(0x1122334455667788L); // the owner's client ID
            opaque(x, "o".getBytes());
            x.xdrEncodeInt(0); // OPEN4_NOCREATE
            x.xdrEncodeInt(4); // CLAIM_FH
        });
        assertThat(got).isEqualTo(want);
    }

    @Test
    void theBindingBoundsAReadCompoundByItsCount() throws Exception {
        ByteBuf sink = Unpooled.buffer(100);
        Compound c = new Compound("read").putfh(FH).add(new Ops.Read(StateidSource.ANONYMOUS, 0, 100, sink));
        c.prepare(0);
        byte[] args = XdrBytes.encode(c.args(1, sequence()));
        assertThat(Nfs4UpperLayerBinding.INSTANCE.maxReplyItemLength(Nfs4.VERSION, Nfs4.PROC_COMPOUND,
                Unpooled.wrappedBuffer(args))).isEqualTo(100);
        assertThat(c.result(sequence())).isInstanceOf(CompoundRes.WithData.class);
    }

    // =============================================================================================== replies

    @Test
    void anNfs4HandleOfTheFull128BytesIsTaken() throws Exception {
        byte[] big = new byte[128];
        java.util.Arrays.fill(big, (byte) 7);
        CompoundRes r = decode(lookupCompound(), lookupReply(big));
        assertThat(r.<FileHandle>result(1)).isEqualTo(FileHandle.of(big));
    }

    @Test
    void aReplyDecodesIntoTypedResults() throws Exception {
        CompoundRes r = decode(lookupCompound(), lookupReply(new byte[] {9, 9}));
        assertThat(r.isOk()).isTrue();
        assertThat(r.sequenceStatus()).isZero();
        assertThat(r.sequence().highestSlotId()).isEqualTo(15);
        assertThat(r.<FileHandle>result(1)).isEqualTo(FileHandle.of(new byte[] {9, 9}));
        Fattr4Decoded a = r.result(2);
        assertThat(a.type()).isEqualTo(FileType.REGULAR);
        assertThat(a.size()).isEqualTo(12345);
    }

    @Test
    void aFailedOperationEndsTheReplyAndBecomesATypedError() throws Exception {
        byte[] reply = xdr(x -> {
            head(x, Nfs4Status.NFS4ERR_NOENT, 3);
            sequenceOk(x, 7, 3);
            x.xdrEncodeInt(Nfs4.OP_PUTFH);
            x.xdrEncodeInt(0);
            x.xdrEncodeInt(Nfs4.OP_LOOKUP);
            x.xdrEncodeInt(Nfs4Status.NFS4ERR_NOENT);
        });
        Compound c = new Compound("t").putfh(FH).lookup("x").getfh();
        CompoundRes r = decode(c, reply);
        assertThat(r.status()).isEqualTo(Nfs4Status.NFS4ERR_NOENT);
        assertThat(r.failedIndex()).isEqualTo(1);
        assertThat(r.failedOpcode()).isEqualTo(Nfs4.OP_LOOKUP);
        assertThatThrownBy(r::check).isInstanceOfSatisfying(Nfs4StatusException.class, e -> {
            assertThat(e.nfs4Status()).isEqualTo(Nfs4Status.NFS4ERR_NOENT);
            assertThat(e.operation()).isEqualTo(Nfs4.OP_LOOKUP);
            assertThat(e.status()).isEqualTo(org.rpcrdma4j.nfs.Nfs3Status.NFS3ERR_NOENT);
            assertThat(e.getCause()).isInstanceOf(org.rpcrdma4j.nfs.v4.Nfs4Exception.class);
        });
        // SETATTR's result carries its bitmap after an error too
        byte[] setattr = xdr(x -> {
            head(x, Nfs4Status.NFS4ERR_PERM, 2);
            sequenceOk(x, 7, 3);
            x.xdrEncodeInt(Nfs4.OP_SETATTR);
            x.xdrEncodeInt(Nfs4Status.NFS4ERR_PERM);
            x.xdrEncodeInt(0);
        });
        CompoundRes s = decode(new Compound("t").add(new Ops.SetAttr(StateidSource.ANONYMOUS,
                org.rpcrdma4j.nfs.SetAttributes.NONE)), setattr);
        assertThat(s.status()).isEqualTo(Nfs4Status.NFS4ERR_PERM);
        // a SEQUENCE error: no operation of the COMPOUND ran
        byte[] bad = xdr(x -> {
            head(x, Nfs4Status.NFS4ERR_BADSESSION, 1);
            x.xdrEncodeInt(Nfs4.OP_SEQUENCE);
            x.xdrEncodeInt(Nfs4Status.NFS4ERR_BADSESSION);
        });
        CompoundRes b = decode(lookupCompound(), bad);
        assertThat(b.sequenceStatus()).isEqualTo(Nfs4Status.NFS4ERR_BADSESSION);
        assertThat(b.failedIndex()).isEqualTo(-1);
    }

    @Test
    void everyTruncationOfAReplyIsBadXdr() {
        byte[] reply = lookupReply(new byte[] {9, 9, 9});
        for (int n = 0; n < reply.length; n++) {
            byte[] cut = Arrays.copyOf(reply, n);
            assertThatThrownBy(() -> decode(lookupCompound(), cut)).as("cut at %d", n)
                    .isInstanceOf(BadXdrException.class);
        }
    }

    @Test
    void randomBytesAreBadXdrOrARealReplyNeverAnotherException() {
        Random random = new Random(2);
        byte[] reply = lookupReply(new byte[] {9, 9, 9});
        for (int i = 0; i < 20_000; i++) {
            byte[] b = reply.clone();
            for (int k = random.nextInt(4); k >= 0; k--) {
                b[random.nextInt(b.length)] = (byte) random.nextInt();
            }
            try {
                decode(lookupCompound(), b);
            } catch (BadXdrException expected) {
                // fine
            } catch (Throwable e) {
                throw new AssertionError("a flipped reply threw " + e, e);
            }
        }
    }

    private static void assertBad(Compound c, byte[] reply, String message) {
        assertThatThrownBy(() -> decode(c, reply)).isInstanceOf(BadXdrException.class).hasMessageContaining(message);
    }

    @Test
    void repliesThatAreNotAnswersToTheCallAreBadXdr() {
        assertBad(lookupCompound(), xdr(x -> {
            head(x, 0, 5);
        }), "5 results to a COMPOUND of 4");
        assertBad(lookupCompound(), xdr(x -> {
            head(x, 0, 4);
            sequenceOk(x, 7, 3);
            x.xdrEncodeInt(Nfs4.OP_LOOKUP);
            x.xdrEncodeInt(0);
        }), "is for LOOKUP, the call sent PUTFH");
        assertBad(lookupCompound(), xdr(x -> {
            head(x, 0, 1);
            sequenceOk(x, 8, 3);
        }), "SEQUENCE answered for another");
        assertBad(lookupCompound(), xdr(x -> {
            head(x, Nfs4Status.NFS4ERR_IO, 3);
            sequenceOk(x, 7, 3);
            x.xdrEncodeInt(Nfs4.OP_PUTFH);
            x.xdrEncodeInt(Nfs4Status.NFS4ERR_STALE);
            x.xdrEncodeInt(Nfs4.OP_GETFH);
            x.xdrEncodeInt(0);
            opaque(x, new byte[] {1});
        }), "results follow the failed PUTFH");
        assertBad(lookupCompound(), xdr(x -> {
            head(x, Nfs4Status.NFS4ERR_IO, 2);
            sequenceOk(x, 7, 3);
            x.xdrEncodeInt(Nfs4.OP_PUTFH);
            x.xdrEncodeInt(Nfs4Status.NFS4ERR_STALE);
        }), "differs from its last result's");
        assertBad(lookupCompound(), xdr(x -> {
            head(x, 0, 2);
            sequenceOk(x, 7, 3);
            x.xdrEncodeInt(Nfs4.OP_PUTFH);
            x.xdrEncodeInt(0);
        }), "NFS4_OK with 2 results to 4 operations");
        assertBad(lookupCompound(), lookupReply(new byte[129]), "exceeds its bound");
        assertBad(lookupCompound(), lookupReply(new byte[0]), "an empty file handle");
    }

    @Test
    void ioResultsBeyondWhatWasAskedAreBadXdr() throws Exception {
        ByteBuf sink = Unpooled.buffer(10);
        Compound read = new Compound("t").add(new Ops.Read(StateidSource.ANONYMOUS, 0, 10, sink));
        byte[] eleven = xdr(x -> {
            head(x, 0, 2);
            sequenceOk(x, 7, 3);
            x.xdrEncodeInt(Nfs4.OP_READ);
            x.xdrEncodeInt(0);
            x.xdrEncodeInt(1);
            opaque(x, new byte[11]);
        });
        assertBad(read, eleven, "READ data");
        byte[] ten = xdr(x -> {
            head(x, 0, 2);
            sequenceOk(x, 7, 3);
            x.xdrEncodeInt(Nfs4.OP_READ);
            x.xdrEncodeInt(0);
            x.xdrEncodeInt(0);
            opaque(x, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
        });
        read.prepare(0);
        CompoundRes r = decode(read, ten);
        assertThat(r.<Ops.ReadOk>result(0).count()).isEqualTo(10);
        assertThat(r.<Ops.ReadOk>result(0).eof()).isFalse();
        assertThat(sink.readableBytes()).isEqualTo(10);
        assertThat(sink.getByte(9)).isEqualTo((byte) 10);

        Compound write = new Compound("t").add(new Ops.Write(StateidSource.ANONYMOUS, 0, StableHow.FILE_SYNC,
                Unpooled.wrappedBuffer(new byte[5])));
        assertBad(write, xdr(x -> {
            head(x, 0, 2);
            sequenceOk(x, 7, 3);
            x.xdrEncodeInt(Nfs4.OP_WRITE);
            x.xdrEncodeInt(0);
            x.xdrEncodeInt(6);
            x.xdrEncodeInt(2);
            x.xdrEncodeLong(1);
        }), "answered count 6");
        assertBad(write, xdr(x -> {
            head(x, 0, 2);
            sequenceOk(x, 7, 3);
            x.xdrEncodeInt(Nfs4.OP_WRITE);
            x.xdrEncodeInt(0);
            x.xdrEncodeInt(5);
            x.xdrEncodeInt(3);
            x.xdrEncodeLong(1);
        }), "stable_how4 out of range");
    }

    @Test
    void aReducedReplyTakesTheReadDataFromWhereTheTransportPlacedIt() throws Exception {
        ByteBuf sink = Unpooled.buffer(100);
        sink.writeBytes(new byte[] {42, 43, 44, 45, 46, 47, 48}, 0, 7); // what RDMA placed... after the writer index
        sink.writerIndex(0);
        Compound read = new Compound("t").add(new Ops.Read(StateidSource.ANONYMOUS, 0, 100, sink));
        read.prepare(0);
        byte[] reduced = xdr(x -> {
            head(x, 0, 2);
            sequenceOk(x, 7, 3);
            x.xdrEncodeInt(Nfs4.OP_READ);
            x.xdrEncodeInt(0);
            x.xdrEncodeInt(1);
            x.xdrEncodeInt(7); // the length word; the bytes are in the sink
        });
        CompoundRes.WithData r = (CompoundRes.WithData) read.result(sequence());
        Xdr x = new Xdr(reduced);
        x.beginDecoding();
        r.decodeReduced(x, 7);
        assertThat(r.<Ops.ReadOk>result(0).count()).isEqualTo(7);
        assertThat(sink.readableBytes()).isEqualTo(7);
        assertThat(sink.getByte(6)).isEqualTo((byte) 48);

        read.prepare(0); // a retry puts the writer index back
        assertThat(sink.writerIndex()).isZero();
        CompoundRes.WithData again = (CompoundRes.WithData) read.result(sequence());
        Xdr y = new Xdr(reduced);
        y.beginDecoding();
        assertThatThrownBy(() -> again.decodeReduced(y, 6)).isInstanceOf(BadXdrException.class)
                .hasMessageContaining("6 were placed");
    }

    @Test
    void openDelegationsDirectoryEntriesAndSessionResultsAreChecked() throws Exception {
        Compound open = new Compound("t").add(Ops.Open.byHandle(1, "o".getBytes()));
        byte[] withDelegation = xdr(x -> {
            head(x, 0, 2);
            sequenceOk(x, 7, 3);
            x.xdrEncodeInt(Nfs4.OP_OPEN);
            x.xdrEncodeInt(0);
            x.xdrEncodeInt(1);
            x.xdrEncodeOpaque(new byte[12], 0, 12);
            x.xdrEncodeInt(0);
            x.xdrEncodeLong(1);
            x.xdrEncodeLong(2);
            x.xdrEncodeInt(0); // rflags
            x.xdrEncodeInt(0); // attrset
            x.xdrEncodeInt(Nfs4Ops.OPEN_DELEGATE_READ);
            x.xdrEncodeInt(5);
            x.xdrEncodeOpaque(new byte[] {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, 0, 12);
            x.xdrEncodeInt(0); // recall
            x.xdrEncodeInt(0);
            x.xdrEncodeInt(0);
            x.xdrEncodeInt(0);
            opaque(x, "EVERYONE@".getBytes());
        });
        CompoundRes r = decode(open, withDelegation);
        Ops.OpenOk ok = r.result(0);
        assertThat(ok.stateid().seqid()).isEqualTo(1);
        assertThat(ok.delegation()).isNotNull();
        assertThat(ok.delegation().seqid()).isEqualTo(5);
        byte[] unknownDelegation = withDelegation.clone();
        // the delegation type word follows: head 16, sequence 44, op 8, stateid 16, cinfo 20, rflags 4, attrset 4
        int at = 16 + 44 + 8 + 16 + 20 + 4 + 4;
        unknownDelegation[at + 3] = 9;
        assertBad(open, unknownDelegation, "open_delegation_type4 9");

        Compound readdir = new Compound("t").add(new Ops.Readdir(0, 0, 4096, 4096, Bitmap4.of(Fattr4.FATTR4_TYPE)));
        byte[] notUtf8 = xdr(x -> {
            head(x, 0, 2);
            sequenceOk(x, 7, 3);
            x.xdrEncodeInt(Nfs4.OP_READDIR);
            x.xdrEncodeInt(0);
            x.xdrEncodeLong(77);
            x.xdrEncodeInt(1);
            x.xdrEncodeLong(3);
            opaque(x, new byte[] {(byte) 0xc3, (byte) 0x28});
            x.xdrEncodeInt(0);
            x.xdrEncodeInt(0);
            x.xdrEncodeInt(0);
            x.xdrEncodeInt(1);
        });
        assertBad(readdir, notUtf8, "not UTF-8");

        Compound session = new Compound("t").add(new Ops.CreateSession(1, 2, 0,
                new org.rpcrdma4j.nfs.v4.state.ChannelAttributes(0, 1, 1, 1, 8, 4),
                new org.rpcrdma4j.nfs.v4.state.ChannelAttributes(0, 1, 1, 1, 8, 1)));
        byte[] noSlots = xdr(x -> {
            head(x, 0, 1);
            x.xdrEncodeInt(Nfs4.OP_CREATE_SESSION);
            x.xdrEncodeInt(0);
            x.xdrEncodeOpaque(SESSION, 0, 16);
            x.xdrEncodeInt(2);
            x.xdrEncodeInt(0);
            for (int ch = 0; ch < 2; ch++) {
                for (int k = 0; k < 4; k++) {
                    x.xdrEncodeInt(4096);
                }
                x.xdrEncodeInt(8);
                x.xdrEncodeInt(0); // no slots
                x.xdrEncodeInt(0);
            }
        });
        assertThatThrownBy(() -> XdrBytes.decode(noSlots, session.result(null)))
                .isInstanceOf(BadXdrException.class).hasMessageContaining("granted 0 slots");
    }

    @Test
    void aWriteMustBeTheLastOperation() {
        Compound c = new Compound("t").add(new Ops.Write(StateidSource.ANONYMOUS, 0, StableHow.FILE_SYNC,
                Unpooled.buffer(0)));
        assertThatThrownBy(() -> c.getfh()).isInstanceOf(IllegalStateException.class);
        assertThat(List.of(c.ops().get(0).opcode)).containsExactly(Nfs4.OP_WRITE);
    }
}
