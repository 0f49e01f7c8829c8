package org.rpcrdma4j.it.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** TCP stream reassembly: by sequence number, whatever order, duplication or repacketisation the capture shows. */
class TcpReassemblerTest {
    private static final InetSocketAddress CLIENT = new InetSocketAddress("10.0.0.1", 40000);
    private static final InetSocketAddress SERVER = new InetSocketAddress("10.0.0.2", 20049);

    private static TcpSegment seg(int frame, InetSocketAddress from, InetSocketAddress to, long seq, int flags,
                                  byte[] payload) {
        return new TcpSegment(frame, from, to, seq & 0xFFFFFFFFL, flags, payload);
    }

    @Test
    void outOfOrderRetransmittedAndRepacketisedSegmentsGiveTheSentBytes() throws Exception {
        Random r = new Random(7);
        byte[] sent = new byte[50_000];
        r.nextBytes(sent);
        long isn = 0xFFFFF000L; // the sequence numbers wrap past 2^32 inside the stream
        List<TcpSegment> segments = new ArrayList<>();
        segments.add(seg(1, CLIENT, SERVER, isn, TcpSegment.SYN, new byte[0]));
        segments.add(seg(2, SERVER, CLIENT, 100, TcpSegment.SYN | TcpSegment.ACK, new byte[0]));
        int frame = 3;
        List<int[]> pieces = new ArrayList<>(); // {offset, length}
        for (int at = 0; at < sent.length; ) {
            int n = Math.min(sent.length - at, 1 + r.nextInt(3000));
            pieces.add(new int[] {at, n});
            at += n;
        }
        for (int i = 0; i + 1 < pieces.size(); i += 5) { // swap neighbours: out of order
            int[] t = pieces.get(i);
            pieces.set(i, pieces.get(i + 1));
            pieces.set(i + 1, t);
        }
        for (int[] p : pieces) {
            segments.add(seg(frame++, CLIENT, SERVER, isn + 1 + p[0], TcpSegment.ACK,
                    Arrays.copyOfRange(sent, p[0], p[0] + p[1])));
            if (r.nextInt(6) == 0) { // a retransmission, repacketised: it starts earlier and overlaps
                int from = Math.max(0, p[0] - 100);
                segments.add(seg(frame++, CLIENT, SERVER, isn + 1 + from, TcpSegment.ACK,
                        Arrays.copyOfRange(sent, from, p[0] + p[1])));
            }
        }
        segments.add(seg(frame, SERVER, CLIENT, 101, TcpSegment.ACK, new byte[] {1, 2}));
        List<TcpConnection> connections = TcpReassembler.reassembleSegments(segments);
        assertThat(connections).hasSize(1);
        TcpConnection c = connections.get(0);
        assertThat(c.client()).isEqualTo(CLIENT);
        assertThat(c.clientToServer().bytes(0, c.clientToServer().length())).isEqualTo(sent);
        assertThat(c.serverToClient().bytes(0, 2)).containsExactly(1, 2);
        assertThat(c.clientToServer().retransmittedSegments()).isPositive();
        // the first data frame carried the second piece (swapped): the first bytes came with a later frame
        assertThat(c.clientToServer().deliveredBy(0)).isGreaterThan(3);
        assertThat(c.clientToServer().deliveredBy(0)).isEqualTo(c.clientToServer().deliveredBy(pieces.get(0)[0]));
        assertThat(c.clientToServer().deliveredBy(sent.length - 1)).isLessThanOrEqualTo(frame - 1);
    }

    @Test
    void aRetransmissionThatDisagreesIsRefused() {
        List<TcpSegment> segments = List.of(
                seg(1, CLIENT, SERVER, 1000, TcpSegment.SYN, new byte[0]),
                seg(2, CLIENT, SERVER, 1001, TcpSegment.ACK, new byte[] {1, 2, 3, 4}),
                seg(3, CLIENT, SERVER, 1003, TcpSegment.ACK, new byte[] {3, 9, 5}));
        assertThatThrownBy(() -> TcpReassembler.reassembleSegments(segments))
                .isInstanceOf(CaptureFormatException.class).hasMessageContaining("differ");
    }

    @Test
    void aHoleIsRefused() {
        List<TcpSegment> segments = List.of(
                seg(1, CLIENT, SERVER, 1000, TcpSegment.SYN, new byte[0]),
                seg(2, CLIENT, SERVER, 1001, TcpSegment.ACK, new byte[] {1, 2, 3, 4}),
                seg(3, CLIENT, SERVER, 1010, TcpSegment.ACK, new byte[] {5}));
        assertThatThrownBy(() -> TcpReassembler.reassembleSegments(segments))
                .isInstanceOf(CaptureFormatException.class).hasMessageContaining("hole of 5 bytes at stream offset 4");
    }

    @Test
    void withoutTheHandshakeTheLowestSequenceNumberStartsTheStream() throws Exception {
        List<TcpSegment> segments = List.of(
                seg(1, CLIENT, SERVER, 510, TcpSegment.ACK, new byte[] {3, 4}),
                seg(2, CLIENT, SERVER, 508, TcpSegment.ACK, new byte[] {1, 2}));
        TcpConnection c = TcpReassembler.reassembleSegments(segments).get(0);
        assertThat(c.clientToServer().bytes(0, 4)).containsExactly(1, 2, 3, 4);
        assertThat(c.clientToServer().deliveredBy(0)).isEqualTo(2);
    }

    @Test
    void aNewSynOnTheSameEndpointsStartsANewConnection() throws Exception {
        List<TcpSegment> segments = List.of(
                seg(1, CLIENT, SERVER, 1000, TcpSegment.SYN, new byte[0]),
                seg(2, CLIENT, SERVER, 1001, TcpSegment.ACK | TcpSegment.FIN, new byte[] {1}),
                seg(3, CLIENT, SERVER, 90_000, TcpSegment.SYN, new byte[0]),
                seg(4, CLIENT, SERVER, 90_001, TcpSegment.ACK, new byte[] {2}));
        List<TcpConnection> connections = TcpReassembler.reassembleSegments(segments);
        assertThat(connections).hasSize(2);
        assertThat(connections.get(0).clientToServer().bytes(0, 1)).containsExactly(1);
        assertThat(connections.get(0).clientToServer().finished()).isTrue();
        assertThat(connections.get(1).clientToServer().bytes(0, 1)).containsExactly(2);
    }
}
