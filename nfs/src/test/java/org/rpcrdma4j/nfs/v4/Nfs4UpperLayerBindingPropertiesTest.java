package org.rpcrdma4j.nfs.v4;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.rpcrdma4j.xprt.DataItem;
import org.rpcrdma4j.xprt.XdrFormatException;

/**
 * The binding against generated COMPOUNDs: random operations before the data item (every operation the binding
 * walks, with every union arm, random tags, handles, owners, attribute bitmaps and values), minor versions 0 to 2,
 * random operations after it. The item is found exactly where the generator put it, in the unreduced and in the
 * reduced message; no truncation yields a wrong item; an operation the binding does not know, an operation of a
 * later minor version, or a failed result ends the walk with no item.
 */
class Nfs4UpperLayerBindingPropertiesTest {
    private static final Nfs4UpperLayerBinding ULB = Nfs4UpperLayerBinding.INSTANCE;
    private static final int V4 = Nfs4.VERSION;
    private static final int COMPOUND = Nfs4.PROC_COMPOUND;

    @Provide
    Arbitrary<byte[]> tags() {
        return Arbitraries.oneOf(Arbitraries.just(new byte[0]),
                Arbitraries.bytes().array(byte[].class).ofMaxSize(40),
                Arbitraries.bytes().array(byte[].class).ofMaxSize(Nfs4.DECODE_MAX_NAME));
    }

    @Provide
    Arbitrary<byte[]> data() {
        return Arbitraries.oneOf(Arbitraries.bytes().array(byte[].class).ofMaxSize(16),
                Arbitraries.bytes().array(byte[].class).ofMaxSize(700));
    }

    /** Operations before (or after) the item: generated from the seed, {@code n} of them. */
    private static byte[] callOperations(Random r, int minor, int n, boolean after) {
        int[] ops = OperationGenerator.callOperations(minor);
        XdrWriter w = new XdrWriter();
        for (int i = 0; i < n; i++) {
            int op = after && r.nextInt(4) == 0 ? Nfs4.OP_WRITE : ops[r.nextInt(ops.length)];
            w.raw(OperationGenerator.generate(op, minor, r).callBytes());
        }
        return w.bytes();
    }

    /** Like {@link #callOperations} but without READ and READLINK, whose results would be the reply's item. */
    private static byte[] callOperationsWithoutReads(Random r, int minor, int n) {
        int[] ops = OperationGenerator.callOperations(minor);
        XdrWriter w = new XdrWriter();
        for (int i = 0; i < n; i++) {
            int op;
            do {
                op = ops[r.nextInt(ops.length)];
            } while (op == Nfs4.OP_READ || op == Nfs4.OP_READLINK);
            w.raw(OperationGenerator.generate(op, minor, r).callBytes());
        }
        return w.bytes();
    }

    private static byte[] okResults(Random r, int minor, int n) {
        int[] ops = OperationGenerator.replyOperations(minor);
        XdrWriter w = new XdrWriter();
        for (int i = 0; i < n; i++) {
            w.raw(OperationGenerator.generate(ops[r.nextInt(ops.length)], minor, r).okBytes());
        }
        return w.bytes();
    }

    /** A call with {@code before} operations, WRITE or CREATE(NF4LNK) carrying {@code data}, {@code after} more. */
    static GeneratedCompound call(long seed, int minor, byte[] tag, int before, int after, byte[] data,
                                  boolean symlink) {
        Random r = new Random(seed);
        XdrWriter w = GeneratedCompound.callHeader(tag, minor, before + 1 + after);
        w.raw(callOperations(r, minor, before, false));
        if (symlink) {
            w.word(Nfs4.OP_CREATE).word(Nfs4.NF4LNK);
        } else {
            w.word(Nfs4.OP_WRITE).fixed(r, Nfs4.STATEID_SIZE).hyper(r.nextLong()).word(r.nextInt(3));
        }
        int offset = w.length() + 4;
        w.opaque(data);
        if (symlink) {
            w.opaque(new byte[r.nextInt(20)]).word(0).opaque(new byte[0]); // objname, createattrs: an empty fattr4
        }
        w.raw(callOperations(r, minor, after, true));
        return new GeneratedCompound(w.bytes(), offset, data.length);
    }

