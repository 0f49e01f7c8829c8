package org.rpcrdma4j.it.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/** The capture file formats and the frame decoder, on files built here byte by byte. */
class PcapFileTest {
    private static final InetSocketAddress A = new InetSocketAddress("10.0.0.1", 40000);
    private static final InetSocketAddress B = new InetSocketAddress("10.0.0.2", 20049);

    @Test
    void classicPcapInBothByteOrdersAndResolutions() throws Exception {
        for (ByteOrder order : new ByteOrder[] {ByteOrder.LITTLE_ENDIAN, ByteOrder.BIG_ENDIAN}) {
            for (boolean nanos : new boolean[] {false, true}) {
                ByteBuffer b = ByteBuffer.allocate(24 + 2 * (16 + 3)).order(order);
                b.putInt(nanos ? 0xA1B23C4D : 0xA1B2C3D4).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0)
                        .putInt(65535).putInt(PcapFile.LINKTYPE_RAW);
                b.putInt(7).putInt(5).putInt(3).putInt(3).put(new byte[] {1, 2, 3});
                b.putInt(8).putInt(6).putInt(3).putInt(9).put(new byte[] {4, 5, 6});
                List<CapturedFrame> frames = PcapFile.parse(b.array());
                assertThat(frames).hasSize(2);
                assertThat(frames.get(0).number()).isEqualTo(1);
                assertThat(frames.get(0).timestampNanos()).isEqualTo(7_000_000_000L + (nanos ? 5 : 5000));
                assertThat(frames.get(1).data()).containsExactly(4, 5, 6);
                assertThat(frames.get(1).isComplete()).isFalse();
                assertThat(frames.get(1).linkType()).isEqualTo(PcapFile.LINKTYPE_RAW);
            }
        }
    }

    @Test
    void pcapngWithTwoInterfacesOptionsAndForeignBlocks() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(block(0x0A0D0D0A, ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN)
                .putInt(0x1A2B3C4D).putShort((short) 1).putShort((short) 0).putLong(-1).array()));
        out.writeBytes(block(1, ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN)
                .putShort((short) PcapFile.LINKTYPE_ETHERNET).putShort((short) 0).putInt(0).array()));
        // second interface: raw IP, if_tsresol = 10^-9, then opt_endofopt
        out.writeBytes(block(1, ByteBuffer.allocate(8 + 8 + 4).order(ByteOrder.LITTLE_ENDIAN)
                .putShort((short) PcapFile.LINKTYPE_RAW).putShort((short) 0).putInt(0)
                .putShort((short) 9).putShort((short) 1).put((byte) 9).put(new byte[3]).putInt(0).array()));
        out.writeBytes(block(0x0BAD, new byte[8])); // a custom block: skipped
        out.writeBytes(block(6, epb(1, 5_000_000_123L, new byte[] {9, 8, 7, 6, 5})));
        out.writeBytes(block(3, ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(3)
                .put(new byte[] {1, 2, 3, 0}).array())); // Simple Packet Block: interface 0
        List<CapturedFrame> frames = PcapFile.parse(gzip(out.toByteArray()));
        assertThat(frames).hasSize(2);
        assertThat(frames.get(0).linkType()).isEqualTo(PcapFile.LINKTYPE_RAW);
        assertThat(frames.get(0).timestampNanos()).isEqualTo(5_000_000_123L);
        assertThat(frames.get(0).data()).containsExactly(9, 8, 7, 6, 5);
        assertThat(frames.get(1).linkType()).isEqualTo(PcapFile.LINKTYPE_ETHERNET);
        assertThat(frames.get(1).data()).containsExactly(1, 2, 3);
    }

    @Test
    void truncatedOrCorruptFilesAreRefused() {
        byte[] good = new PcapWriter().segment(A, B, 1, TcpSegment.ACK, new byte[100]).toByteArray();
        for (int cut : new int[] {2, 20, 30, good.length - 1}) {
            assertThatThrownBy(() -> PcapFile.parse(Arrays.copyOf(good, cut)))
                    .isInstanceOf(CaptureFormatException.class);
        }
        byte[] huge = good.clone();
        ByteBuffer.wrap(huge).order(ByteOrder.LITTLE_ENDIAN).putInt(24 + 8, Integer.MAX_VALUE); // captured length
        assertThatThrownBy(() -> PcapFile.parse(huge)).isInstanceOf(CaptureFormatException.class)
                .hasMessageContaining("runs past the end");
        assertThatThrownBy(() -> PcapFile.parse(new byte[] {1, 2, 3, 4, 5})).isInstanceOf(CaptureFormatException.class);
    }

    @Test
    void framesDecodeToTcp() throws Exception {
        List<CapturedFrame> frames = PcapFile.parse(new PcapWriter()
                .segment(A, B, 0xFFFFFFF0L, TcpSegment.SYN, new byte[0])
                .segment(B, A, 77, TcpSegment.ACK | TcpSegment.PSH, new byte[] {1, 2, 3}).toByteArray());
        TcpSegment syn = FrameDecoder.tcp(frames.get(0));
        assertThat(syn.source()).isEqualTo(A);
        assertThat(syn.target()).isEqualTo(B);
        assertThat(syn.seq()).isEqualTo(0xFFFFFFF0L);
        assertThat(syn.has(TcpSegment.SYN)).isTrue();
        TcpSegment data = FrameDecoder.tcp(frames.get(1));
        assertThat(data.payload()).containsExactly(1, 2, 3);
        assertThat(data.frame()).isEqualTo(2);
    }

    @Test
    void ethernetPaddingVlanTagsAndIpOptions() throws Exception {
        // Ethernet + 802.1Q tag + IPv4 with 4 bytes of options + TCP with 12 bytes of options + 2 payload bytes,
        // then Ethernet padding that is not part of the IP packet
        ByteBuffer f = ByteBuffer.allocate(14 + 4 + 24 + 32 + 2 + 10);
        f.put(new byte[12]).putShort((short) 0x8100).putShort((short) 5).putShort((short) 0x0800);
        f.put((byte) 0x46).put((byte) 0).putShort((short) (24 + 32 + 2)).putInt(0).put((byte) 64).put((byte) 6)
                .putShort((short) 0).put(new byte[] {10, 0, 0, 1}).put(new byte[] {10, 0, 0, 2}).putInt(0x01010101);
        f.putShort((short) 40000).putShort((short) 20049).putInt(5).putInt(0).put((byte) 0x80).put((byte) 0x18)
                .putShort((short) 100).putInt(0).put(new byte[12]).put(new byte[] {42, 43});
        CapturedFrame frame = new CapturedFrame(1, 0, PcapFile.LINKTYPE_ETHERNET, f.array(), f.capacity());
        TcpSegment s = FrameDecoder.tcp(frame);
        assertThat(s.payload()).containsExactly(42, 43);
        assertThat(s.seq()).isEqualTo(5);
        assertThat(s.source()).isEqualTo(A);
    }

    @Test
    void nonTcpFramesAreSkippedAndFragmentsRefused() throws Exception {
        byte[] ip = new PcapWriter().segment(A, B, 1, TcpSegment.ACK, new byte[4]).toByteArray();
        byte[] frame = Arrays.copyOfRange(ip, 24 + 16, ip.length);
        byte[] udp = frame.clone();
        udp[14 + 9] = 17;
        assertThat(FrameDecoder.tcp(new CapturedFrame(1, 0, PcapFile.LINKTYPE_ETHERNET, udp, udp.length))).isNull();
        byte[] arp = frame.clone();
        arp[12] = 0x08;
        arp[13] = 0x06;
        assertThat(FrameDecoder.tcp(new CapturedFrame(1, 0, PcapFile.LINKTYPE_ETHERNET, arp, arp.length))).isNull();
        byte[] fragment = frame.clone();
        fragment[14 + 6] = 0x20; // more fragments
        assertThatThrownBy(() -> FrameDecoder.tcp(new CapturedFrame(1, 0, PcapFile.LINKTYPE_ETHERNET, fragment,
                fragment.length))).isInstanceOf(CaptureFormatException.class).hasMessageContaining("fragment");
        byte[] cut = Arrays.copyOf(frame, frame.length - 2);
        assertThatThrownBy(() -> FrameDecoder.tcp(new CapturedFrame(1, 0, PcapFile.LINKTYPE_ETHERNET, cut,
                frame.length))).isInstanceOf(CaptureFormatException.class).hasMessageContaining("snap length");
    }

    private static byte[] block(int type, byte[] body) {
        int total = 12 + body.length;
        return ByteBuffer.allocate(total).order(ByteOrder.LITTLE_ENDIAN).putInt(type).putInt(total).put(body)
                .putInt(total).array();
    }

    private static byte[] epb(int iface, long ts, byte[] data) {
        int padded = (data.length + 3) & ~3;
        return ByteBuffer.allocate(20 + padded).order(ByteOrder.LITTLE_ENDIAN).putInt(iface).putInt((int) (ts >>> 32))
                .putInt((int) ts).putInt(data.length).putInt(data.length).put(data).array();
    }

    private static byte[] gzip(byte[] b) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(out)) {
            z.write(b);
        }
        return out.toByteArray();
    }
}
