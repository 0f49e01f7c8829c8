package org.rpcrdma4j.xprt.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.codec.RpcRdmaProc;
import org.rpcrdma4j.verbs.Access;

/**
 * A program keeps a call's read-chunk data past its reply ({@link RdmaBufferAllocator#keep}): the kept bytes are
 * the ones the client sent even though the reply (longer than the call's header) was encoded after them, the call's
 * memory stays allocated until the program releases what it kept, only memory of the call's read chunk is kept, and
 * no more than the server's kept-memory budget.
 */
@Timeout(120)
class ServerKeptCallDataTest extends ServerFixture {
    private static final int POSITION = Rpc.ARGS_OFFSET_AUTH_NONE + 4;
    /** The kept-memory budget: three buffers of a 256 KiB call (65 pages each: the data, a page in front). */
    private static final long KEPT_BYTES = 1 << 20;
    private static final int CALL_PAGES = 65;

    private final List<io.netty.buffer.ByteBuf> kept = new CopyOnWriteArrayList<>();
    private final List<RpcCall> calls = new CopyOnWriteArrayList<>();
    private final List<ByteBuffer> views = new CopyOnWriteArrayList<>();

    @Override
    void configure(RdmaRpcServer.Builder builder) {
        builder.registeredMemory(16 << 20).keptCallMemory(KEPT_BYTES);
    }

    @AfterEach
    void releaseKept() {
        program.keeper = (call, data) -> { };
        for (io.netty.buffer.ByteBuf k : kept) {
            k.release();
        }
        kept.clear();
        calls.clear();
        views.clear();
    }

    private void keepWholeData() {
        program.keeper = (call, data) -> {
            calls.add(call);
            views.add(data);
            io.netty.buffer.ByteBuf k = server.bufferAllocator().keep(call, data);
            if (k != null) {
                kept.add(k);
            }
        };
    }

    /** Sends KEEP with {@code data} in a read chunk and checks the reply. */
    static void keepCall(RawClient c, int xid, byte[] data) throws Exception {
        RawClient.Chunk chunk = c.registered(data.length, Access.REMOTE_READ);
        chunk.memory.put(0, data);
        ByteBuf inline = Rpc.echoCall(xid, EchoProgram.KEEP, Rpc.ints(data.length));
        c.send(RawClient.header().xid(xid).credits(32).proc(RpcRdmaProc.RDMA_MSG)
                .addReadSegment(POSITION, chunk.stag, data.length, chunk.iova), inline);
        assertReply(c, xid);
        // the client's memory changing afterwards changes nothing on the server
        chunk.memory.put(0, new byte[data.length]);
    }

    private static void assertReply(RawClient c, int xid) throws Exception {
        RawClient.Received r = c.receive();
        assertThat(r.header().proc()).isEqualTo(RpcRdmaProc.RDMA_MSG);
        Rpc.assertBytes(r.message(), Rpc.concat(Rpc.successHeader(xid),
                Rpc.opaque(EchoProgram.pattern(EchoProgram.KEEP_REPLY_BYTES, 77))));
        r.bytes().release();
    }

    /** The first index where {@code b} and {@code expected} differ, -1 when they hold the same bytes. */
    private static int mismatch(ByteBuffer b, byte[] expected) {
        byte[] actual = new byte[b.remaining()];
        b.duplicate().get(actual);
        return Arrays.mismatch(actual, expected);
    }

    @Test
    void keptDataOutlivesTheReplyUnchanged() throws Exception {
        keepWholeData();
        RawClient c = client(false);
        byte[] data = EchoProgram.pattern(256 << 10, 5);
        long keptBefore = server.counters().get(ServerCounter.KEPT_CALL_BYTES);
        keepCall(c, 0x51, data);

        assertThat(kept).hasSize(1);
        assertThat(kept.get(0).readableBytes()).isEqualTo(data.length);
        assertThat(kept.get(0).capacity()).isEqualTo(data.length);
        ByteBuffer k = kept.get(0).nioBuffer();
        assertThat(k.position()).isZero();
        assertThat(k.isDirect()).isTrue();
        assertThat(mismatch(k, data)).as("first wrong kept byte after the reply was encoded and sent").isEqualTo(-1);
        assertThat(server.counters().get(ServerCounter.KEPT_CALL_BYTES) - keptBefore).isEqualTo(data.length);

        // the call's memory stays allocated while kept, even once the connection is gone
        closeClient(c);
        await("connection closed", () -> server.connectionCount() == 0);
        assertThat(server.registeredPagesInUse()).isGreaterThanOrEqualTo(data.length / 4096);
        assertThat(mismatch(k, data)).isEqualTo(-1);
        io.netty.buffer.ByteBuf only = kept.remove(0);
        assertThat(only.release()).as("the last reference: the call's memory goes back").isTrue();
        awaitNoLeaks();
    }

