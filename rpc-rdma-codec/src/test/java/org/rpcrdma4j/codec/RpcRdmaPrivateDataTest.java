package org.rpcrdma4j.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** RFC 8797 private data vectors. */
class RpcRdmaPrivateDataTest {

    @Test
    void clientWithRemoteInvalidationAndFourKibibytesEachWay() {
        byte[] wire = Hex.bytes("f6ab0e18 01 01 03 03");

        RpcRdmaPrivateData pd = RpcRdmaPrivateData.decode(wire).orElseThrow();

        assertThat(pd.remoteInvalidation()).isTrue();
        assertThat(pd.flags()).isEqualTo(1);
        assertThat(pd.inlineSendSize()).isEqualTo(4096);
        assertThat(pd.inlineReceiveSize()).isEqualTo(4096);
        assertThat(RpcRdmaPrivateData.of(true, 4096, 4096).encode()).isEqualTo(wire);
        assertThat(RpcRdmaPrivateData.of(true, 4096, 4096)).isEqualTo(pd);
    }

    @Test
    void linuxServerSendsNoFlagsAndFourKibibytes() {
        byte[] wire = Hex.bytes("f6ab0e18 01 00 03 03");

        RpcRdmaPrivateData pd = RpcRdmaPrivateData.decode(wire).orElseThrow();

        assertThat(pd.remoteInvalidation()).isFalse();
        assertThat(pd.inlineSendSize()).isEqualTo(4096);
        assertThat(pd.inlineReceiveSize()).isEqualTo(4096);
        assertThat(RpcRdmaPrivateData.of(false, 4096, 4096).encode()).isEqualTo(wire);
    }

    @Test
    void boundsAreOneAndTwoHundredFiftySixKibibytes() {
        byte[] wire = Hex.bytes("f6ab0e18 01 00 00 ff");

        RpcRdmaPrivateData pd = RpcRdmaPrivateData.decode(wire).orElseThrow();

        assertThat(pd.inlineSendSize()).isEqualTo(1024);
        assertThat(pd.inlineReceiveSize()).isEqualTo(262144);
        assertThat(RpcRdmaPrivateData.of(false, 1024, 256 * 1024).encode()).isEqualTo(wire);
    }

    @ParameterizedTest
    @CsvSource({
        "1024, 0", "2048, 1", "4096, 3", "65536, 63", "262144, 255",
        "4095, 2", "1025, 0", // not a whole KiB: rounds down
        "1023, 0", "0, 0", "-1, 0", "-2147483648, 0", // below 1 KiB: clamps up to 1 KiB
        "262145, 255", "1048576, 255", "2147483647, 255" // above 256 KiB: clamps down to 256 KiB
    })
    void sizeEncodingRoundsDownAndClamps(int bytes, int encoded) {
        assertThat(RpcRdmaPrivateData.encodeSize(bytes)).isEqualTo(encoded);
    }

    @Test
    void sizeDecodingCoversEveryByte() {
        for (int enc = 0; enc < 256; enc++) {
            int bytes = RpcRdmaPrivateData.decodeSize(enc);
            assertThat(bytes).isEqualTo((enc + 1) * 1024);
            assertThat(RpcRdmaPrivateData.encodeSize(bytes)).isEqualTo(enc);
            assertThat(RpcRdmaPrivateData.decodeSize((byte) enc)).isEqualTo(bytes);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "f6ab0e19 01 01 03 03", // magic
        "18 0e ab f6 01 01 03 03", // magic in the wrong byte order
        "f6ab0e18 02 01 03 03", // version 2
        "f6ab0e18 00 01 03 03", // version 0
        "f6ab0e18 01 01 03", // 7 bytes
        "f6ab0e18", // magic only
        "" // nothing
    })
    void anythingElseIsNoPrivateData(String hex) {
        byte[] wire = Hex.bytes(hex);

        assertThat(RpcRdmaPrivateData.decode(wire)).isEmpty();
        ByteBuf buf = Unpooled.wrappedBuffer(wire);
        assertThat(RpcRdmaPrivateData.decode(buf)).isEmpty();
        buf.release();
    }

    @Test
    void nullIsNoPrivateData() {
        assertThat(RpcRdmaPrivateData.decode((byte[]) null)).isEmpty();
        assertThat(RpcRdmaPrivateData.decode((ByteBuf) null)).isEmpty();
    }

    @Test
    void trailingBytesAreIgnoredAndOffsetsRespected() {
        byte[] wire = Hex.bytes("0000 f6ab0e18 01 01 07 0f ffffffff");

        RpcRdmaPrivateData pd = RpcRdmaPrivateData.decode(wire, 2, wire.length - 2).orElseThrow();
        assertThat(pd.inlineSendSize()).isEqualTo(8192);
        assertThat(pd.inlineReceiveSize()).isEqualTo(16384);
        assertThat(RpcRdmaPrivateData.decode(wire, 2, 7)).isEmpty();

        ByteBuf buf = Unpooled.wrappedBuffer(wire).skipBytes(2);
        assertThat(RpcRdmaPrivateData.decode(buf)).contains(pd);
        assertThat(buf.readerIndex()).isEqualTo(2);
        buf.release();
    }

    @Test
    void unknownFlagBitsAreKeptAsReceived() {
        RpcRdmaPrivateData pd = RpcRdmaPrivateData.decode(Hex.bytes("f6ab0e18 01 83 00 00")).orElseThrow();

        assertThat(pd.flags()).isEqualTo(0x83);
        assertThat(pd.remoteInvalidation()).isTrue();
        assertThat(pd.encode()).isEqualTo(Hex.bytes("f6ab0e18 01 83 00 00"));
    }

    @Test
    void encodeIntoAByteBuf() {
        ByteBuf out = Unpooled.buffer();

        assertThat(RpcRdmaPrivateData.of(true, 3000, 70000).encode(out)).isEqualTo(8);

        assertThat(Hex.hex(out)).isEqualTo("f6ab0e18" + "01" + "01" + "01" + "43");
        out.release();
    }

    @Test
    void peerSizesCapTheLocalOnesAndDefaultsApplyWithoutPrivateData() {
        RpcRdmaPrivateData server = RpcRdmaPrivateData.decode(Hex.bytes("f6ab0e18 01 00 03 03")).orElseThrow();

        assertThat(server.sendLimit(8192)).isEqualTo(4096);
        assertThat(server.receiveLimit(2048)).isEqualTo(2048);

        Optional<RpcRdmaPrivateData> none = RpcRdmaPrivateData.decode(Hex.bytes("00000000 00000000"));
        RpcRdmaPrivateData peer = none.orElse(RpcRdmaPrivateData.V1_DEFAULTS);
        assertThat(peer.sendLimit(8192)).isEqualTo(RpcRdmaPrivateData.DEFAULT_INLINE);
        assertThat(peer.receiveLimit(8192)).isEqualTo(1024);
        assertThat(peer.remoteInvalidation()).isFalse();
    }
}