    /** A reply with {@code before} successful results, READ or READLINK carrying {@code data}, {@code after} more. */
    static GeneratedCompound reply(long seed, int minor, byte[] tag, int before, int after, byte[] data,
                                   boolean readlink, boolean failAtEnd) {
        Random r = new Random(seed);
        int[] ops = OperationGenerator.replyOperations(minor);
        boolean fails = failAtEnd && after > 0;
        GeneratedOperation failing = OperationGenerator.generate(ops[r.nextInt(ops.length)], minor, r);
        XdrWriter w = GeneratedCompound.replyHeader(fails ? failing.errorStatus() : Nfs4.NFS4_OK, tag,
                before + 1 + after);
        w.raw(okResults(r, minor, before));
        w.word(readlink ? Nfs4.OP_READLINK : Nfs4.OP_READ).word(Nfs4.NFS4_OK);
        if (!readlink) {
            w.bool(r.nextBoolean());
        }
        int offset = w.length() + 4;
        w.opaque(data);
        w.raw(okResults(r, minor, fails ? after - 1 : after));
        if (fails) {
            w.raw(failing.errorBytes());
        }
        return new GeneratedCompound(w.bytes(), offset, data.length);
    }

    // ------------------------------------------------------------------------------------------ the item

    @Property(tries = 250)
    void theCallItemIsWhereTheGeneratorPutIt(@ForAll long seed, @ForAll @IntRange(max = 2) int minor,
                                             @ForAll("tags") byte[] tag, @ForAll @IntRange(max = 10) int before,
                                             @ForAll @IntRange(max = 3) int after, @ForAll("data") byte[] data,
                                             @ForAll boolean symlink, @ForAll @IntRange(max = 7) int prefix)
            throws Exception {
        if (symlink && data.length > Nfs4.DECODE_MAX_PATH) {
            return;
        }
        GeneratedCompound g = call(seed, minor, tag, before, after, data, symlink);
        DataItem item = new DataItem();
        ByteBuf args = GeneratedCompound.buffer(g.unreduced(), prefix);
        assertThat(ULB.locateCallItem(V4, COMPOUND, args, item)).isTrue();
        assertThat(item.offset()).isEqualTo(g.itemOffset());
        assertThat(item.length()).isEqualTo(data.length);
        assertThat(ByteBufUtil.getBytes(args, prefix + item.offset(), data.length)).isEqualTo(data);
        assertThat(args.readerIndex()).isEqualTo(prefix);

        DataItem reduced = new DataItem();
        assertThat(ULB.locateReducedCallItem(V4, COMPOUND, GeneratedCompound.buffer(g.reduced(), prefix), reduced))
                .isTrue();
        assertThat(reduced.offset()).isEqualTo(g.itemOffset());
        assertThat(reduced.length()).isEqualTo(data.length);

        assertTruncationsNeverLie(g.unreduced(), g.itemOffset() + ((data.length + 3) & ~3), item,
                (b, out) -> ULB.locateCallItem(V4, COMPOUND, b, out));
        assertTruncationsNeverLie(g.reduced(), g.itemOffset(), item,
                (b, out) -> ULB.locateReducedCallItem(V4, COMPOUND, b, out));
    }

