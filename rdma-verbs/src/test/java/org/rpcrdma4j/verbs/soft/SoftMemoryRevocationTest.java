package org.rpcrdma4j.verbs.soft;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.FastRegMemoryRegion;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.rpcrdma4j.verbs.soft.wire.Ddp;
import org.rpcrdma4j.verbs.soft.wire.Rdmap;
import org.rpcrdma4j.verbs.soft.wire.Terminate;

/**
 * Memory checked for a message and then invalidated, mapped anew or deregistered while the message is still being
 * placed or sent: no byte more is written to it or read from it, and the connection ends with a Terminate (or a
 * reset, when the FPDU that would have carried those bytes is partly sent).
 */
@Timeout(60)
class SoftMemoryRevocationTest extends HostilePeerFixture {
    private static final long IOVA = 0x0000_7F00_5678_0000L;
    private static final byte DATA = 0x5A;
    private static final byte LATER = 0x77;
    private static final int HEADERS = 2 + Ddp.TAGGED_HEADER_LENGTH;

    private static byte[] pattern(int n, byte b) {
        byte[] p = new byte[n];
        Arrays.fill(p, b);
        return p;
    }

    private static void assertDdpInvalidStag(byte[] terminate) {
        Terminate.Reading r = control(terminate);
        assertThat(r.layer()).isEqualTo(Terminate.LAYER_DDP);
        assertThat(r.etype()).isEqualTo(Terminate.DDP_TAGGED_BUFFER);
        assertThat(r.code()).isEqualTo(Terminate.DDP_TAGGED_INVALID_STAG);
    }

    @Test
    void aWriteStopsWhenItsStagIsInvalidatedAndTheRegionMappedAnew() throws Exception {
        try (Responder r = new Responder(0)) {
            ByteBuffer first = pages(1);
            ByteBuffer second = pages(1);
            FastRegMemoryRegion mr = own(r.server.pd.allocFastRegMr(1));
            r.server.qp.postSend(fastRegister(1, mr, pageList(first, 0, 4096, IOVA), REMOTE));
            assertThat(await(r.server.sendCq).status).isEqualTo(WcStatus.SUCCESS);
            int granted = mr.rkey();
            byte[] fpdu = RawPeer.fpdu(RawPeer.tagged(true, Rdmap.WRITE, granted, IOVA, pattern(4000, DATA)), false);
            r.peer.write(Arrays.copyOf(fpdu, HEADERS + 100));
            awaitCondition("the segment's first 100 bytes placed", () -> count(first, 0, 100, DATA) == 100);

            // the consumer takes the region back and maps it, for local access only, over other memory
            r.server.qp.postSend(chain(localInvalidate(2, granted),
                    fastRegister(3, mr, pageList(second, 0, 4096, IOVA), Access.LOCAL_WRITE)));
            assertThat(awaitWrId(r.server.sendCq, 2).status).isEqualTo(WcStatus.SUCCESS);
            assertThat(awaitWrId(r.server.sendCq, 3).status).isEqualTo(WcStatus.SUCCESS);
            r.peer.write(Arrays.copyOfRange(fpdu, HEADERS + 100, fpdu.length));

            assertDdpInvalidStag(awaitTerminate(r.peer));
            r.server.events.await(ConnectionEventType.DISCONNECTED);
            assertThat(count(second, 0, 4096, DATA)).as("bytes placed in the new mapping").isZero();
            assertThat(count(first, 0, 4096, DATA)).as("bytes placed in the old mapping").isEqualTo(100);
        }
    }

    @Test
    void aWriteStopsWhenItsMemoryIsDeregistered() throws Exception {
        try (Responder r = new Responder(0)) {
            ByteBuffer raw = ByteBuffer.allocateDirect(4096);
            RegisteredMemory sink = r.server.pd.registerMemory(raw, REMOTE);
            byte[] fpdu = RawPeer.fpdu(RawPeer.tagged(true, Rdmap.WRITE, sink.rkey(), sink.address(0),
                    pattern(4000, DATA)), false);
            r.peer.write(Arrays.copyOf(fpdu, HEADERS + 100));
            awaitCondition("the segment's first 100 bytes placed", () -> count(raw, 0, 100, DATA) == 100);
            sink.close();
            for (int i = 0; i < 4096; i++) {
                raw.put(i, (byte) 0); // the consumer uses its buffer for something else
            }
            r.peer.write(Arrays.copyOfRange(fpdu, HEADERS + 100, fpdu.length));

            assertDdpInvalidStag(awaitTerminate(r.peer));
            r.server.events.await(ConnectionEventType.DISCONNECTED);
            assertThat(count(raw, 0, 4096, DATA)).as("bytes placed after deregistration").isZero();
        }
    }

