package org.rpcrdma4j.it.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.codec.RpcRdmaEncoder;
import org.rpcrdma4j.codec.RpcRdmaHeader;
import org.rpcrdma4j.codec.RpcRdmaProc;

/**
 * MPA, DDP/RDMAP and RPC-over-RDMA reassembly on traffic built here: the CRC test vector of PROTOCOLS.md B.3,
 * multi-segment Sends whose segments arrive in any order, tagged messages interleaved with untagged ones, and a
 * whole synthetic conversation (with CRC, through pcap and TCP) whose read and write chunks the trace must fill in.
 */
class IwarpPipelineTest {
    private static final InetSocketAddress CLIENT = new InetSocketAddress("10.0.0.1", 40000);
    private static final InetSocketAddress SERVER = new InetSocketAddress("10.0.0.2", 20049);

    // ------------------------------------------------------------------------------- building the wire

    static byte[] untagged(int opcode, boolean last, int rsvdUlp, int qn, long msn, long mo, byte[] payload) {
        return ByteBuffer.allocate(18 + payload.length).put((byte) ((last ? 0x40 : 0) | 0x01))
                .put((byte) (0x40 | opcode)).putInt(rsvdUlp).putInt(qn).putInt((int) msn).putInt((int) mo)
                .put(payload).array();
    }

    static byte[] tagged(int opcode, boolean last, int stag, long to, byte[] payload) {
        return ByteBuffer.allocate(14 + payload.length).put((byte) (0x80 | (last ? 0x40 : 0) | 0x01))
                .put((byte) (0x40 | opcode)).putInt(stag).putLong(to).put(payload).array();
    }

    static byte[] fpdu(byte[] ulpdu, boolean crc) {
        int pad = (4 - ((ulpdu.length + 2) & 3)) & 3;
        ByteBuffer b = ByteBuffer.allocate(2 + ulpdu.length + pad + 4);
        b.putShort((short) ulpdu.length).put(ulpdu).put(new byte[pad]);
        if (crc) {
            CRC32C c = new CRC32C();
            c.update(b.array(), 0, b.position());
            b.order(ByteOrder.LITTLE_ENDIAN).putInt((int) c.getValue());
        }
        return b.array();
    }

    static byte[] mpa(boolean request, int flags, byte[] privateData) {
        return ByteBuffer.allocate(20 + privateData.length)
                .put((request ? "MPA ID Req Frame" : "MPA ID Rep Frame").getBytes())
                .put((byte) flags).put((byte) 2).putShort((short) privateData.length).put(privateData).array();
    }

    private static TcpStream stream(byte[] bytes) throws CaptureFormatException {
        List<TcpSegment> s = List.of(new TcpSegment(1, CLIENT, SERVER, 0, TcpSegment.SYN, new byte[0]),
                new TcpSegment(2, CLIENT, SERVER, 1, TcpSegment.ACK, bytes));
        return TcpReassembler.reassembleSegments(s).get(0).clientToServer();
    }

    // ------------------------------------------------------------------------------------------- MPA

    /** PROTOCOLS.md B.3: an untagged last Send with payload deadbeef has the CRC bytes ce 19 59 f1 on the wire. */
    @Test
    void theCrcTestVector() throws Exception {
        byte[] wire = ByteBufUtil.decodeHexDump("0016414300000000000000000000000100000000deadbeefce1959f1");
        assertThat(fpdu(ByteBufUtil.decodeHexDump("414300000000000000000000000100000000deadbeef"), true))
                .isEqualTo(wire);
        List<DdpSegment> segments = FpduParser.parse(stream(wire), 0, true);
        assertThat(segments).hasSize(1);
        DdpSegment s = segments.get(0);
        assertThat(s.tagged()).isFalse();
        assertThat(s.last()).isTrue();
        assertThat(s.opcode()).isEqualTo(RdmapMessage.SEND);
        assertThat(s.queueNumber()).isZero();
        assertThat(s.msn()).isEqualTo(1);
        assertThat(s.payload()).isEqualTo(ByteBufUtil.decodeHexDump("deadbeef"));

        byte[] bad = wire.clone();
        bad[bad.length - 1] ^= 1;
        assertThatThrownBy(() -> FpduParser.parse(stream(bad), 0, true)).isInstanceOf(CaptureFormatException.class)
                .hasMessageContaining("CRC");
        assertThat(FpduParser.parse(stream(bad), 0, false)).hasSize(1); // without CRC the field is not looked at
    }