    @Property(tries = 250)
    void theReplyItemIsWhereTheGeneratorPutIt(@ForAll long seed, @ForAll @IntRange(max = 2) int minor,
                                              @ForAll("tags") byte[] tag, @ForAll @IntRange(max = 10) int before,
                                              @ForAll @IntRange(max = 3) int after, @ForAll("data") byte[] data,
                                              @ForAll boolean readlink, @ForAll boolean failAtEnd,
                                              @ForAll @IntRange(max = 7) int prefix) throws Exception {
        GeneratedCompound g = reply(seed, minor, tag, before, after, data, readlink, failAtEnd);
        DataItem item = new DataItem();
        ByteBuf results = GeneratedCompound.buffer(g.unreduced(), prefix);
        assertThat(ULB.locateReplyItem(V4, COMPOUND, results, item)).isTrue();
        assertThat(item.offset()).isEqualTo(g.itemOffset());
        assertThat(item.length()).isEqualTo(data.length);
        assertThat(ByteBufUtil.getBytes(results, prefix + item.offset(), data.length)).isEqualTo(data);

        DataItem reduced = new DataItem();
        assertThat(ULB.locateReducedReplyItem(V4, COMPOUND, GeneratedCompound.buffer(g.reduced(), prefix),
                reduced)).isTrue();
        assertThat(reduced.offset()).isEqualTo(g.itemOffset());
        assertThat(reduced.length()).isEqualTo(data.length);

        assertTruncationsNeverLie(g.unreduced(), g.itemOffset() + ((data.length + 3) & ~3), item,
                (b, out) -> ULB.locateReplyItem(V4, COMPOUND, b, out));
        assertTruncationsNeverLie(g.reduced(), g.itemOffset(), item,
                (b, out) -> ULB.locateReducedReplyItem(V4, COMPOUND, b, out));
    }

    interface Locate {
        boolean apply(ByteBuf buf, DataItem out) throws XdrFormatException;
    }

    /**
     * Cut the message at every length: below {@code needed} (the item's end, or its length word's end in a reduced
     * message) there is no item (an exception or "none"); from there on there is the same item or none (a cut
     * message may fail a sanity check further on, such as an operation count the remaining bytes cannot hold), never
     * another.
     */
    private static void assertTruncationsNeverLie(byte[] message, int needed, DataItem expected, Locate locate) {
        for (int len = 0; len < message.length; len++) {
            DataItem out = new DataItem();
            boolean found;
            try {
                found = locate.apply(Unpooled.wrappedBuffer(message, 0, len), out);
            } catch (XdrFormatException e) {
                found = false;
            }
            if (len < needed) {
                assertThat(found).as("truncated to %d of %d bytes", len, message.length).isFalse();
            } else if (found) {
                assertThat(out.offset()).as("truncated to %d of %d bytes", len, message.length)
                        .isEqualTo(expected.offset());
                assertThat(out.length()).isEqualTo(expected.length());
            }
        }
    }

    // -------------------------------------------------------------------------------- where the walk stops

    @Provide
    Arbitrary<Integer> unknownOperations() {
        return Arbitraries.oneOf(
                Arbitraries.of(0, 1, 2, Nfs4.OP_EXCHANGE_ID, Nfs4.OP_CREATE_SESSION, Nfs4.OP_GET_DIR_DELEGATION,
                        Nfs4.OP_SET_SSV, Nfs4.OP_WANT_DELEGATION, Nfs4.OP_COPY_NOTIFY,
                        Nfs4.OP_LAYOUTSTATS, Nfs4.OP_WRITE_SAME, Nfs4.OP_ILLEGAL),
                Arbitraries.integers().between(Nfs4.LAST_OP_V42 + 1, Integer.MAX_VALUE),
                Arbitraries.integers().lessOrEqual(-1));
    }

