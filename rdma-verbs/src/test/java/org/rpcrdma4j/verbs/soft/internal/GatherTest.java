package org.rpcrdma4j.verbs.soft.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The gather list: positions restored before every write, and cutting the stream at an FPDU boundary. */
class GatherTest {
    private ServerSocketChannel server;
    private SocketChannel out;
    private SocketChannel in;
    private final Gather gather = new Gather();

    @BeforeEach
    void connect() throws IOException {
        server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        out = SocketChannel.open(server.getLocalAddress());
        in = server.accept();
    }

    @AfterEach
    void close() throws IOException {
        out.close();
        in.close();
        server.close();
    }

    /** Adds an FPDU of {@code n} payload bytes valued {@code v}, its header and trailer one byte each. */
    private void fpdu(ByteBuffer shared, int offset, int n, int v, boolean complete) {
        ByteBuffer h = gather.nextHeader();
        h.put(0, (byte) ('H' + v));
        gather.add(h, 0, 1);
        for (int i = 0; i < n; i++) {
            shared.put(offset + i, (byte) v);
        }
        gather.add(shared, offset, offset + n);
        if (complete) {
            ByteBuffer t = gather.nextTrailer();
            t.put(0, (byte) ('T' + v));
            gather.add(t, 0, 1);
            gather.fpduEnd();
        }
    }

    private byte[] received(int n) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(n);
        while (b.hasRemaining()) {
            in.read(b);
        }
        return b.array();
    }

    private byte[] untilEnd() throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        ByteBuffer b = ByteBuffer.allocate(256);
        while (in.read(b.clear()) >= 0) {
            all.write(b.array(), 0, b.position());
        }
        return all.toByteArray();
    }

    private static byte[] expected(int... fpdus) {
        ByteArrayOutputStream s = new ByteArrayOutputStream();
        for (int i = 0; i < fpdus.length; i += 2) {
            int v = fpdus[i];
            s.write('H' + v);
            for (int k = 0; k < fpdus[i + 1]; k++) {
                s.write(v);
            }
            s.write('T' + v);
        }
        return s.toByteArray();
    }

    @Test
    void writesEntriesAtTheirRangesEvenIfTheBufferMovedMeanwhile() throws IOException {
        ByteBuffer shared = ByteBuffer.allocateDirect(64);
        fpdu(shared, 0, 5, 1, true);
        shared.position(60).limit(61);
        assertThat(gather.write(out)).isTrue();
        assertThat(received(7)).isEqualTo(expected(1, 5));
        assertThat(gather.count()).isZero();
    }

    @Test
    void cutKeepsTheFpduBeingWrittenAndDropsTheRest() throws IOException {
        ByteBuffer a = ByteBuffer.allocateDirect(64);
        ByteBuffer b = ByteBuffer.allocateDirect(64);
        fpdu(a, 0, 10, 1, true);
        fpdu(b, 0, 10, 2, true);
        gather.budget(3);
        assertThat(gather.write(out)).isFalse();
        assertThat(gather.cutAfterCurrentFpdu(false)).isTrue();
        gather.budget(-1);
        assertThat(gather.write(out)).isTrue();
        out.shutdownOutput();
        assertThat(untilEnd()).isEqualTo(expected(1, 10));
    }

    @Test
    void cutBeforeAnythingWasWrittenDropsEverything() throws IOException {
        ByteBuffer a = ByteBuffer.allocateDirect(64);
        fpdu(a, 0, 10, 1, true);
        assertThat(gather.cutAfterCurrentFpdu(false)).isTrue();
        assertThat(gather.write(out)).isTrue();
        out.shutdownOutput();
        assertThat(untilEnd()).isEmpty();
    }

    @Test
    void anOpenFpduPartlyWrittenMustBeCompleted() throws IOException {
        ByteBuffer a = ByteBuffer.allocateDirect(64);
        fpdu(a, 0, 10, 1, false);
        gather.budget(4);
        assertThat(gather.write(out)).isFalse();
        assertThat(gather.cutAfterCurrentFpdu(true)).isFalse();
    }

    @Test
    void aContinuationIsNotAnFpduStart() throws IOException {
        ByteBuffer a = ByteBuffer.allocateDirect(64);
        ByteBuffer b = ByteBuffer.allocateDirect(64);
        fpdu(a, 0, 10, 1, false);
        assertThat(gather.write(out)).isTrue();
        gather.continuesFpdu(true);
        gather.add(a, 10, 12);
        ByteBuffer t = gather.nextTrailer();
        t.put(0, (byte) 'U');
        gather.add(t, 0, 1);
        gather.fpduEnd();
        fpdu(b, 0, 4, 2, true);
        assertThat(gather.cutAfterCurrentFpdu(false)).as("the continued FPDU stays, the next goes").isTrue();
        assertThat(gather.write(out)).isTrue();
        out.shutdownOutput();
        byte[] got = untilEnd();
        assertThat(got).hasSize(1 + 10 + 2 + 1);
        assertThat(got[0]).isEqualTo((byte) 'I');
        assertThat(got[got.length - 1]).isEqualTo((byte) 'U');
    }
}