    @Test
    void piecesOfOneCallAreKeptAndReleasedApart() throws Exception {
        List<Integer> refusedAt = new CopyOnWriteArrayList<>();
        program.keeper = (call, data) -> {
            for (int at = 0; at < data.remaining(); at += 64 << 10) {
                io.netty.buffer.ByteBuf k = server.bufferAllocator().keep(call, data.slice(at, 64 << 10));
                if (k == null) {
                    refusedAt.add(at);
                } else {
                    kept.add(k);
                }
            }
        };
        RawClient c = client(false);
        byte[] data = EchoProgram.pattern(256 << 10, 6);
        keepCall(c, 0x52, data);
        keepCall(c, 0x53, EchoProgram.pattern(256 << 10, 7));

        assertThat(refusedAt).isEmpty();
        assertThat(kept).hasSize(8);
        assertThat(server.keptPages()).as("each call's buffer charged once").isEqualTo(2 * CALL_PAGES);
        for (int i = 0; i < 4; i++) {
            assertThat(mismatch(kept.get(i).nioBuffer(), Arrays.copyOfRange(data, i * (64 << 10), (i + 1) * (64 << 10))))
                    .isEqualTo(-1);
        }
        closeClient(c);
        await("connection closed", () -> server.connectionCount() == 0);
        int bothCalls = server.registeredPagesInUse();
        for (int i = 0; i < 3; i++) {
            kept.remove(0).release();
            assertThat(server.registeredPagesInUse()).as("a piece of the first call is still kept")
                    .isEqualTo(bothCalls);
        }
        kept.remove(0).release();
        assertThat(server.registeredPagesInUse()).as("the first call's buffer went back with its last piece")
                .isEqualTo(bothCalls - CALL_PAGES);
        assertThat(server.keptPages()).isEqualTo(CALL_PAGES);
        for (int i = 0; i < 4; i++) {
            kept.remove(0).release();
        }
        assertThat(server.keptPages()).isZero();
        awaitNoLeaks();
    }

    @Test
    void onlyTheCallsReadChunkMemoryIsKept() throws Exception {
        List<io.netty.buffer.ByteBuf> keptWrongly = new ArrayList<>();
        ByteBuffer elsewhere = ByteBuffer.allocateDirect(4096);
        program.keeper = (call, data) -> {
            calls.add(call);
            views.add(data);
            for (ByteBuffer b : new ByteBuffer[] {ByteBuffer.allocate(64), elsewhere,
                    data.slice(0, data.remaining() - 4).position(0).limit(data.remaining() - 4)}) {
                io.netty.buffer.ByteBuf k = server.bufferAllocator().keep(call, b);
                if (k != null) {
                    keptWrongly.add(k);
                }
            }
        };
        RawClient c = client(false);
        // inline data: nothing was pulled, nothing can be kept
        ByteBuf inline = Rpc.echoCall(0x54, EchoProgram.KEEP, Rpc.opaque(EchoProgram.pattern(512, 8)));
        c.send(RawClient.header().xid(0x54).credits(32).proc(RpcRdmaProc.RDMA_MSG), inline);
        assertReply(c, 0x54);
        assertThat(server.bufferAllocator().keep(calls.get(0), views.get(0))).isNull();
        assertThat(keptWrongly).as("inline call: heap, other memory and its own bytes are all refused").isEmpty();

        // a read-chunk call: a heap buffer and other direct memory are refused; after the reply, everything is
        keepCall(c, 0x55, EchoProgram.pattern(64 << 10, 9));
        assertThat(keptWrongly).as("only the view of the call's own data").hasSize(1);
        keptWrongly.get(0).release();
        assertThat(server.bufferAllocator().keep(calls.get(1), views.get(1)))
                .as("keeping after the call was answered").isNull();
    }

    @Test
    void keepingStopsAtTheBudgetAndResumesWhenKeptMemoryGoesBack() throws Exception {
        keepWholeData();
        RawClient c = client(false);
        long refusedBefore = server.counters().get(ServerCounter.KEEPS_REFUSED);
        for (int i = 0; i < 3; i++) {
            keepCall(c, 0x60 + i, EchoProgram.pattern(256 << 10, 20 + i));
        }
        assertThat(kept).hasSize(3);
        assertThat(server.keptPages()).isEqualTo(3 * CALL_PAGES);

        keepCall(c, 0x63, EchoProgram.pattern(256 << 10, 23));
        assertThat(kept).as("a fourth buffer exceeds the budget").hasSize(3);
        assertThat(server.counters().get(ServerCounter.KEEPS_REFUSED) - refusedBefore).isEqualTo(1);

        kept.remove(0).release();
        assertThat(server.keptPages()).isEqualTo(2 * CALL_PAGES);
        keepCall(c, 0x64, EchoProgram.pattern(256 << 10, 24));
        assertThat(kept).as("kept again once a buffer went back").hasSize(3);
        assertThat(server.keptPages()).isEqualTo(3 * CALL_PAGES);
    }
}
