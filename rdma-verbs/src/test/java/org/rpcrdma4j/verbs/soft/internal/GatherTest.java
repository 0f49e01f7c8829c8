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
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.soft.SoftIwarpOptions;

/**
 * The gather list: positions restored before every write, cutting the stream at an FPDU boundary, and dropping the
 * pieces of memory that changed since its check.
 */
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

    /** Adds a complete FPDU whose payload is {@code n} bytes of {@code region}, guarded at its generation now. */
    private void guardedFpdu(SoftRegion region, int v, int n) {
        ByteBuffer h = gather.nextHeader();
        h.put(0, (byte) ('H' + v));
        gather.add(h, 0, 1);
        gather.guard(region, region.generation());
        gather.add(region.piece(0, 0), 0, n);
        ByteBuffer t = gather.nextTrailer();
        t.put(0, (byte) ('T' + v));
        gather.add(t, 0, 1);
        gather.fpduEnd();
    }

    @Test
    void piecesOfMemoryDeregisteredSinceTheirCheckAreDroppedWithTheirFpdus() throws Exception {
        SoftDevice device = SoftDevice.open(SoftIwarpOptions.defaults());
        try {
            SoftPd pd = (SoftPd) device.allocProtectionDomain();
            SoftRegion kept = (SoftRegion) pd.registerMemory(ByteBuffer.allocateDirect(64), Access.REMOTE_READ);
            SoftRegion revoked = (SoftRegion) pd.registerMemory(ByteBuffer.allocateDirect(64), Access.REMOTE_READ);
            guardedFpdu(kept, 1, 10);
            guardedFpdu(revoked, 2, 10);
            fpdu(ByteBuffer.allocateDirect(64), 0, 4, 3, true);
            assertThat(gather.firstRevoked()).isEqualTo(-1);

            revoked.close();
            assertThat(gather.firstRevoked()).as("the second FPDU's payload").isEqualTo(4);
            assertThat(gather.cutBefore(4)).isTrue();
            assertThat(gather.firstRevoked()).isEqualTo(-1);
            assertThat(gather.write(out)).isTrue();
            out.shutdownOutput();
            assertThat(untilEnd()).hasSize(1 + 10 + 1);
            kept.close();
        } finally {
            device.close();
        }
    }

    @Test
    void anFpduPartlyWrittenCannotBeDroppedForRevokedMemory() throws Exception {
        SoftDevice device = SoftDevice.open(SoftIwarpOptions.defaults());
        try {
            SoftPd pd = (SoftPd) device.allocProtectionDomain();
            SoftRegion revoked = (SoftRegion) pd.registerMemory(ByteBuffer.allocateDirect(64), Access.REMOTE_READ);
            guardedFpdu(revoked, 1, 10);
            gather.budget(4);
            assertThat(gather.write(out)).isFalse();
            revoked.close();
            assertThat(gather.firstRevoked()).isEqualTo(1);
            assertThat(gather.cutBefore(gather.firstRevoked())).isFalse();
        } finally {
            device.close();
        }
    }

    @Test
    void revokedMemoryWhosePiecesAreAllWrittenIsNoLongerInTheWay() throws Exception {
        SoftDevice device = SoftDevice.open(SoftIwarpOptions.defaults());
        try {
            SoftPd pd = (SoftPd) device.allocProtectionDomain();
            SoftRegion revoked = (SoftRegion) pd.registerMemory(ByteBuffer.allocateDirect(64), Access.REMOTE_READ);
            guardedFpdu(revoked, 1, 10);
            fpdu(ByteBuffer.allocateDirect(64), 0, 10, 2, true);
            gather.budget(13);
            assertThat(gather.write(out)).isFalse();
            revoked.close();
            assertThat(gather.firstRevoked()).isEqualTo(-1);
        } finally {
            device.close();
        }
    }
}