    @Property(tries = 300)
    void anUnknownOperationEndsTheCallWalk(@ForAll long seed, @ForAll @IntRange(max = 2) int minor,
                                           @ForAll @IntRange(max = 6) int before,
                                           @ForAll("unknownOperations") int unknown,
                                           @ForAll @Size(max = 64) byte[] itsArguments) throws Exception {
        for (int item : new int[] {Nfs4.OP_WRITE, Nfs4.OP_READ}) {
            Random r = new Random(seed);
            XdrWriter w = GeneratedCompound.callHeader(new byte[0], minor, before + 2);
            w.raw(callOperationsWithoutReads(r, minor, before));
            w.word(unknown).raw(new byte[itsArguments.length & ~3]);
            w.raw(OperationGenerator.generate(item, minor, r).callBytes());
            if (item == Nfs4.OP_WRITE) {
                assertNoItem(w.bytes(), (b, out) -> ULB.locateCallItem(V4, COMPOUND, b, out));
            } else {
                assertThat(ULB.maxReplyItemLength(V4, COMPOUND, Unpooled.wrappedBuffer(w.bytes()))).isEqualTo(-1);
            }
        }
    }

    @Property(tries = 200)
    void anOperationOfALaterMinorVersionEndsTheCallWalk(@ForAll long seed, @ForAll @IntRange(max = 1) int minor,
                                                        @ForAll @IntRange(max = 6) int before) throws Exception {
        Random r = new Random(seed);
        int[] later = minor == 0 ? OperationGenerator.V41_OPERATIONS : OperationGenerator.V42_OPERATIONS;
        int op = later[r.nextInt(later.length)];
        XdrWriter w = GeneratedCompound.callHeader(new byte[0], minor, before + 2);
        w.raw(callOperations(r, minor, before, false));
        w.raw(OperationGenerator.generate(op, minor + 1, r).callBytes());
        w.raw(OperationGenerator.generate(Nfs4.OP_WRITE, minor, r).callBytes());
        assertNoItem(w.bytes(), (b, out) -> ULB.locateCallItem(V4, COMPOUND, b, out));
        // the same operations under the later minor version: the item is there
        byte[] asLater = w.bytes();
        Unpooled.wrappedBuffer(asLater).setInt(4, minor + 1); // after the empty tag
        assertThat(ULB.locateCallItem(V4, COMPOUND, Unpooled.wrappedBuffer(asLater), new DataItem())).isTrue();
    }

    @Property(tries = 100)
    void anUnknownMinorVersionHasNoItem(@ForAll long seed, @ForAll int minor) throws Exception {
        if (minor >= 0 && minor <= Nfs4.MAX_MINOR_VERSION) {
            return;
        }
        GeneratedCompound g = call(seed, 2, new byte[0], 2, 0, new byte[] {1, 2, 3}, false);
        Unpooled.wrappedBuffer(g.unreduced()).setInt(4, minor);
        assertNoItem(g.unreduced(), (b, out) -> ULB.locateCallItem(V4, COMPOUND, b, out));
    }

    @Property(tries = 300)
    void anUnknownResultEndsTheReplyWalk(@ForAll long seed, @ForAll @IntRange(max = 2) int minor,
                                         @ForAll @IntRange(max = 6) int before,
                                         @ForAll("unknownOperations") int unknown,
                                         @ForAll @Size(max = 64) byte[] itsResult) throws Exception {
        Random r = new Random(seed);
        XdrWriter w = GeneratedCompound.replyHeader(Nfs4.NFS4_OK, new byte[0], before + 2);
        w.raw(okResults(r, minor, before));
        w.word(unknown).word(Nfs4.NFS4_OK).raw(new byte[itsResult.length & ~3]);
        w.word(Nfs4.OP_READ).word(Nfs4.NFS4_OK).bool(true).opaque(new byte[] {7, 7, 7});
        assertNoItem(w.bytes(), (b, out) -> ULB.locateReplyItem(V4, COMPOUND, b, out));
    }