    @Test
    void aSendStopsWhenItsReceiveMemoryIsDeregistered() throws Exception {
        try (Responder r = new Responder(0)) {
            ByteBuffer raw = ByteBuffer.allocateDirect(4096);
            RegisteredMemory inbox = r.server.pd.registerMemory(raw, Access.LOCAL_WRITE);
            r.server.qp.postRecv(recv(7, inbox, 0, 4096));
            byte[] fpdu = RawPeer.fpdu(RawPeer.untagged(true, Rdmap.SEND, 0, Ddp.QN_SEND, 1, 0,
                    pattern(4000, DATA)), false);
            int headers = 2 + Ddp.UNTAGGED_HEADER_LENGTH;
            r.peer.write(Arrays.copyOf(fpdu, headers + 100));
            awaitCondition("the Send's first 100 bytes placed", () -> count(raw, 0, 100, DATA) == 100);
            inbox.close();
            for (int i = 0; i < 4096; i++) {
                raw.put(i, (byte) 0);
            }
            r.peer.write(Arrays.copyOfRange(fpdu, headers + 100, fpdu.length));

            WorkCompletion wc = awaitWrId(r.server.recvCq, 7);
            assertThat(wc.status).isEqualTo(WcStatus.LOC_PROT_ERR);
            Terminate.Reading t = control(awaitTerminate(r.peer));
            assertThat(t.layer()).isEqualTo(Terminate.LAYER_RDMAP);
            assertThat(t.etype()).isEqualTo(Terminate.RDMAP_LOCAL_CATASTROPHIC);
            assertThat(count(raw, 0, 4096, DATA)).as("bytes placed after deregistration").isZero();
        }
    }

    /**
     * Reads what the device sends for a Read of {@code size} bytes until the response is complete or the connection
     * ends (a Terminate, the end of the stream or a reset) and returns how many payload bytes had the value
     * {@link #LATER}.
     */
    private static int laterBytesRead(RawPeer peer, int alreadyRead, int size) {
        int later = 0;
        int got = alreadyRead;
        try {
            while (got < size) {
                byte[] fpdu = peer.readFpdu();
                if (RawPeer.opcode(fpdu) == Rdmap.TERMINATE) {
                    Terminate.Reading t = control(fpdu);
                    assertThat(t.layer()).isEqualTo(Terminate.LAYER_RDMAP);
                    assertThat(t.etype()).isEqualTo(Terminate.RDMAP_REMOTE_PROTECTION);
                    assertThat(t.code()).isEqualTo(Terminate.RDMAP_INVALID_STAG);
                    return later;
                }
                assertThat(RawPeer.opcode(fpdu)).isEqualTo(Rdmap.READ_RESPONSE);
                for (int i = Ddp.TAGGED_HEADER_LENGTH; i < fpdu.length; i++) {
                    if (fpdu[i] == LATER) {
                        later++;
                    }
                }
                got += fpdu.length - Ddp.TAGGED_HEADER_LENGTH;
            }
            return later;
        } catch (IOException endedOrReset) {
            return later;
        }
    }

    @Test
    void aReadResponseStopsReadingItsSourceOnceItIsDeregistered() throws Exception {
        try (Responder r = new Responder(4096)) {
            int size = 1 << 20;
            ByteBuffer raw = ByteBuffer.allocateDirect(size);
            RegisteredMemory source = r.server.pd.registerMemory(raw, REMOTE);
            r.peer.sendFpdu(RawPeer.readRequest(1, 0x300, 0, size, source.rkey(), source.address(0)));
            byte[] first = r.peer.readFpdu();
            assertThat(RawPeer.opcode(first)).isEqualTo(Rdmap.READ_RESPONSE);
            source.close();
            for (int i = 0; i < size; i++) {
                raw.put(i, LATER); // what the buffer holds once its owner used it for something else
            }
            assertThat(laterBytesRead(r.peer, first.length - Ddp.TAGGED_HEADER_LENGTH, size))
                    .as("bytes read from the source after it was deregistered").isZero();
            r.server.events.await(ConnectionEventType.DISCONNECTED);
        }
    }

    @Test
    void aReadResponseStopsWhenAnotherQueuePairInvalidatesItsSource() throws Exception {
        ProtectionDomain pd = pd(device);
        try (Responder r = new Responder(pd, 4096); Responder other = new Responder(pd, 0)) {
            int pages = 64;
            ByteBuffer memory = pages(pages);
            FastRegMemoryRegion mr = own(pd.allocFastRegMr(pages));
            r.server.qp.postSend(fastRegister(1, mr, pageList(memory, 0, pages * 4096, IOVA), REMOTE));
            assertThat(await(r.server.sendCq).status).isEqualTo(WcStatus.SUCCESS);
            int size = pages * 4096;
            r.peer.sendFpdu(RawPeer.readRequest(1, 0x300, 0, size, mr.rkey(), IOVA));
            byte[] first = r.peer.readFpdu();
            assertThat(RawPeer.opcode(first)).isEqualTo(Rdmap.READ_RESPONSE);
            other.server.qp.postSend(localInvalidate(2, mr.rkey()));
            assertThat(await(other.server.sendCq).status).isEqualTo(WcStatus.SUCCESS);
            for (int i = 0; i < size; i++) {
                memory.put(i, LATER);
            }
            assertThat(laterBytesRead(r.peer, first.length - Ddp.TAGGED_HEADER_LENGTH, size))
                    .as("bytes read from the source after it was invalidated").isZero();
            r.server.events.await(ConnectionEventType.DISCONNECTED);
        }
    }
}
