package org.rpcrdma4j.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rpcrdma4j.codec.RpcRdmaDecodeException.Reason;
import static org.rpcrdma4j.codec.RpcRdmaDecodeException.Response;
import static org.rpcrdma4j.codec.RpcRdmaVectorTest.decodeFailure;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** One or more tests per decoder rule; each fails without the rule and checks the xid and the answer carried. */
class RpcRdmaDecoderValidationTest {

    static List<Vectors.Vector> version1Vectors() {
        return Vectors.valid().stream().filter(v -> v != Vectors.ERR_VERS_FROM_V2).collect(Collectors.toList());
    }

    // ------------------------------------------------------------------------------------------- truncation

    @ParameterizedTest(name = "{0}")
    @MethodSource("version1Vectors")
    void truncationAtEveryByteOffsetIsRefused(Vectors.Vector vector) {
        byte[] bytes = vector.bytes();
        int xid = RpcRdmaLayout.xid(Unpooled.wrappedBuffer(bytes), 0);
        boolean isError = RpcRdmaLayout.procValue(Unpooled.wrappedBuffer(bytes), 0) == 4;
        for (int length = 0; length < bytes.length; length++) {
            RpcRdmaDecodeException e = decodeFailure(Arrays.copyOf(bytes, length));

            assertThat(e.reason()).as("prefix of %d bytes", length)
                    .isIn(Reason.TRUNCATED, Reason.COUNT_EXCEEDS_BUFFER);
            assertThat(e.hasXid()).as("xid readable at %d bytes", length).isEqualTo(length >= 4);
            if (length >= 4) {
                assertThat(e.xid()).isEqualTo(xid);
            }
            Response expected = length < 4 ? Response.DROP
                    : length >= 16 && isError ? Response.DROP : Response.ERR_CHUNK;
            assertThat(e.response()).as("answer at %d bytes", length).isEqualTo(expected);
            assertThat(e.offset()).as("offset at %d bytes", length).isBetween(0, length);
            assertThat(e.getMessage()).contains("at byte " + e.offset());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("version1Vectors")
    void bytesPastTheWriterIndexAreNeverRead(Vectors.Vector vector) {
        byte[] bytes = vector.bytes();
        for (int length = 0; length < bytes.length; length++) {
            // the capacity holds the whole valid header, but only `length` bytes were received
            ByteBuf in = Unpooled.wrappedBuffer(bytes.clone()).writerIndex(length);
            RpcRdmaHeader header = new RpcRdmaHeader();
            RpcRdmaDecodeException e = org.assertj.core.api.Assertions.catchThrowableOfType(
                    RpcRdmaDecodeException.class, () -> RpcRdmaDecoder.decode(in, header));
            assertThat(e).as("%d of %d bytes received", length, bytes.length).isNotNull();
        }
    }

    @Test
    void fewerThanFourBytesCannotBeAnsweredAtAll() {
        RpcRdmaDecodeException e = decodeFailure(Hex.bytes("000001"));

        assertThat(e.reason()).isEqualTo(Reason.TRUNCATED);
        assertThat(e.hasXid()).isFalse();
        assertThat(e.response()).isEqualTo(Response.DROP);
        assertThat(e.getMessage()).contains("no xid");
        ByteBuf out = Unpooled.buffer();
        assertThat(RpcRdmaEncoder.encodeErrorReply(out, e, 32)).isZero();
        assertThat(out.readableBytes()).isZero();
        out.release();
    }

    @Test
    void shortFixedHeaderIsAnsweredWithErrChunk() {
        RpcRdmaDecodeException e = decodeFailure(Hex.bytes("0000abcd 00000001 0000"));

        assertThat(e.reason()).isEqualTo(Reason.TRUNCATED);
        assertThat(e.xid()).isEqualTo(0xabcd);
        assertThat(e.offset()).isEqualTo(RpcRdmaLayout.CREDITS_OFFSET);
        ByteBuf out = Unpooled.buffer();
        assertThat(RpcRdmaEncoder.encodeErrorReply(out, e, 16)).isEqualTo(20);
        assertThat(Hex.hex(out)).isEqualTo("0000abcd" + "00000001" + "00000010" + "00000004" + "00000002");
        out.release();
    }

    // ------------------------------------------------------------------------------- counts vs. bytes left

    @Test
    void aMillionSegmentsInFortyBytesFailFastWithoutGrowing() {
        byte[] hostile = Hex.bytes("00000042 00000001 00000020 00000000 | 00000000 | 00000001 000f4240"
                + "| 00000001 00000002 00000003");
        assertThat(hostile).hasSize(40);
        RpcRdmaHeader header = new RpcRdmaHeader();
        int capacityBefore = header.wire().capacity();
        ByteBuf in = Hex.buffer(hostile);
        for (int i = 0; i < 1000; i++) { // warm up, so that the measurement below sees the steady state
            tryDecode(in, header);
        }
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();

        RpcRdmaDecodeException e = tryDecode(in, header);

        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertThat(e.reason()).isEqualTo(Reason.COUNT_EXCEEDS_BUFFER);
        assertThat(e.response()).isEqualTo(Response.ERR_CHUNK);
        assertThat(e.xid()).isEqualTo(0x42);
        assertThat(e.offset()).isEqualTo(24);
        assertThat(e.getMessage()).contains("1000000 segments", "12 bytes remain");
        assertThat(header.wire().capacity()).isEqualTo(capacityBefore);
        // the exception and its message, not 16 MB of segment arrays
        assertThat(allocated).isLessThan(16 * 1024);
    }

    @Test
    void replyChunkCountLargerThanTheBytesLeftIsRefused() {
        RpcRdmaDecodeException e = decodeFailure(Hex.bytes(
                "00000043 00000001 00000020 00000001 | 00000000 | 00000000 | 00000001 ffffffff | 00000000"));

        assertThat(e.reason()).isEqualTo(Reason.COUNT_EXCEEDS_BUFFER);
        assertThat(e.response()).isEqualTo(Response.ERR_CHUNK);
        assertThat(e.xid()).isEqualTo(0x43);
        assertThat(e.offset()).isEqualTo(28);
        assertThat(e.getMessage()).contains("4294967295 segments");
    }

    @Test
    void writeChunkCountOneMoreThanTheBytesHoldIsRefused() {
        // two segments claimed, exactly one present, then the list terminator and the reply discriminator
        RpcRdmaDecodeException e = decodeFailure(Hex.bytes("00000044 00000001 00000020 00000000 | 00000000"
                + "| 00000001 00000002 00000001 00000010 0000000000000000 | 00000000 | 00000000"));

        assertThat(e.reason()).isEqualTo(Reason.COUNT_EXCEEDS_BUFFER);
        assertThat(e.offset()).isEqualTo(24);
    }

    @Test
    void readListEntryCutShortIsRefused() {
        RpcRdmaDecodeException e = decodeFailure(Hex.bytes(
                "00000045 00000001 00000020 00000000 | 00000001 00000000 00000001 00000010 0000"));

        assertThat(e.reason()).isEqualTo(Reason.TRUNCATED);
        assertThat(e.response()).isEqualTo(Response.ERR_CHUNK);
        assertThat(e.offset()).isEqualTo(20);
    }

    // ---------------------------------------------------------------------------------------- positions

    @ParameterizedTest
    @ValueSource(strings = {"00000002", "00000001", "00000083", "80000001", "ffffffff"})
    void misalignedPositionIsRefused(String position) {
        RpcRdmaDecodeException e = decodeFailure(Hex.bytes("00000046 00000001 00000020 00000000"
                + "| 00000001" + position + "00000001 00000010 0000000000000000 | 00000000 | 00000000 | 00000000"));

        assertThat(e.reason()).isEqualTo(Reason.MISALIGNED_POSITION);
        assertThat(e.response()).isEqualTo(Response.ERR_CHUNK);
        assertThat(e.xid()).isEqualTo(0x46);
        assertThat(e.offset()).isEqualTo(20);
        assertThat(e.getMessage()).contains("position " + Integer.toUnsignedString(Integer.parseUnsignedInt(position, 16)));
    }

    @Test
    void decreasingPositionIsRefused() {
        RpcRdmaDecodeException e = decodeFailure(Hex.bytes("00000047 00000001 00000020 00000000"
                + "| 00000001 00000008 00000001 00000010 0000000000000000"
                + "| 00000001 00000004 00000002 00000010 0000000000000000"
                + "| 00000000 | 00000000 | 00000000"));

        assertThat(e.reason()).isEqualTo(Reason.DECREASING_POSITION);
        assertThat(e.response()).isEqualTo(Response.ERR_CHUNK);
        assertThat(e.xid()).isEqualTo(0x47);
        assertThat(e.offset()).isEqualTo(44);
    }

    @Test
    void positionsCompareUnsigned() throws Exception {
        RpcRdmaHeader h = decodeOk("00000048 00000001 00000020 00000000"
                + "| 00000001 7ffffffc 00000001 00000010 0000000000000000"
                + "| 00000001 80000000 00000002 00000010 0000000000000000"
                + "| 00000000 | 00000000 | 00000000");
        assertThat(h.readChunkCount()).isEqualTo(2);

        RpcRdmaDecodeException e = decodeFailure(Hex.bytes("00000049 00000001 00000020 00000000"
                + "| 00000001 80000000 00000001 00000010 0000000000000000"
                + "| 00000001 00000000 00000002 00000010 0000000000000000"
                + "| 00000000 | 00000000 | 00000000"));
        assertThat(e.reason()).isEqualTo(Reason.DECREASING_POSITION);
    }

    @Test
    void readChunksWithAndWithoutXdrPadAreBothAccepted() throws Exception {
        // 5 data bytes: unpadded length 5, padded length 8; the position is what is checked, not the length
        for (String length : List.of("00000005", "00000008")) {
            RpcRdmaHeader h = decodeOk("0000004a 00000001 00000020 00000000"
                    + "| 00000001 00000078 00000001" + length + "0000000000000000 | 00000000 | 00000000 | 00000000");
            assertThat(h.readChunkLength(0)).isEqualTo(Integer.parseInt(length, 16));
        }
    }

    // --------------------------------------------------------------------------------------------- limits

    @Test
    void readSegmentLimit() throws Exception {
        RpcRdmaLimits limits = RpcRdmaLimits.DEFAULT.withMaxReadSegments(2);
        String two = readEntry(4, 1) + readEntry(8, 2);

        assertThat(decodeOk(listsHeader(two, "", null), limits).readSegmentCount()).isEqualTo(2);
        RpcRdmaDecodeException e = decodeFailureWith(listsHeader(two + readEntry(12, 3), "", null), limits);
        assertThat(e.reason()).isEqualTo(Reason.TOO_MANY_READ_SEGMENTS);
        assertThat(e.response()).isEqualTo(Response.ERR_CHUNK);
        assertThat(e.offset()).isEqualTo(16 + 2 * 24);
    }

    @Test
    void segmentsPerReadChunkLimit() throws Exception {
        RpcRdmaLimits limits = RpcRdmaLimits.DEFAULT.withMaxSegmentsPerChunk(2);

        assertThat(decodeOk(listsHeader(readEntry(4, 1) + readEntry(4, 2) + readEntry(8, 3), "", null), limits)
                .readChunkCount()).isEqualTo(2);
        RpcRdmaDecodeException e = decodeFailureWith(
                listsHeader(readEntry(4, 1) + readEntry(4, 2) + readEntry(4, 3), "", null), limits);
        assertThat(e.reason()).isEqualTo(Reason.TOO_MANY_SEGMENTS_IN_CHUNK);
        assertThat(e.response()).isEqualTo(Response.ERR_CHUNK);
    }

    @Test
    void writeChunkLimit() throws Exception {
        RpcRdmaLimits limits = RpcRdmaLimits.DEFAULT.withMaxWriteChunks(2);
        String empty = "00000001 00000000";

        assertThat(decodeOk(listsHeader("", empty + empty, null), limits).writeChunkCount()).isEqualTo(2);
        RpcRdmaDecodeException e = decodeFailureWith(listsHeader("", empty + empty + empty, null), limits);
        assertThat(e.reason()).isEqualTo(Reason.TOO_MANY_WRITE_CHUNKS);
        assertThat(e.response()).isEqualTo(Response.ERR_CHUNK);
        assertThat(e.offset()).isEqualTo(20 + 16);
    }

    @Test
    void segmentsPerWriteAndReplyChunkLimit() throws Exception {
        RpcRdmaLimits limits = RpcRdmaLimits.DEFAULT.withMaxSegmentsPerChunk(2);

        assertThat(decodeOk(listsHeader("", writeChunk(2), chunk(2)), limits).totalSegmentCount()).isEqualTo(4);
        RpcRdmaDecodeException write = decodeFailureWith(listsHeader("", writeChunk(3), null), limits);
        assertThat(write.reason()).isEqualTo(Reason.TOO_MANY_SEGMENTS_IN_CHUNK);
        assertThat(write.getMessage()).contains("Write chunk 0");
        RpcRdmaDecodeException reply = decodeFailureWith(listsHeader("", "", chunk(3)), limits);
        assertThat(reply.reason()).isEqualTo(Reason.TOO_MANY_SEGMENTS_IN_CHUNK);
        assertThat(reply.getMessage()).contains("Reply chunk");
    }

    @Test
    void totalSegmentLimit() throws Exception {
        RpcRdmaLimits limits = RpcRdmaLimits.DEFAULT.withMaxSegments(3);
        String reads = readEntry(0, 1) + readEntry(0, 2);

        assertThat(decodeOk(listsHeader(reads, writeChunk(1), null), limits).totalSegmentCount()).isEqualTo(3);
        RpcRdmaDecodeException write = decodeFailureWith(listsHeader(reads, writeChunk(2), null), limits);
        assertThat(write.reason()).isEqualTo(Reason.TOO_MANY_SEGMENTS);
        RpcRdmaDecodeException reply = decodeFailureWith(listsHeader(reads, writeChunk(1), chunk(1)), limits);
        assertThat(reply.reason()).isEqualTo(Reason.TOO_MANY_SEGMENTS);
        RpcRdmaDecodeException read = decodeFailureWith(
                listsHeader(reads + readEntry(4, 3) + readEntry(8, 4), "", null), limits);
        assertThat(read.reason()).isEqualTo(Reason.TOO_MANY_SEGMENTS);
    }

    @Test
    void defaultLimitsCarryOneMebibyteAsFourKibibytePages() throws Exception {
        // 1 MiB that does not start on a page boundary spans 257 pages
        StringBuilder reads = new StringBuilder();
        for (int i = 0; i < 257; i++) {
            reads.append(readEntry(128, i));
        }
        RpcRdmaHeader h = decodeOk(listsHeader(reads.toString(), writeChunk(257), chunk(257)), RpcRdmaLimits.DEFAULT);

        assertThat(h.readChunkSegmentCount(0)).isEqualTo(257);
        assertThat(h.writeSegmentCount(0)).isEqualTo(257);
        assertThat(h.replySegmentCount()).isEqualTo(257);
        int perChunk = RpcRdmaLimits.DEFAULT.maxSegmentsPerChunk();
        assertThat(decodeFailureWith(listsHeader("", writeChunk(perChunk + 1), null), RpcRdmaLimits.DEFAULT).reason())
                .isEqualTo(Reason.TOO_MANY_SEGMENTS_IN_CHUNK);
    }

    // ------------------------------------------------------------------------------- version and procedure

    @ParameterizedTest
    @ValueSource(strings = {"00000000", "00000002", "ffffffff", "01000000"})
    void otherVersionsAreAnsweredWithErrVersOneToOne(String vers) {
        RpcRdmaDecodeException e = decodeFailure(Hex.bytes("0000004b" + vers + "00000020 00000000"
                + "| 00000000 | 00000000 | 00000000"));

        assertThat(e.reason()).isEqualTo(Reason.BAD_VERSION);
        assertThat(e.response()).isEqualTo(Response.ERR_VERS);
        assertThat(e.response().errorCode()).isEqualTo(RpcRdmaErrorCode.ERR_VERS);
        assertThat(e.xid()).isEqualTo(0x4b);
        assertThat(e.offset()).isEqualTo(RpcRdmaLayout.VERS_OFFSET);
        assertThat(e.versLow()).isEqualTo(1);
        assertThat(e.versHigh()).isEqualTo(1);
        ByteBuf out = Unpooled.buffer();
        assertThat(RpcRdmaEncoder.encodeErrorReply(out, e, 32)).isEqualTo(28);
        assertThat(Hex.hex(out)).isEqualTo("0000004b 00000001 00000020 00000004 00000001 00000001 00000001"
                .replace(" ", ""));
        out.release();
    }

    @Test
    void otherVersionIsRecognisedFromTheFirstEightBytes() {
        RpcRdmaDecodeException e = decodeFailure(Hex.bytes("0000004c 00000002"));

        assertThat(e.reason()).isEqualTo(Reason.BAD_VERSION);
        assertThat(e.response()).isEqualTo(Response.ERR_VERS);
    }

    @Test
    void errorsOfOtherVersionsAreNotAnswered() {
        RpcRdmaDecodeException chunk = decodeFailure(Hex.bytes("0000004d 00000002 00000020 00000004 00000002"));
        assertThat(chunk.reason()).isEqualTo(Reason.BAD_VERSION);
        assertThat(chunk.response()).isEqualTo(Response.DROP);

        RpcRdmaDecodeException shortVers = decodeFailure(Hex.bytes("0000004e 00000002 00000020 00000004 00000001"));
        assertThat(shortVers.response()).isEqualTo(Response.DROP);
    }

    @ParameterizedTest
    @ValueSource(strings = {"00000005", "00000006", "80000000", "ffffffff"})
    void unknownProcIsAnsweredWithErrChunk(String proc) {
        RpcRdmaDecodeException e = decodeFailure(Hex.bytes("0000004f 00000001 00000020" + proc
                + "| 00000000 | 00000000 | 00000000"));

        assertThat(e.reason()).isEqualTo(Reason.UNKNOWN_PROC);
        assertThat(e.response()).isEqualTo(Response.ERR_CHUNK);
        assertThat(e.xid()).isEqualTo(0x4f);
        assertThat(e.offset()).isEqualTo(RpcRdmaLayout.PROC_OFFSET);
        assertThat(e.getMessage()).contains("rdma_proc " + Integer.toUnsignedString(Integer.parseUnsignedInt(proc, 16)));
    }

    // ------------------------------------------------------------------------------------ discriminators

    @ParameterizedTest
    @ValueSource(strings = {"00000002", "ffffffff", "00000100"})
    void discriminatorsOtherThanZeroOrOneAreRefused(String bad) {
        assertBadDiscriminator("00000050 00000001 00000020 00000000 |" + bad + "| 00000000 | 00000000", 16);
        assertBadDiscriminator("00000050 00000001 00000020 00000000 | 00000000 |" + bad + "| 00000000", 20);
        assertBadDiscriminator("00000050 00000001 00000020 00000000 | 00000000 | 00000001 00000000" + bad
                + "| 00000000", 28);
        assertBadDiscriminator("00000050 00000001 00000020 00000000 | 00000000 | 00000000 |" + bad, 24);
        assertBadDiscriminator("00000050 00000001 00000020 00000000 |" + readEntry(0, 1) + bad
                + "| 00000000 | 00000000", 40);
    }

    private static void assertBadDiscriminator(String hex, int offset) {
        RpcRdmaDecodeException e = decodeFailure(Hex.bytes(hex));
        assertThat(e.reason()).as(hex).isEqualTo(Reason.BAD_DISCRIMINATOR);
        assertThat(e.response()).isEqualTo(Response.ERR_CHUNK);
        assertThat(e.xid()).isEqualTo(0x50);
        assertThat(e.offset()).as(hex).isEqualTo(offset);
    }

    // -------------------------------------------------------------------------------------- RDMA_ERROR body

    @ParameterizedTest
    @ValueSource(strings = {"00000000", "00000003", "ffffffff"})
    void unknownErrorCodeIsRefusedAndNotAnswered(String code) {
        RpcRdmaDecodeException e = decodeFailure(Hex.bytes("00000051 00000001 00000020 00000004" + code));

        assertThat(e.reason()).isEqualTo(Reason.UNKNOWN_ERROR_CODE);
        assertThat(e.response()).isEqualTo(Response.DROP);
        assertThat(e.xid()).isEqualTo(0x51);
        assertThat(e.offset()).isEqualTo(RpcRdmaLayout.ERROR_CODE_OFFSET);
        ByteBuf out = Unpooled.buffer();
        assertThat(RpcRdmaEncoder.encodeErrorReply(out, e, 1)).isZero();
        out.release();
    }

    @Test
    void errVersWithoutHighIsTruncated() {
        RpcRdmaDecodeException e = decodeFailure(Hex.bytes("00000052 00000001 00000020 00000004 00000001 00000001"));

        assertThat(e.reason()).isEqualTo(Reason.TRUNCATED);
        assertThat(e.offset()).isEqualTo(RpcRdmaLayout.ERROR_VERS_HIGH_OFFSET);
        assertThat(e.response()).isEqualTo(Response.DROP);
    }

    // -------------------------------------------------------------------------------------------- helpers

    /** One Read list entry: 1, position, handle, length 0x10, offset 0. */
    static String readEntry(int position, int handle) {
        return String.format("00000001 %08x %08x 00000010 0000000000000000 ", position, handle);
    }

    /** Body of a chunk of {@code n} segments: count and segments (without the leading discriminator). */
    static String chunk(int n) {
        StringBuilder sb = new StringBuilder(String.format("%08x ", n));
        for (int i = 0; i < n; i++) {
            sb.append(String.format("%08x 00001000 %016x ", 0x100 + i, 0x1000L * i));
        }
        return sb.toString();
    }

    /** An RDMA_MSG header (xid 0x60) from Read list entries, Write list entries and an optional Reply chunk body. */
    static byte[] listsHeader(String readEntries, String writeEntries, String replyChunk) {
        return Hex.bytes("00000060 00000001 00000020 00000000" + readEntries + "00000000" + writeEntries
                + "00000000" + (replyChunk == null ? "00000000" : "00000001" + replyChunk));
    }

    /** One Write list entry of {@code n} segments. */
    static String writeChunk(int n) {
        return "00000001 " + chunk(n);
    }

    private static RpcRdmaHeader decodeOk(String hex) throws RpcRdmaDecodeException {
        return decodeOk(Hex.bytes(hex), RpcRdmaLimits.DEFAULT);
    }

    private static RpcRdmaHeader decodeOk(byte[] bytes, RpcRdmaLimits limits) throws RpcRdmaDecodeException {
        RpcRdmaHeader header = new RpcRdmaHeader(limits);
        ByteBuf in = Hex.buffer(bytes);
        assertThat(RpcRdmaDecoder.decode(in, header)).isEqualTo(bytes.length);
        return header;
    }

    private static RpcRdmaDecodeException decodeFailureWith(byte[] bytes, RpcRdmaLimits limits) {
        ByteBuf in = Hex.buffer(bytes);
        RpcRdmaDecodeException e = org.assertj.core.api.Assertions.catchThrowableOfType(
                RpcRdmaDecodeException.class, () -> RpcRdmaDecoder.decode(in, new RpcRdmaHeader(limits)));
        assertThat(e).as("decoding %s must fail", Hex.hex(bytes)).isNotNull();
        assertThat(in.readerIndex()).isZero();
        return e;
    }

    private static RpcRdmaDecodeException tryDecode(ByteBuf in, RpcRdmaHeader header) {
        try {
            RpcRdmaDecoder.decode(in, header);
        } catch (RpcRdmaDecodeException e) {
            return e;
        }
        throw new AssertionError("decode succeeded");
    }
}