    @Test
    void truncatedFpdusAndBadVersionsAreRefused() {
        byte[] send = fpdu(untagged(RdmapMessage.SEND, true, 0, 0, 1, 0, new byte[10]), false);
        assertThatThrownBy(() -> FpduParser.parse(stream(Arrays.copyOf(send, send.length - 1)), 0, false))
                .isInstanceOf(CaptureFormatException.class).hasMessageContaining("truncated");
        byte[] ddpV2 = send.clone();
        ddpV2[2] = (byte) 0x42;
        assertThatThrownBy(() -> FpduParser.parse(stream(ddpV2), 0, false))
                .isInstanceOf(CaptureFormatException.class).hasMessageContaining("DDP version 2");
        byte[] rdmapV0 = send.clone();
        rdmapV0[3] = (byte) 0x03;
        assertThatThrownBy(() -> FpduParser.parse(stream(rdmapV0), 0, false))
                .isInstanceOf(CaptureFormatException.class).hasMessageContaining("RDMAP version");
    }

    // ------------------------------------------------------------------------------------------ RDMAP

    private static DdpSegment segment(byte[] ulpdu, int frame) throws CaptureFormatException {
        DdpSegment s = FpduParser.parse(stream(fpdu(ulpdu, false)), 0, false).get(0);
        return new DdpSegment(frame, s.streamOffset(), s.tagged(), s.last(), s.opcode(), s.stag(), s.taggedOffset(),
                s.queueNumber(), s.msn(), s.messageOffset(), s.payload());
    }

    @Test
    void sendsTaggedMessagesAndReadRequestsReassemble() throws Exception {
        byte[] a = "first part, ".getBytes();
        byte[] b = "second part, ".getBytes();
        byte[] c = "last".getBytes();
        byte[] rreq = ByteBuffer.allocate(28).putInt(0x99).putLong(0x5000).putInt(10).putInt(0x1234).putLong(0x1000)
                .array();
        List<DdpSegment> segments = new ArrayList<>(List.of(
                segment(untagged(RdmapMessage.SEND_INVALIDATE, false, 0xABCD, 0, 5, 0, a), 1),
                segment(tagged(RdmapMessage.WRITE, false, 0x77, 0x2000, new byte[] {1, 2}), 2),
                // the Send's last segment before its middle one: placed by MO
                segment(untagged(RdmapMessage.SEND_INVALIDATE, true, 0xABCD, 0, 5, a.length + b.length, c), 3),
                segment(tagged(RdmapMessage.WRITE, true, 0x77, 0x2002, new byte[] {3}), 4),
                segment(untagged(RdmapMessage.SEND_INVALIDATE, false, 0xABCD, 0, 5, a.length, b), 5),
                segment(untagged(RdmapMessage.READ_REQUEST, true, 0, 1, 1, 0, rreq), 6),
                segment(untagged(RdmapMessage.SEND, true, 0, 0, 6, 0, new byte[] {9}), 7)));
        List<RdmapMessage> messages = RdmapAssembler.assemble("test", segments);
        assertThat(messages).hasSize(4);
        RdmapMessage.Tagged write = (RdmapMessage.Tagged) messages.get(0);
        assertThat(write.stag()).isEqualTo(0x77);
        assertThat(write.taggedOffset()).isEqualTo(0x2000);
        assertThat(write.payload()).containsExactly(1, 2, 3);
        assertThat(write.frame()).isEqualTo(4);
        RdmapMessage.Send send = (RdmapMessage.Send) messages.get(1);
        assertThat(new String(send.payload())).isEqualTo("first part, second part, last");
        assertThat(send.invalidates()).isTrue();
        assertThat(send.invalidateStag()).isEqualTo(0xABCD);
        assertThat(send.segments()).isEqualTo(3);
        assertThat(send.frame()).isEqualTo(5);
        RdmapMessage.ReadRequest r = (RdmapMessage.ReadRequest) messages.get(2);
        assertThat(r.sinkStag()).isEqualTo(0x99);
        assertThat(r.sinkOffset()).isEqualTo(0x5000);
        assertThat(r.size()).isEqualTo(10);
        assertThat(r.sourceStag()).isEqualTo(0x1234);
        assertThat(r.sourceOffset()).isEqualTo(0x1000);
        assertThat(((RdmapMessage.Send) messages.get(3)).msn()).isEqualTo(6);
    }

