package org.rpcrdma4j.xprt.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.codec.RpcRdmaProc;
import org.rpcrdma4j.registration.RegisteredBuffer;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.xprt.XprtCounter;
import org.rpcrdma4j.xprt.client.fake.ReceivedCall;
import org.rpcrdma4j.xprt.client.fake.Reply;
import org.rpcrdma4j.xprt.client.fake.TestProgram;

/** The DDP API against a well-behaved peer: what goes on the wire for each size, and the bytes that arrive. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DdpCallTest extends ClientTestBase {

    @Test
    void nullCallGoesInlineAndAsksForCredits() throws Exception {
        RdmaClientTransport t = connect();
        RdmaCall call = new RdmaCall();
        ByteBuf reply = Unpooled.buffer(256);
        int xid = t.nextXid();
        t.call(call.message(nullCall(xid)).reply(reply));
        assertThat(call.failure()).isNull();
        assertThat(call.xid()).isEqualTo(xid);
        assertThat(reply.getInt(reply.readerIndex())).isEqualTo(xid);
        assertThat(TestProgram.results(reply)).isEqualTo(reply.readerIndex() + 24);
        ReceivedCall seen = server.nextCall();
        assertThat(seen.proc()).isEqualTo(RpcRdmaProc.RDMA_MSG);
        assertThat(seen.hasReadChunk() || seen.hasWriteChunk() || seen.hasReplyChunk()).isFalse();
        assertThat(seen.creditsRequested()).isEqualTo(128);
        assertThat(seen.call()).isEqualTo(bytes(nullCall(xid), 0, 40));
        RdmaClientStats s = t.stats();
        assertThat(s.get(XprtCounter.CONNECTS)).isEqualTo(1);
        assertThat(s.get(ClientCounter.SENDS)).isEqualTo(1);
        assertThat(s.get(XprtCounter.TOTAL_RDMA_REQUEST)).isEqualTo(40);
        assertThat(s.get(XprtCounter.TOTAL_RDMA_REPLY)).isEqualTo(24);
        assertThat(s.creditsGranted()).isEqualTo(32);
    }

    /**
     * Calls that get their credits at once go to the queue pair in one post: here four calls wait behind the one
     * credit a new connection has, until the reply to the first grants more.
     */
    @Test
    void callsThatGetCreditsTogetherArePostedAsOneChain() throws Exception {
        RdmaClientTransport t = connect();
        server.script(c -> Reply.none()); // the first call is answered below
        RdmaCall first = new RdmaCall().message(nullCall(t.nextXid())).reply(Unpooled.buffer());
        t.submit(first, null);
        ReceivedCall seen = server.nextCall();
        server.script(TestProgram::serve);
        RdmaCall[] waiting = new RdmaCall[4];
        for (int i = 0; i < waiting.length; i++) {
            waiting[i] = new RdmaCall().message(nullCall(t.nextXid())).reply(Unpooled.buffer());
            t.submit(waiting[i], null);
        }
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (t.stats().get(XprtCounter.CREDIT_WAITS) == 0) {
            assertThat(System.nanoTime() - until).as("hang guard: the calls queue for a credit").isNegative();
            Thread.sleep(1);
        }
        long postsBefore = t.stats().get(ClientCounter.SEND_POSTS);
        server.respondLater(seen, TestProgram.serve(seen).credits(8));
        for (RdmaCall call : waiting) {
            assertThat(call.awaitDone(TimeUnit.SECONDS.toNanos(30))).isTrue();
            assertThat(call.failure()).isNull();
        }
        assertThat(first.failure()).isNull();
        RdmaClientStats s = t.stats();
        assertThat(s.get(ClientCounter.SENDS)).isEqualTo(5);
        assertThat(s.get(ClientCounter.SEND_POSTS) - postsBefore).as("posts of the four waiting calls").isEqualTo(1);
    }

    @Test
    void smallPayloadIsGatheredIntoTheSendFromTheCallersMemory() throws Exception {
        RdmaClientTransport t = connect();
        byte[] data = TestProgram.pattern(7, 1001);
        RegisteredBuffer payload = registered(t, data);
        ByteBuf reply = Unpooled.buffer(256);
        RdmaCall call = new RdmaCall().message(putHead(t.nextXid(), 42, data.length)).payload(payload, 0, data.length)
                .reply(reply);
        t.call(call);
        ReceivedCall seen = server.nextCall();
        assertThat(seen.hasReadChunk()).isFalse();
        assertThat(seen.inline()).hasSize(48 + 1004);
        assertThat(java.util.Arrays.copyOfRange(seen.inline(), 48, 48 + data.length)).isEqualTo(data);
        assertThat(java.util.Arrays.copyOfRange(seen.inline(), 48 + 1001, 48 + 1004)).containsOnly(0);
        int at = TestProgram.results(reply);
        assertThat(reply.getInt(at)).isEqualTo(data.length);
        assertThat(reply.getInt(at + 4)).isEqualTo((int) TestProgram.crc(data, 0, data.length));
        assertThat(reply.getInt(at + 8)).isEqualTo(42);
        assertThat(t.stats().get(XprtCounter.READ_CHUNK_COUNT)).isZero();
    }

    @Test
    void largePayloadGoesAsAReadChunkAtItsPositionStraightFromTheCallersMemory() throws Exception {
        RdmaClientTransport t = connect();
        byte[] data = TestProgram.pattern(11, (1 << 20) - 3);
        RegisteredBuffer payload = registered(t, 1 << 20);
        payload.setBytes(0, data);
        ByteBuf trailer = null;
        ByteBuf reply = Unpooled.buffer(256);
        RdmaCall call = new RdmaCall().message(putHead(t.nextXid(), 9, data.length)).payload(payload, 0, data.length)
                .trailer(trailer).reply(reply);
        t.call(call);
        ReceivedCall seen = server.nextCall();
        assertThat(seen.proc()).isEqualTo(RpcRdmaProc.RDMA_MSG);
        assertThat(seen.header().readChunkCount()).isEqualTo(1);
        assertThat(seen.header().readChunkPosition(0)).isEqualTo(48);
        assertThat(seen.header().readChunkLength(0)).as("unpadded").isEqualTo(data.length);
        assertThat(seen.chunkData()).isEqualTo(data);
        assertThat(seen.inline()).hasSize(48);
        assertThat(java.util.Arrays.copyOfRange(seen.call(), 48, 48 + data.length)).isEqualTo(data);
        assertThat(seen.call()).hasSize(48 + data.length + 3);
        int at = TestProgram.results(reply);
        assertThat(reply.getInt(at + 4)).isEqualTo((int) TestProgram.crc(data, 0, data.length));
        assertThat(t.stats().get(XprtCounter.READ_CHUNK_COUNT)).isEqualTo(1);
        assertExposedNothing(seen);
    }

    @Test
    void resultLandsInTheCallersSinkThroughAWriteChunk() throws Exception {
        RdmaClientTransport t = connect();
        int count = 1 << 20;
        RegisteredBuffer sink = registered(t, count);
        ByteBuf reply = Unpooled.buffer(256);
        RdmaCall call = new RdmaCall().message(getCall(t.nextXid(), count, 5)).sink(sink, 0, count).reply(reply);
        t.call(call);
        ReceivedCall seen = server.nextCall();
        assertThat(seen.header().writeChunkCount()).isEqualTo(1);
        assertThat(seen.header().writeChunkLength(0)).isEqualTo(count);
        assertThat(seen.hasReplyChunk()).isFalse();
        assertThat(call.writeChunkReturned()).isTrue();
        assertThat(call.placedBytes()).isEqualTo(count);
        assertThat(bytes(sink, 0, count)).isEqualTo(TestProgram.pattern(5, count));
        int at = TestProgram.results(reply);
        assertThat(reply.getInt(at)).as("the reduced reply keeps the length word").isEqualTo(count);
        assertThat(reply.writerIndex() - at).as("and nothing of the data").isEqualTo(4);
        assertThat(t.stats().get(XprtCounter.WRITE_CHUNK_COUNT)).isEqualTo(1);
        assertExposedNothing(seen);
    }

    @Test
    void oddSizedResultIsPlacedWithoutPad() throws Exception {
        RdmaClientTransport t = connect();
        int count = 100_001;
        RegisteredBuffer sink = registered(t, count + 64);
        sink.setBytes(count, new byte[64]);
        ByteBuf reply = Unpooled.buffer(256);
        RdmaCall call = new RdmaCall().message(getCall(t.nextXid(), count, 77)).sink(sink, 0, count + 64).reply(reply);
        t.call(call);
        assertThat(call.placedBytes()).isEqualTo(count);
        assertThat(bytes(sink, 0, count)).isEqualTo(TestProgram.pattern(77, count));
        assertThat(bytes(sink, count, 64)).containsOnly(0);
    }

    @Test
    void callTooLargeForInlineWithoutADataItemGoesInAPositionZeroReadChunkAndItsReplyInAReplyChunk()
            throws Exception {
        RdmaClientTransport t = connect();
        byte[] data = TestProgram.pattern(3, 100 * 1024 + 1);
        ByteBuf reply = Unpooled.buffer(256);
        int xid = t.nextXid();
        ByteBuf message = echoCall(xid, data);
        byte[] sent = bytes(message, 0, message.readableBytes());
        RdmaCall call = new RdmaCall().message(message).reply(reply);
        t.call(call);
        ReceivedCall seen = server.nextCall();
        assertThat(seen.proc()).isEqualTo(RpcRdmaProc.RDMA_NOMSG);
        assertThat(seen.header().readChunkPosition(0)).isZero();
        assertThat(seen.chunkData()).as("the whole call, padded").isEqualTo(sent);
        assertThat(seen.hasReplyChunk()).isTrue();
        assertThat(seen.hasWriteChunk()).isFalse();
        int at = TestProgram.results(reply);
        assertThat(reply.getInt(at)).isEqualTo(data.length);
        assertThat(bytes(reply, at + 4, data.length)).isEqualTo(data);
        RdmaClientStats s = t.stats();
        assertThat(s.get(XprtCounter.NOMSG_CALL_COUNT)).isEqualTo(1);
        assertThat(s.get(XprtCounter.REPLY_CHUNK_COUNT)).isEqualTo(1);
        assertThat(s.get(XprtCounter.FIXUP_COPY_COUNT)).isEqualTo(reply.readableBytes());
        assertExposedNothing(seen);
    }

    @Test
    void manyConcurrentCallsAllComplete() throws Exception {
        RdmaClientTransport t = connect();
        int n = 64;
        RdmaCall[] calls = new RdmaCall[n];
        RegisteredBuffer[] sinks = new RegisteredBuffer[n];
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(n);
        for (int i = 0; i < n; i++) {
            sinks[i] = registered(t, 8192 + i);
            calls[i] = new RdmaCall().message(getCall(t.nextXid(), 8192 + i, i)).sink(sinks[i], 0, 8192 + i)
                    .reply(Unpooled.buffer(128));
            t.submit(calls[i], c -> done.countDown());
        }
        assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
        for (int i = 0; i < n; i++) {
            assertThat(calls[i].failure()).isNull();
            assertThat(bytes(sinks[i], 0, 8192 + i)).isEqualTo(TestProgram.pattern(i, 8192 + i));
        }
        assertThat(t.stats().get(XprtCounter.RECONNECTS)).isZero();
        assertThat(server.maxOutstanding()).as("never more than the grant (minus the keep-alive reserve)")
                .isLessThanOrEqualTo(31);
    }

    /** The server's RDMA READ with a handle the call exposed fails once the call is done. */
    private void assertExposedNothing(ReceivedCall seen) throws Exception {
        List<WcStatus> statuses = server.probe(seen, false);
        assertThat(statuses).isNotEmpty();
        assertThat(statuses.get(0)).as("access with the first handle of a finished call").isNotEqualTo(WcStatus.SUCCESS);
    }

    @Test
    void aSinkAndPayloadReleasedByTheirCallerWhileTheCallIsInFlightStayTheTransportsUntilItIsDone() throws Exception {
        RdmaClientTransport t = connect();
        t.call(new RdmaCall().message(nullCall(t.nextXid())).reply(Unpooled.buffer())); // the grant: both calls go out
        server.drainCalls();
        server.script(c -> org.rpcrdma4j.xprt.client.fake.Reply.none()); // answered below, once the caller let go
        int count = 64 << 10;
        RegisteredBuffer sink = t.bufferPool().allocate(count);
        byte[] data = TestProgram.pattern(9, 8192);
        RegisteredBuffer payload = t.bufferPool().allocate(data.length);
        payload.setBytes(0, data);
        ByteBuf reply = Unpooled.buffer(256);
        RdmaCall get = new RdmaCall().message(getCall(t.nextXid(), count, 21)).sink(sink, 0, count).reply(reply);
        RdmaCall put = new RdmaCall().message(putHead(t.nextXid(), 5, data.length)).payload(payload, 0, data.length)
                .reply(Unpooled.buffer(256));
        t.submit(get, null);
        t.submit(put, null);
        ReceivedCall seenGet = server.nextCall();
        ReceivedCall seenPut = server.nextCall();
        // the callers give up (an interrupted call() returns early) and release their buffers in a finally
        sink.release();
        payload.release();
        assertThat(sink.refCnt()).as("the transport's reference on the sink").isEqualTo(1);
        assertThat(payload.refCnt()).as("the transport's reference on the payload").isEqualTo(1);
        // memory handed out now is not the sink's: the server's RDMA WRITE below must not land in it
        RegisteredBuffer other = registered(t, count);
        for (int i = 0; i < count; i++) {
            other.setByte(i, 0x5A);
        }

        server.respondLater(seenGet, TestProgram.serve(seenGet));
        server.respondLater(seenPut, TestProgram.serve(seenPut));
        assertThat(get.awaitDone(TimeUnit.SECONDS.toNanos(30))).isTrue();
        assertThat(put.awaitDone(TimeUnit.SECONDS.toNanos(30))).isTrue();
        assertThat(get.failure()).isNull();
        assertThat(put.failure()).isNull();
        assertThat(get.placedBytes()).isEqualTo(count);
        byte[] untouched = new byte[count];
        java.util.Arrays.fill(untouched, (byte) 0x5A);
        assertThat(bytes(other, 0, count)).as("memory allocated after the caller let go").isEqualTo(untouched);
        assertThat(sink.refCnt()).as("released once the call was done").isZero();
        assertThat(payload.refCnt()).isZero();
    }
}
