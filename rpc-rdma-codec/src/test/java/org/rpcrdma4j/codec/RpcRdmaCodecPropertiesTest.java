package org.rpcrdma4j.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

/** Properties over arbitrary headers: lists of any shape, unsigned extremes, any procedure. */
class RpcRdmaCodecPropertiesTest {

    @Provide
    Arbitrary<HeaderSpec> headers() {
        return HeaderSpec.headers();
    }

    @Property(tries = 2000)
    void encodeDecodeEncodeRoundTrips(@ForAll("headers") HeaderSpec spec, @ForAll @Size(max = 16) byte[] message)
            throws Exception {
        RpcRdmaHeader original = spec.build();
        int predicted = RpcRdmaEncoder.encodedLength(original);
        ByteBuf wire = Unpooled.buffer();
        wire.writeBytes(Hex.bytes("a5a5")).skipBytes(2); // a header need not start at index 0

        int written = RpcRdmaEncoder.encode(wire, original);
        wire.writeBytes(message);

        assertThat(written).isEqualTo(predicted);
        assertThat(wire.writerIndex()).isEqualTo(2 + predicted + message.length);

        RpcRdmaHeader decoded = new RpcRdmaHeader();
        int consumed = RpcRdmaDecoder.decode(wire, decoded);

        assertThat(consumed).isEqualTo(predicted);
        assertThat(wire.readerIndex()).isEqualTo(2 + predicted);
        assertThat(decoded.contentEquals(original)).as("%s%n%s", original, decoded).isTrue();
        assertThat(Hex.encode(decoded)).isEqualTo(Arrays.copyOfRange(wire.array(), 2, 2 + predicted));
        wire.release();
    }

    @Property(tries = 300)
    void largeHeadersRoundTripThroughAReusedHeader(@ForAll @Size(min = 1, max = 4) List<@From("largeHeaders") HeaderSpec> specs)
            throws Exception {
        RpcRdmaHeader reused = new RpcRdmaHeader();
        for (HeaderSpec spec : specs) {
            RpcRdmaHeader original = spec.build();
            byte[] bytes = Hex.encode(original);
            assertThat(RpcRdmaDecoder.decode(Unpooled.wrappedBuffer(bytes), reused)).isEqualTo(bytes.length);
            assertThat(reused.contentEquals(original)).as("%s%n%s", original, reused).isTrue();
        }
    }

    @Provide
    Arbitrary<HeaderSpec> largeHeaders() {
        return HeaderSpec.largeHeaders();
    }

    @Property(tries = 300)
    void aReusedHeaderKeepsNothingFromEarlierMessages(@ForAll @Size(min = 1, max = 6) List<@From("headers") HeaderSpec> specs)
            throws Exception {
        RpcRdmaHeader reused = new RpcRdmaHeader();
        for (HeaderSpec spec : specs) {
            RpcRdmaHeader original = spec.build();
            RpcRdmaDecoder.decode(Unpooled.wrappedBuffer(Hex.encode(original)), reused);
            assertThat(reused.contentEquals(original)).as("%s%n%s", original, reused).isTrue();
        }
    }

    @Property(tries = 200)
    void everyStrictPrefixOfAnArbitraryHeaderIsRefusedWithATypedException(@ForAll("headers") HeaderSpec spec) {
        byte[] bytes = Hex.encode(spec.build());
        RpcRdmaHeader header = new RpcRdmaHeader();
        for (int length = 0; length < bytes.length; length++) {
            ByteBuf in = Unpooled.wrappedBuffer(bytes, 0, length);
            Throwable thrown = catchThrowable(() -> RpcRdmaDecoder.decode(in, header));
            assertThat(thrown).as("prefix %d of %d", length, bytes.length).isInstanceOf(RpcRdmaDecodeException.class);
            RpcRdmaDecodeException e = (RpcRdmaDecodeException) thrown;
            assertThat(e.reason()).isIn(RpcRdmaDecodeException.Reason.TRUNCATED,
                    RpcRdmaDecodeException.Reason.COUNT_EXCEEDS_BUFFER);
            assertThat(e.hasXid()).isEqualTo(length >= 4);
        }
    }

    @Property(tries = 10_000)
    void mutatedHeadersDecodeOrFailTyped(@ForAll("headers") HeaderSpec spec,
                                         @ForAll @Size(min = 1, max = 4) List<@From("edits") Edit> edits) {
        byte[] bytes = Hex.encode(spec.build());
        for (Edit edit : edits) {
            bytes = edit.apply(bytes);
        }
        FuzzOracle.check(bytes, new RpcRdmaHeader(), "jqwik");
    }

    @Provide
    Arbitrary<Edit> edits() {
        Arbitrary<Integer> where = Arbitraries.integers().between(0, 4096);
        return Arbitraries.oneOf(
                where.map(at -> new Edit(Edit.Kind.FLIP_BIT, at, 0)),
                net.jqwik.api.Combinators.combine(where, Arbitraries.integers().between(0, 255))
                        .as((at, value) -> new Edit(Edit.Kind.INSERT_BYTE, at, value)),
                where.map(at -> new Edit(Edit.Kind.DELETE_BYTE, at, 0)),
                where.map(at -> new Edit(Edit.Kind.TRUNCATE, at, 0)),
                net.jqwik.api.Combinators.combine(where, Arbitraries.of(0, 1, 2, 3, 4, 5, 0x7fffffff, 0x80000000,
                        0xffffffff, 1_000_000, 272, 273)).as((at, value) -> new Edit(Edit.Kind.OVERWRITE_WORD, at, value)));
    }

    /** One mutation of an encoded header; {@code at} is reduced modulo the input's length. */
    record Edit(Kind kind, int at, int value) {

        enum Kind { FLIP_BIT, INSERT_BYTE, DELETE_BYTE, TRUNCATE, OVERWRITE_WORD }

        byte[] apply(byte[] in) {
            switch (kind) {
                case FLIP_BIT:
                    return Mutations.flipBit(in, at);
                case INSERT_BYTE:
                    return Mutations.insertByte(in, at, (byte) value);
                case DELETE_BYTE:
                    return Mutations.deleteByte(in, at);
                case TRUNCATE:
                    return Mutations.truncate(in, at);
                default:
                    return Mutations.overwriteWord(in, at, value);
            }
        }
    }
}