    @Test
    void rdmapRuleBreakersAreRefused() throws Exception {
        List<DdpSegment> interleavedTagged = List.of(
                segment(tagged(RdmapMessage.WRITE, false, 0x77, 0x2000, new byte[] {1, 2}), 1),
                segment(tagged(RdmapMessage.WRITE, true, 0x78, 0x2002, new byte[] {3}), 2));
        assertThatThrownBy(() -> RdmapAssembler.assemble("test", interleavedTagged))
                .isInstanceOf(CaptureFormatException.class).hasMessageContaining("does not continue");
        List<DdpSegment> msnGap = List.of(
                segment(untagged(RdmapMessage.SEND, true, 0, 0, 1, 0, new byte[4]), 1),
                segment(untagged(RdmapMessage.SEND, true, 0, 0, 3, 0, new byte[4]), 2));
        assertThatThrownBy(() -> RdmapAssembler.assemble("test", msnGap))
                .isInstanceOf(CaptureFormatException.class).hasMessageContaining("MSN 2 expected");
        List<DdpSegment> unfinished = List.of(segment(untagged(RdmapMessage.SEND, false, 0, 0, 1, 0, new byte[4]), 1));
        assertThatThrownBy(() -> RdmapAssembler.assemble("test", unfinished))
                .isInstanceOf(CaptureFormatException.class).hasMessageContaining("never finished");
        List<DdpSegment> sendOnQueue1 = List.of(segment(untagged(RdmapMessage.SEND, true, 0, 1, 1, 0, new byte[4]), 1));
        assertThatThrownBy(() -> RdmapAssembler.assemble("test", sendOnQueue1))
                .isInstanceOf(CaptureFormatException.class).hasMessageContaining("queue 1");
        List<DdpSegment> shortReadRequest = List.of(
                segment(untagged(RdmapMessage.READ_REQUEST, true, 0, 1, 1, 0, new byte[20]), 1));
        assertThatThrownBy(() -> RdmapAssembler.assemble("test", shortReadRequest))
                .isInstanceOf(CaptureFormatException.class).hasMessageContaining("28-byte");
    }

    // ------------------------------------------------------------------------------ a whole conversation

