package org.rpcrdma4j.verbs.soft.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The framing helpers against the byte vectors of the protocol notes (MPA, CRC, DDP/RDMAP, Terminate). */
class WireFormatTest {
    private static final HexFormat HEX = HexFormat.of();

    private static String hex(ByteBuffer b, int from, int to) {
        byte[] bytes = new byte[to - from];
        b.get(from, bytes);
        return HEX.formatHex(bytes);
    }

    @Test
    void mpaRequestWithEnhancedBlockAndRfc8797PrivateData() {
        byte[] ulp = HEX.parseHex("f6ab0e1801010303");
        byte[] frame = MpaFrame.encode(false, MpaFrame.FLAG_ENHANCED, 2, MpaFrame.enhancedPrivateData(128, 0, ulp));
        assertThat(HEX.formatHex(frame))
                .isEqualTo("4d504120494420526571204672616d65" + "10" + "02" + "000c" + "0080" + "0000" + "f6ab0e1801010303");
    }

    @Test
    void mpaReplyFromKnfsdDecodes() throws Exception {
        byte[] reply = HEX.parseHex("4d504120494420526570204672616d65" + "1002000c" + "00100010" + "f6ab0e1801000303");
        MpaFrame.Header h = MpaFrame.header(ByteBuffer.wrap(reply), 0, true);
        assertThat(h.reply()).isTrue();
        assertThat(h.revision()).isEqualTo(2);
        assertThat(h.enhanced()).isTrue();
        assertThat(h.crc()).isFalse();
        assertThat(h.markers()).isFalse();
        assertThat(h.rejected()).isFalse();
        assertThat(h.privateDataLength()).isEqualTo(12);
    }

    @Test
    void rejectReplyOfARevisionOneRequest() throws Exception {
        MpaFrame.Header h = MpaFrame.header(ByteBuffer.wrap(HEX.parseHex("4d504120494420526570204672616d65"
                + "20010000")), 0, true);
        assertThat(h.rejected()).isTrue();
        assertThat(h.revision()).isEqualTo(1);
        assertThat(h.enhanced()).isFalse();
    }

