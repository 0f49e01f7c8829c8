package org.rpcrdma4j.verbs.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * Bulk transfers ({@link #largeTransferBytes()}, 1 GiB by default) by RDMA Write and by RDMA Read through a 16 MiB
 * window whose content changes every round, checked by SHA-256 of everything sent against everything that arrived.
 */
@Timeout(600)
public abstract class AbstractLargeTransferConformanceTest extends VerbsFixture {
    private static final int WINDOW = 16 << 20;
    private static final int MESSAGE = 1 << 20;
    private static final int REMOTE = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;

    /** Bytes each test moves (a multiple of 16 MiB). */
    protected long largeTransferBytes() {
        return 1L << 30;
    }

    /** Changes the window for the next round: a stamp at every 4 KiB (cheap, and every round differs). */
    private static void stamp(ByteBuffer window, int round) {
        for (int i = 0; i < WINDOW; i += 4096) {
            window.putLong(i, ((long) round << 32) | i);
        }
    }

    private static void digest(MessageDigest d, ByteBuffer buffer) {
        d.update(buffer.duplicate().clear());
    }

    @Test
    void rdmaWriteOfALargeAmountArrivesIntact() throws Exception {
        Connection c = connect(new Sizes(64, 4, 1, 0, 256));
        RegisteredMemory source = register(c.client().pd, WINDOW, REMOTE);
        RegisteredMemory sink = register(c.server().pd, WINDOW, REMOTE);
        RegisteredMemory note = register(c.server().pd, 64, Access.LOCAL_WRITE);
        fill(source.buffer(), 41);
        MessageDigest sent = MessageDigest.getInstance("SHA-256");
        MessageDigest arrived = MessageDigest.getInstance("SHA-256");
        long rounds = largeTransferBytes() / WINDOW;
        ByteBuffer src = source.buffer();
        for (int round = 0; round < rounds; round++) {
            stamp(src, round);
            digest(sent, src);
            c.server().qp.postRecv(recv(round, note, 0, 64));
            SendWorkRequest[] wrs = new SendWorkRequest[WINDOW / MESSAGE + 1];
            for (int m = 0; m < WINDOW / MESSAGE; m++) {
                wrs[m] = write(m, source, (long) m * MESSAGE, MESSAGE, sink.rkey(), sink.address((long) m * MESSAGE));
                wrs[m].flags = 0;
            }
            wrs[wrs.length - 1] = send(1000 + round, source, 0, 8);
            c.client().qp.postSend(chain(wrs));
            WorkCompletion r = await(c.server().recvCq);
            assertThat(r.status).isEqualTo(WcStatus.SUCCESS);
            digest(arrived, sink.buffer());
            WorkCompletion s = await(c.client().sendCq);
            assertThat(s.status).isEqualTo(WcStatus.SUCCESS);
        }
        assertThat(HexFormat.of().formatHex(arrived.digest())).isEqualTo(HexFormat.of().formatHex(sent.digest()));
    }

    @Test
    void rdmaReadOfALargeAmountArrivesIntact() throws Exception {
        Connection c = connect(new Sizes(64, 4, 1, 0, 256));
        RegisteredMemory source = register(c.server().pd, WINDOW, REMOTE);
        RegisteredMemory sink = register(c.client().pd, WINDOW, REMOTE);
        fill(source.buffer(), 42);
        MessageDigest sent = MessageDigest.getInstance("SHA-256");
        MessageDigest arrived = MessageDigest.getInstance("SHA-256");
        long rounds = largeTransferBytes() / WINDOW;
        ByteBuffer src = source.buffer();
        for (int round = 0; round < rounds; round++) {
            stamp(src, round);
            digest(sent, src);
            SendWorkRequest[] wrs = new SendWorkRequest[WINDOW / MESSAGE];
            for (int m = 0; m < wrs.length; m++) {
                wrs[m] = read(m, sink, (long) m * MESSAGE, MESSAGE, source.rkey(), source.address((long) m * MESSAGE));
                wrs[m].flags = m == wrs.length - 1 ? SendWorkRequest.SIGNALED : 0;
            }
            c.client().qp.postSend(chain(wrs));
            WorkCompletion s = await(c.client().sendCq);
            assertThat(s.status).isEqualTo(WcStatus.SUCCESS);
            digest(arrived, sink.buffer());
        }
        assertThat(HexFormat.of().formatHex(arrived.digest())).isEqualTo(HexFormat.of().formatHex(sent.digest()));
    }
}