    @Property(tries = 300)
    void aFailedResultEndsTheReplyWalk(@ForAll long seed, @ForAll @IntRange(max = 2) int minor,
                                       @ForAll @IntRange(max = 6) int before) throws Exception {
        Random r = new Random(seed);
        int[] ops = OperationGenerator.replyOperations(minor);
        GeneratedOperation failing = OperationGenerator.generate(ops[r.nextInt(ops.length)], minor, r);
        XdrWriter w = GeneratedCompound.replyHeader(failing.errorStatus(), new byte[0], before + 2);
        w.raw(okResults(r, minor, before));
        w.raw(failing.errorBytes());
        w.word(Nfs4.OP_READ).word(Nfs4.NFS4_OK).bool(true).opaque(new byte[] {7, 7, 7});
        DataItem out = new DataItem();
        assertThat(ULB.locateReplyItem(V4, COMPOUND, Unpooled.wrappedBuffer(w.bytes()), out)).isFalse();
        assertThat(out.isSet()).isFalse();
    }

    private static void assertNoItem(byte[] message, Locate locate) throws Exception {
        DataItem out = new DataItem();
        assertThat(locate.apply(Unpooled.wrappedBuffer(message), out)).isFalse();
        assertThat(out.isSet()).isFalse();
    }

    // -------------------------------------------------------------------------------------------- sizes

    @Property(tries = 200)
    void theWriteChunkIsSizedByTheFirstRead(@ForAll long seed, @ForAll @IntRange(max = 2) int minor,
                                            @ForAll @IntRange(max = 8) int before, @ForAll int count,
                                            @ForAll boolean readlink) throws Exception {
        Random r = new Random(seed);
        XdrWriter w = GeneratedCompound.callHeader(new byte[0], minor, before + 2);
        w.raw(callOperationsWithoutReads(r, minor, before));
        if (readlink) {
            w.word(Nfs4.OP_READLINK);
        } else {
            w.word(Nfs4.OP_READ).fixed(r, Nfs4.STATEID_SIZE).hyper(r.nextLong()).word(count);
        }
        w.raw(OperationGenerator.generate(Nfs4.OP_READ, minor, r).callBytes()); // a second READ does not count
        long expected = readlink ? Nfs4.DECODE_MAX_PATH : Integer.toUnsignedLong(count);
        assertThat(ULB.maxReplyItemLength(V4, COMPOUND, Unpooled.wrappedBuffer(w.bytes()))).isEqualTo(expected);
    }

    /**
     * A call whose item travels apart from the message (a WRITE's data or a link's text given as a payload) is sized
     * from its reduced form exactly as from the whole message, whatever follows the item (READs included).
     */
    @Property(tries = 250)
    void aReducedCallIsSizedAsTheWholeCall(@ForAll long seed, @ForAll @IntRange(max = 2) int minor,
                                           @ForAll("tags") byte[] tag, @ForAll @IntRange(max = 10) int before,
                                           @ForAll @IntRange(max = 3) int after, @ForAll("data") byte[] data,
                                           @ForAll boolean symlink) throws Exception {
        if (symlink && data.length > Nfs4.DECODE_MAX_PATH) {
            return;
        }
        GeneratedCompound g = call(seed, minor, tag, before, after, data, symlink);
        ByteBuf whole = Unpooled.wrappedBuffer(g.unreduced());
        ByteBuf reduced = Unpooled.wrappedBuffer(g.reduced());
        assertThat(ULB.maxInlineReplySizeReduced(V4, COMPOUND, reduced))
                .isEqualTo(ULB.maxInlineReplySize(V4, COMPOUND, whole));
        assertThat(ULB.maxReplyItemLengthReduced(V4, COMPOUND, reduced))
                .isEqualTo(ULB.maxReplyItemLength(V4, COMPOUND, whole));
        assertThat(reduced.readerIndex()).isZero();
    }