    @Test
    void wrongKeysRevisionsAndLengthsAreRefused() {
        byte[] request = MpaFrame.encode(false, 0, 1, new byte[0]);
        assertThatThrownBy(() -> MpaFrame.header(ByteBuffer.wrap(request), 0, true))
                .isInstanceOf(MpaProtocolException.class).hasMessageContaining("Reply");
        byte[] junk = "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        assertThatThrownBy(() -> MpaFrame.header(ByteBuffer.wrap(junk), 0, false))
                .isInstanceOf(MpaProtocolException.class);
        byte[] rev3 = MpaFrame.encode(false, 0, 1, new byte[0]);
        rev3[17] = 3;
        assertThatThrownBy(() -> MpaFrame.header(ByteBuffer.wrap(rev3), 0, false))
                .isInstanceOf(MpaProtocolException.class).hasMessageContaining("revision 3");
        byte[] longPd = MpaFrame.encode(false, 0, 1, new byte[0]);
        longPd[18] = 0x01;
        longPd[19] = 0x01;
        assertThatThrownBy(() -> MpaFrame.header(ByteBuffer.wrap(longPd), 0, false))
                .isInstanceOf(MpaProtocolException.class).hasMessageContaining("257");
        assertThatThrownBy(() -> MpaFrame.encode(false, 0, 1, new byte[257]))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void crcTestVector() {
        ByteBuffer fpdu = ByteBuffer.wrap(HEX.parseHex("0016" + "4143" + "00000000" + "00000000" + "00000001"
                + "00000000" + "deadbeef" + "00000000"));
        int value = Fpdu.crcOf(fpdu, 0);
        assertThat(value).isEqualTo(0xF15919CE);
        Fpdu.putCrc(fpdu, 24, value);
        assertThat(hex(fpdu, 24, 28)).isEqualTo("ce1959f1");
        assertThat(Fpdu.getCrc(fpdu, 24)).isEqualTo(0xF15919CE);
    }

    @Test
    void crcCheckValue() {
        CRC32C crc = new CRC32C();
        crc.update("123456789".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        assertThat((int) crc.getValue()).isEqualTo(0xE3069283);
    }

    @Test
    void crcUpdateLeavesTheBufferAlone() {
        ByteBuffer b = ByteBuffer.allocateDirect(64).position(5).limit(9);
        CRC32C crc = new CRC32C();
        Fpdu.update(crc, b, 10, 40);
        assertThat(b.position()).isEqualTo(5);
        assertThat(b.limit()).isEqualTo(9);
        CRC32C expected = new CRC32C();
        expected.update(new byte[30]);
        assertThat(crc.getValue()).isEqualTo(expected.getValue());
    }

    @ParameterizedTest
    @CsvSource({"14,0", "15,3", "16,2", "17,1", "18,0", "46,0", "22,0", "1019,3", "1017,1"})
    void padMakesTheFpduAMultipleOfFour(int ulpduLength, int pad) {
        assertThat(Fpdu.padLength(ulpduLength)).isEqualTo(pad);
        assertThat(Fpdu.fpduLength(ulpduLength) % 4).isZero();
    }

    @ParameterizedTest
    @CsvSource({
        "false,true,3,4143", "false,true,4,4144", "false,true,5,4145", "false,true,6,4146",
        "true,true,0,c140", "true,true,2,c142", "false,true,1,4141", "false,true,7,4147",
        "true,false,0,8140", "false,false,3,0143"})
    void firstTwoBytesOfSegments(boolean tagged, boolean last, int opcode, String expected) {
        ByteBuffer b = ByteBuffer.allocate(32);
        if (tagged) {
            Ddp.putTagged(b, 0, last, opcode, 0, 0);
        } else {
            Ddp.putUntagged(b, 0, last, opcode, 0, 0, 1, 0);
        }
        assertThat(hex(b, 0, 2)).isEqualTo(expected);
    }

    @Test
    void taggedHeaderLayout() {
        ByteBuffer b = ByteBuffer.allocate(14);
        Ddp.putTagged(b, 0, true, Rdmap.WRITE, 0x12345678, 0x0102030405060708L);
        assertThat(hex(b, 0, 14)).isEqualTo("c140" + "12345678" + "0102030405060708");
    }

    @Test
    void readRequestLayout() {
        ByteBuffer b = ByteBuffer.allocate(2 + Rdmap.READ_REQUEST_ULPDU_LENGTH);
        b.putShort(0, (short) Rdmap.READ_REQUEST_ULPDU_LENGTH);
        Ddp.putUntagged(b, 2, true, Rdmap.READ_REQUEST, 0, Ddp.QN_READ_REQUEST, 7, 0);
        Rdmap.putReadRequestBody(b, 2, 0xAABBCCDD, 0x1111222233334444L, 65536, 0x01020304, 0x5555666677778888L);
        assertThat(hex(b, 0, 48)).isEqualTo("002e" + "4141" + "00000000" + "00000001" + "00000007" + "00000000"
                + "aabbccdd" + "1111222233334444" + "00010000" + "01020304" + "5555666677778888");
        assertThat(Fpdu.fpduLength(Rdmap.READ_REQUEST_ULPDU_LENGTH)).isEqualTo(52);
        assertThat(Rdmap.queueNumber(Rdmap.READ_REQUEST)).isEqualTo(Ddp.QN_READ_REQUEST);
        assertThat(Rdmap.queueNumber(Rdmap.SEND_SE_INVALIDATE)).isEqualTo(Ddp.QN_SEND);
        assertThat(Rdmap.queueNumber(Rdmap.TERMINATE)).isEqualTo(Ddp.QN_TERMINATE);
        assertThat(Rdmap.queueNumber(Rdmap.WRITE)).isEqualTo(-1);
    }

    @Test
    void terminateControlWordInRfcOrderAndSiwsMirroredOrder() {
        int word = Terminate.controlWord(Terminate.LAYER_RDMAP, Terminate.RDMAP_REMOTE_PROTECTION,
                Terminate.RDMAP_ACCESS_RIGHTS, Terminate.FLAG_M | Terminate.FLAG_D | Terminate.FLAG_R);
        assertThat(word).isEqualTo(0x0102E000);
        Terminate.Reading rfc = Terminate.rfcReading(word);
        assertThat(rfc.layer()).isEqualTo(Terminate.LAYER_RDMAP);
        assertThat(rfc.etype()).isEqualTo(Terminate.RDMAP_REMOTE_PROTECTION);
        assertThat(rfc.code()).isEqualTo(Terminate.RDMAP_ACCESS_RIGHTS);
        assertThat(rfc.m() && rfc.d() && rfc.r()).isTrue();

        int siw = 0x10_02_07_00;
        Terminate.Reading mirrored = Terminate.mirroredReading(siw);
        assertThat(mirrored.layer()).isEqualTo(Terminate.LAYER_RDMAP);
        assertThat(mirrored.etype()).isEqualTo(Terminate.RDMAP_REMOTE_PROTECTION);
        assertThat(mirrored.code()).isEqualTo(Terminate.RDMAP_ACCESS_RIGHTS);
        assertThat(mirrored.m() && mirrored.d() && mirrored.r()).isTrue();
        assertThat(Terminate.rfcReading(siw).layer()).as("the same bytes in RFC order").isEqualTo(1);
    }

    @Test
    void terminateBodyQuotesTheSegment() {
        ByteBuffer quoted = ByteBuffer.allocate(64);
        quoted.putShort(0, (short) 1014);
        Ddp.putTagged(quoted, 2, false, Rdmap.WRITE, 0x00ABCD00, 0x1000);
        ByteBuffer body = ByteBuffer.allocate(64);
        Terminate.putBody(body, Terminate.LAYER_DDP, Terminate.DDP_TAGGED_BUFFER, Terminate.DDP_TAGGED_INVALID_STAG,
                Terminate.FLAG_M | Terminate.FLAG_D, quoted, Ddp.TAGGED_HEADER_LENGTH, 0);
        assertThat(body.position()).isEqualTo(4 + 2 + 14);
        assertThat(hex(body, 0, 20)).isEqualTo("1100c000" + "03f6" + "8140" + "00abcd00" + "0000000000001000");
    }

    @Test
    void vendorErrorPacksTheCode() {
        int v = Terminate.vendorError(Terminate.LAYER_DDP, Terminate.DDP_UNTAGGED_BUFFER,
                Terminate.DDP_UNTAGGED_NO_BUFFER, true);
        assertThat(Terminate.isTerminate(v)).isTrue();
        assertThat(Terminate.isReceived(v)).isTrue();
        assertThat(Terminate.layerOf(v)).isEqualTo(1);
        assertThat(Terminate.etypeOf(v)).isEqualTo(2);
        assertThat(Terminate.codeOf(v)).isEqualTo(2);
        assertThat(Terminate.describeVendorError(v)).isEqualTo("received DDP/untagged buffer/0x2");
        assertThat(Terminate.isTerminate(0)).isFalse();
    }
}