    /**
     * With CRC negotiated: a call whose 10-byte data item travels in a Read chunk (pulled with a Read Request whose
     * Read Response comes in two segments), and a call whose reply data travels in a Write chunk (two RDMA Writes),
     * answered with Send With Invalidate. TCP segments arrive out of order and one is retransmitted.
     */
    @Test
    void aSyntheticConversationThroughPcapTcpMpaDdpAndRpcOverRdma() throws Exception {
        byte[] item = "0123456789".getBytes();
        byte[] written = "twenty bytes of data".getBytes();
        // call 1: RPC call header (40 bytes), 8 bytes of arguments, then the item's length word; item via Read chunk
        byte[] rpc1 = ByteBuffer.allocate(40 + 8 + 4).putInt(0x11).putInt(0).putInt(2).putInt(100003).putInt(3)
                .putInt(7).putLong(0).putLong(0).putLong(0x0102030405060708L).putInt(item.length).array();
        RpcRdmaHeader h1 = new RpcRdmaHeader().xid(0x11).credits(8).proc(RpcRdmaProc.RDMA_MSG)
                .addReadSegment(52, 0x1234, item.length, 0x1000);
        byte[] reply1 = ByteBuffer.allocate(24).putInt(0x11).putInt(1).putInt(0).putLong(0).putInt(0).array();
        RpcRdmaHeader r1 = new RpcRdmaHeader().xid(0x11).credits(8).proc(RpcRdmaProc.RDMA_MSG);
        // call 2: its reply's item goes into a 64-byte Write chunk; the reply reports 20 bytes written
        byte[] rpc2 = ByteBuffer.allocate(40).putInt(0x12).putInt(0).putInt(2).putInt(100003).putInt(3).putInt(6)
                .putLong(0).putLong(0).array();
        RpcRdmaHeader h2 = new RpcRdmaHeader().xid(0x12).credits(8).proc(RpcRdmaProc.RDMA_MSG)
                .beginWriteChunk().addWriteSegment(0x777, 64, 0x2000);
        byte[] reply2 = ByteBuffer.allocate(28).putInt(0x12).putInt(1).putInt(0).putLong(0).putInt(0)
                .putInt(written.length).array();
        RpcRdmaHeader r2 = new RpcRdmaHeader().xid(0x12).credits(8).proc(RpcRdmaProc.RDMA_MSG)
                .beginWriteChunk().addWriteSegment(0x777, written.length, 0x2000);

        byte[] send1 = concat(encode(h1), rpc1);
        byte[] rreq = ByteBuffer.allocate(28).putInt(0x99).putLong(0x5000).putInt(item.length).putInt(0x1234)
                .putLong(0x1000).array();
        List<byte[]> client = List.of(
                mpa(true, 0x50, new byte[] {0, 16, 0, 16}),
                fpdu(untagged(RdmapMessage.SEND, false, 0, 0, 1, 0, Arrays.copyOf(send1, 30)), true),
                fpdu(untagged(RdmapMessage.SEND, true, 0, 0, 1, 30, Arrays.copyOfRange(send1, 30, send1.length)),
                        true),
                concat(fpdu(tagged(RdmapMessage.READ_RESPONSE, false, 0x99, 0x5000, Arrays.copyOf(item, 6)), true),
                        fpdu(tagged(RdmapMessage.READ_RESPONSE, true, 0x99, 0x5006, Arrays.copyOfRange(item, 6, 10)),
                                true)),
                fpdu(untagged(RdmapMessage.SEND, true, 0, 0, 2, 0, concat(encode(h2), rpc2)), true));
        List<byte[]> server = List.of(
                mpa(false, 0x50, new byte[] {0, 16, 0, 16}),
                fpdu(untagged(RdmapMessage.READ_REQUEST, true, 0, 1, 1, 0, rreq), true),
                fpdu(untagged(RdmapMessage.SEND, true, 0, 0, 1, 0, concat(encode(r1), reply1)), true),
                concat(fpdu(tagged(RdmapMessage.WRITE, false, 0x777, 0x2000, Arrays.copyOf(written, 8)), true),
                        fpdu(tagged(RdmapMessage.WRITE, true, 0x777, 0x2008, Arrays.copyOfRange(written, 8, 20)),
                                true),
                        fpdu(untagged(RdmapMessage.SEND_INVALIDATE, true, 0x777, 0, 2, 0,
                                concat(encode(r2), reply2)), true)));
        // the wire, in causal order: request, reply, call 1, RDMA Read, its response, reply 1, call 2, reply 2
        int[][] order = {{0, 0}, {1, 0}, {0, 1}, {0, 2}, {1, 1}, {0, 3}, {1, 2}, {0, 4}, {1, 3}};
        PcapWriter pcap = new PcapWriter().segment(CLIENT, SERVER, 1000, TcpSegment.SYN, new byte[0])
                .segment(SERVER, CLIENT, 5000, TcpSegment.SYN | TcpSegment.ACK, new byte[0]);
        long[] seq = {1001, 5001};
        for (int[] o : order) {
            boolean up = o[0] == 0;
            byte[] bytes = (up ? client : server).get(o[1]);
            InetSocketAddress from = up ? CLIENT : SERVER;
            InetSocketAddress to = up ? SERVER : CLIENT;
            int half = bytes.length / 2;
            // the second half first, then the first half, then the first half again (a retransmission)
            pcap.segment(from, to, seq[o[0]] + half, TcpSegment.ACK, Arrays.copyOfRange(bytes, half, bytes.length));
            pcap.segment(from, to, seq[o[0]], TcpSegment.ACK, Arrays.copyOf(bytes, half));
            pcap.segment(from, to, seq[o[0]], TcpSegment.ACK, Arrays.copyOf(bytes, half));
            seq[o[0]] += bytes.length;
        }

        List<IwarpConnection> connections = IwarpCapture.connections(TcpReassembler.reassemble(
                PcapFile.parse(pcap.toByteArray())));
        assertThat(connections).hasSize(1);
        IwarpConnection c = connections.get(0);
        assertThat(c.crc()).isTrue();
        assertThat(c.request().ird()).isEqualTo(16);
        RpcRdmaTrace trace = RpcRdmaTrace.of(c);
        assertThat(trace.messages()).hasSize(4);
        List<RpcRdmaExchange> exchanges = trace.exchanges();
        assertThat(exchanges).hasSize(2);

        RpcRdmaMessage call1 = exchanges.get(0).call();
        assertThat(call1.isCall()).isTrue();
        assertThat(call1.dataItemReadChunk()).isZero();
        assertThat(call1.readChunkData(0)).isEqualTo(item);
        assertThat(call1.rpcHeader().procedure()).isEqualTo(7);
        byte[] unreduced = call1.unreducedCall();
        assertThat(unreduced).hasSize(rpc1.length + 12); // the item and 2 bytes of XDR pad
        assertThat(Arrays.copyOfRange(unreduced, 52, 62)).isEqualTo(item);
        assertThat(exchanges.get(0).reply().header().xid()).isEqualTo(0x11);

        RpcRdmaExchange second = exchanges.get(1);
        assertThat(second.reply().send().invalidates()).isTrue();
        assertThat(second.reply().writeChunkData(0)).isEqualTo(written);
        byte[] whole = second.reply().unreducedReply(28);
        assertThat(Arrays.copyOfRange(whole, 28, 48)).isEqualTo(written);
        assertThat(whole).hasSize(28 + 20);
        assertThatThrownBy(() -> second.call().writeChunkData(0)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aReplyWhoseWriteChunkWasNotWrittenIsRefused() throws Exception {
        RpcRdmaHeader r = new RpcRdmaHeader().xid(0x12).credits(8).proc(RpcRdmaProc.RDMA_MSG)
                .beginWriteChunk().addWriteSegment(0x777, 20, 0x2000);
        byte[] call = ByteBuffer.allocate(40).putInt(0x12).putInt(0).putInt(2).putInt(100003).putInt(3).putInt(6)
                .putLong(0).putLong(0).array();
        byte[] reply = ByteBuffer.allocate(28).putInt(0x12).putInt(1).putInt(0).putLong(0).putInt(0).putInt(20)
                .array();
        byte[] client = concat(mpa(true, 0x10, new byte[4]),
                fpdu(untagged(RdmapMessage.SEND, true, 0, 0, 1, 0, concat(encode(
                        new RpcRdmaHeader().xid(0x12).proc(RpcRdmaProc.RDMA_MSG).beginWriteChunk()
                                .addWriteSegment(0x777, 64, 0x2000)), call)), false));
        byte[] server = concat(mpa(false, 0x10, new byte[4]),
                fpdu(tagged(RdmapMessage.WRITE, true, 0x777, 0x2000, new byte[12]), false), // only 12 of 20 bytes
                fpdu(untagged(RdmapMessage.SEND, true, 0, 0, 1, 0, concat(encode(r), reply)), false));
        PcapWriter pcap = new PcapWriter().segment(CLIENT, SERVER, 1, TcpSegment.ACK, client)
                .segment(SERVER, CLIENT, 1, TcpSegment.ACK, server);
        IwarpConnection c = IwarpCapture.connections(TcpReassembler.reassemble(PcapFile.parse(pcap.toByteArray())))
                .get(0);
        assertThatThrownBy(() -> RpcRdmaTrace.of(c)).isInstanceOf(CaptureFormatException.class)
                .hasMessageContaining("was not all written");
    }

    /**
     * Linux siw answers some zero-length Read Requests (placement probes) with bytes at the right sink: counted and
     * left out of every chunk. A Read Response longer than a non-zero request is still refused.
     */
    @Test
    void aZeroLengthReadAnsweredWithBytesIsCountedAndIgnored() throws Exception {
        byte[] call = ByteBuffer.allocate(40).putInt(0x21).putInt(0).putInt(2).putInt(100003).putInt(3).putInt(0)
                .putLong(0).putLong(0).array();
        byte[] reply = ByteBuffer.allocate(24).putInt(0x21).putInt(1).putInt(0).putLong(0).putInt(0).array();
        RpcRdmaHeader h = new RpcRdmaHeader().xid(0x21).credits(8).proc(RpcRdmaProc.RDMA_MSG);
        for (int size : new int[] {0, 10}) {
            byte[] probe = ByteBuffer.allocate(28).putInt(1).putLong(0).putInt(size).putInt(1).putLong(0).array();
            byte[] client = concat(mpa(true, 0x10, new byte[] {0, 16, 0, 0}),
                    fpdu(untagged(RdmapMessage.SEND, true, 0, 0, 1, 0, concat(encode(h), call)), false),
                    fpdu(tagged(RdmapMessage.READ_RESPONSE, true, 1, 0, new byte[24]), false));
            byte[] server = concat(mpa(false, 0x10, new byte[] {0, 0, 0, 16}),
                    fpdu(untagged(RdmapMessage.SEND, true, 0, 0, 1, 0, concat(encode(h), reply)), false),
                    fpdu(untagged(RdmapMessage.READ_REQUEST, true, 0, 1, 1, 0, probe), false));
            PcapWriter pcap = new PcapWriter().segment(CLIENT, SERVER, 1, TcpSegment.ACK, client)
                    .segment(SERVER, CLIENT, 1, TcpSegment.ACK, server);
            IwarpConnection c = IwarpCapture.connections(TcpReassembler.reassemble(
                    PcapFile.parse(pcap.toByteArray()))).get(0);
            if (size == 0) {
                RpcRdmaTrace trace = RpcRdmaTrace.of(c);
                assertThat(trace.overlongZeroLengthReadResponses()).isEqualTo(1);
                assertThat(trace.exchanges()).hasSize(1);
                assertThat(trace.exchanges().get(0).reply().header().xid()).isEqualTo(0x21);
            } else {
                assertThatThrownBy(() -> RpcRdmaTrace.of(c)).isInstanceOf(CaptureFormatException.class)
                        .hasMessageContaining("does not answer");
            }
        }
    }

    private static byte[] encode(RpcRdmaHeader h) {
        ByteBuf b = Unpooled.buffer();
        RpcRdmaEncoder.encode(b, h);
        return ByteBufUtil.getBytes(b);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