    /** Linux's and this client's WRITE COMPOUND, reduced: a bounded reply that fits the inline threshold. */
    @Property(tries = 50)
    void aReducedWriteCompoundHasASmallBoundedReply(@ForAll long seed, @ForAll @IntRange(max = 2) int minor,
                                                    @ForAll @IntRange(max = 1 << 20) int length,
                                                    @ForAll boolean getattrAfter) throws Exception {
        Random r = new Random(seed);
        XdrWriter w = GeneratedCompound.callHeader(new byte[0], minor, getattrAfter ? 4 : 3);
        w.raw(OperationGenerator.generate(minor == 0 ? Nfs4.OP_PUTROOTFH : Nfs4.OP_SEQUENCE, minor, r).callBytes());
        w.word(Nfs4.OP_PUTFH).opaque(new byte[28]);
        w.word(Nfs4.OP_WRITE).fixed(r, Nfs4.STATEID_SIZE).hyper(r.nextLong()).word(2).word(length);
        if (getattrAfter) {
            w.word(Nfs4.OP_GETATTR).word(1).word(0x18); // change, size
        }
        long bound = ULB.maxInlineReplySizeReduced(V4, COMPOUND, Unpooled.wrappedBuffer(w.bytes()));
        assertThat(bound).isPositive().isLessThan(1024);
        assertThat(ULB.maxReplyItemLengthReduced(V4, COMPOUND, Unpooled.wrappedBuffer(w.bytes()))).isEqualTo(-1);
    }

    @Property(tries = 100)
    void aCallWithoutReadHasNoReplyItemLength(@ForAll long seed, @ForAll @IntRange(max = 2) int minor,
                                              @ForAll @Size(max = 8) List<@IntRange(max = 1000) Integer> picks)
            throws Exception {
        Random r = new Random(seed);
        int[] ops = OperationGenerator.callOperations(minor);
        XdrWriter w = GeneratedCompound.callHeader(new byte[0], minor, picks.size());
        for (int pick : picks) {
            int op = ops[pick % ops.length];
            if (op == Nfs4.OP_READ || op == Nfs4.OP_READLINK) {
                op = Nfs4.OP_GETFH;
            }
            w.raw(OperationGenerator.generate(op, minor, r).callBytes());
        }
        assertThat(ULB.maxReplyItemLength(V4, COMPOUND, Unpooled.wrappedBuffer(w.bytes()))).isEqualTo(-1);
        assertThat(ULB.locateCallItem(V4, COMPOUND, Unpooled.wrappedBuffer(w.bytes()), new DataItem())).isFalse();
    }

    // ------------------------------------------------------------------------------------------ garbage

    @Property(tries = 2000)
    void garbageNeverYieldsAnInconsistentItem(@ForAll @Size(max = 200) byte[] garbage,
                                              @ForAll @IntRange(max = 4) int which) {
        ByteBuf b = Unpooled.wrappedBuffer(garbage);
        DataItem item = new DataItem();
        boolean found;
        try {
            if (which == 4) {
                assertThat(ULB.maxReplyItemLength(V4, COMPOUND, b)).isGreaterThanOrEqualTo(-1);
                assertThat(ULB.maxInlineReplySize(V4, COMPOUND, b)).isGreaterThanOrEqualTo(-1);
                return;
            }
            found = switch (which) {
                case 0 -> ULB.locateCallItem(V4, COMPOUND, b, item);
                case 1 -> ULB.locateReducedCallItem(V4, COMPOUND, b, item);
                case 2 -> ULB.locateReplyItem(V4, COMPOUND, b, item);
                default -> ULB.locateReducedReplyItem(V4, COMPOUND, b, item);
            };
        } catch (XdrFormatException e) {
            return;
        }
        if (found) {
            assertThat(item.offset()).isLessThanOrEqualTo(garbage.length);
            assertThat(b.getInt(item.offset() - 4) & 0xFFFFFFFFL).isEqualTo(item.length());
            if (which == 0 || which == 2) {
                assertThat(item.offset() + item.paddedLength()).isLessThanOrEqualTo(garbage.length);
            }
        }
        assertThat(b.readerIndex()).isZero();
    }
}
