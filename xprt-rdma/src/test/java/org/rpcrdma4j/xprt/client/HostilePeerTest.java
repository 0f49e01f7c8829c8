package org.rpcrdma4j.xprt.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.codec.RpcRdmaErrorCode;
import org.rpcrdma4j.registration.RegisteredBuffer;
import org.rpcrdma4j.verbs.soft.SoftIwarpFaults;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.xprt.XprtCounter;
import org.rpcrdma4j.xprt.client.fake.FakeRdmaServer;
import org.rpcrdma4j.xprt.client.fake.ReceivedCall;
import org.rpcrdma4j.xprt.client.fake.Reply;
import org.rpcrdma4j.xprt.client.fake.TestProgram;
import org.rpcrdma4j.xprt.TestDevices;

/** Peers that break the protocol or the connection, and what the client makes of it. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HostilePeerTest extends ClientTestBase {

    /** One answered NULL call: the server's grant replaces the initial single credit. */
    private void warmUp(RdmaClientTransport t) throws Exception {
        t.call(new RdmaCall().message(nullCall(t.nextXid())).reply(Unpooled.buffer()));
        server.nextCall();
        assertThat(t.stats().creditsGranted()).isEqualTo(32);
    }

    private RdmaCall get(RdmaClientTransport t, RegisteredBuffer sink, int count, int seed) {
        return new RdmaCall().message(getCall(t.nextXid(), count, seed)).sink(sink, 0, count)
                .reply(Unpooled.buffer(256));
    }

    @Test
    void writeChunkLengthBeyondWhatWasRegisteredFailsTheCallAndExposesNothing() throws Exception {
        server.script(c -> TestProgram.serve(c).reportWriteLength(70_000));
        RdmaClientTransport t = connect();
        RegisteredBuffer sink = registered(t, 65_536);
        RdmaCall call = get(t, sink, 65_536, 1);
        assertThatThrownBy(() -> t.call(call)).isInstanceOf(RdmaBadReplyException.class)
                .hasMessageContaining("70000 bytes written, more than the 65536 registered");
        assertThat(call.placedBytes()).isEqualTo(-1);
        assertThat(call.replyLength()).isZero();
        assertThat(t.stats().get(XprtCounter.BAD_REPLY_COUNT)).isEqualTo(1);
        assertProbeFails(server.nextCall());
    }

    @Test
    void replyChunkLengthBeyondWhatWasRegisteredFailsTheCall() throws Exception {
        server.script(c -> TestProgram.serve(c).reportReplyLength(1 << 24));
        RdmaClientTransport t = connect();
        RdmaCall call = new RdmaCall().message(echoCall(t.nextXid(), new byte[20_000])).reply(Unpooled.buffer());
        assertThatThrownBy(() -> t.call(call)).isInstanceOf(RdmaBadReplyException.class)
                .hasMessageContaining("Reply chunk");
        assertThat(t.stats().get(XprtCounter.BAD_REPLY_COUNT)).isEqualTo(1);
        assertProbeFails(server.nextCall());
    }

    @Test
    void replyForAnUnknownXidIsCountedAndDropped() throws Exception {
        server.script(c -> {
            // a stray reply with Send With Invalidate would kill the real one's handle: a plain Send
            server.respondLater(c, TestProgram.serve(c).xid(c.xid() ^ 0x5A5A5A5A).noRemoteInvalidation());
            return TestProgram.serve(c);
        });
        RdmaClientTransport t = connect();
        RegisteredBuffer sink = registered(t, 10_000);
        RdmaCall call = get(t, sink, 10_000, 3);
        t.call(call);
        assertThat(bytes(sink, 0, 10_000)).isEqualTo(TestProgram.pattern(3, 10_000));
        RdmaClientStats s = t.stats();
        assertThat(s.get(XprtCounter.UNKNOWN_XID_REPLIES)).isEqualTo(1);
        assertThat(s.get(XprtCounter.BAD_REPLY_COUNT)).isZero();
    }

    @Test
    void errVersEndsTheCallWithTheServersVersionRange() throws Exception {
        server.script(c -> Reply.errVers(2, 3));
        RdmaClientTransport t = connect();
        RegisteredBuffer sink = registered(t, 8192);
        RdmaCall call = get(t, sink, 8192, 1);
        assertThatThrownBy(() -> t.call(call)).isInstanceOfSatisfying(RdmaVersionMismatchException.class, e -> {
            assertThat(e.errorCode()).isEqualTo(RpcRdmaErrorCode.ERR_VERS);
            assertThat(e.versionLow()).isEqualTo(2);
            assertThat(e.versionHigh()).isEqualTo(3);
            assertThat(e.getMessage()).contains("versions 2 to 3");
        });
        assertThat(t.stats().get(XprtCounter.RDMA_ERRORS)).isEqualTo(1);
        assertProbeFails(server.nextCall());
    }

    @Test
    void errChunkEndsTheCall() throws Exception {
        server.script(c -> Reply.errChunk());
        RdmaClientTransport t = connect();
        RdmaCall call = new RdmaCall().message(echoCall(t.nextXid(), new byte[100])).reply(Unpooled.buffer());
        assertThatThrownBy(() -> t.call(call)).isInstanceOfSatisfying(RdmaChunkErrorException.class,
                e -> assertThat(e.errorCode()).isEqualTo(RpcRdmaErrorCode.ERR_CHUNK));
        assertThat(t.stats().get(XprtCounter.RDMA_ERRORS)).isEqualTo(1);
    }

    @Test
    void aGrantOfZeroCountsAsOneAndCallsStillProgress() throws Exception {
        server.script(c -> TestProgram.serve(c).credits(0).delay(5));
        RdmaClientTransport t = connect();
        int n = 12;
        CountDownLatch done = new CountDownLatch(n);
        RdmaCall[] calls = new RdmaCall[n];
        RegisteredBuffer[] sinks = new RegisteredBuffer[n];
        for (int i = 0; i < n; i++) {
            sinks[i] = registered(t, 5000);
            calls[i] = get(t, sinks[i], 5000, i);
            t.submit(calls[i], c -> done.countDown());
        }
        assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
        for (int i = 0; i < n; i++) {
            assertThat(calls[i].failure()).isNull();
            assertThat(bytes(sinks[i], 0, 5000)).isEqualTo(TestProgram.pattern(i, 5000));
        }
        assertThat(server.maxOutstanding()).isEqualTo(1);
        RdmaClientStats s = t.stats();
        assertThat(s.creditsGranted()).isEqualTo(1);
        assertThat(s.get(XprtCounter.CREDIT_WAITS)).isPositive();
    }

    @Test
    void disconnectBetweenTheRdmaWriteAndTheReplyResendsTheCallAndTheRightBytesArrive() throws Exception {
        int count = 256 * 1024;
        server.script(c -> {
            if (c.connection() == 0) {
                Reply wrong = TestProgram.serve(c);
                // place different bytes, then drop the connection before the reply
                return Reply.of(patched(wrong), 28, count).disconnectBeforeSend();
            }
            return TestProgram.serve(c);
        });
        RdmaClientTransport t = connect();
        RegisteredBuffer sink = registered(t, count);
        RdmaCall call = get(t, sink, count, 21);
        t.call(call);
        assertThat(bytes(sink, 0, count)).isEqualTo(TestProgram.pattern(21, count));
        ReceivedCall first = server.nextCall();
        ReceivedCall second = server.nextCall();
        assertThat(second.xid()).isEqualTo(first.xid());
        assertThat(second.connection()).isEqualTo(1);
        assertThat(second.header().writeHandle(0, 0)).as("registered again").isNotEqualTo(first.header().writeHandle(0, 0));
        RdmaClientStats s = t.stats();
        assertThat(s.get(XprtCounter.RETRANSMITS)).isEqualTo(1);
        assertThat(s.get(XprtCounter.RECONNECTS)).isEqualTo(1);
        assertProbeFails(second);
    }

    private static byte[] patched(Reply r) throws Exception {
        java.lang.reflect.Field f = Reply.class.getDeclaredField("message");
        f.setAccessible(true);
        byte[] m = ((byte[]) f.get(r)).clone();
        java.util.Arrays.fill(m, 28, m.length, (byte) 0x5A);
        return m;
    }

    @Test
    void aReplyThatNeverComesTimesTheCallOutDropsTheConnectionAndTheOtherCallsAreResent() throws Exception {
        server.script(c -> c.connection() == 0 && c.procedure() != TestProgram.NULL ? Reply.none()
                : TestProgram.serve(c));
        RdmaClientTransport t = connect();
        warmUp(t);
        RegisteredBuffer sinkA = registered(t, 9000);
        RegisteredBuffer sinkB = registered(t, 9000);
        RdmaCall a = get(t, sinkA, 9000, 1).timeout(800, TimeUnit.MILLISECONDS);
        RdmaCall b = get(t, sinkB, 9000, 2).timeout(30, TimeUnit.SECONDS);
        CountDownLatch done = new CountDownLatch(2);
        t.submit(a, c -> done.countDown());
        server.nextCall();
        t.submit(b, c -> done.countDown());
        server.nextCall();
        assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
        assertThat(a.failure()).isInstanceOf(RdmaCallTimeoutException.class)
                .hasMessageContaining("xid 0x" + Integer.toHexString(a.xid()));
        assertThat(b.failure()).isNull();
        assertThat(bytes(sinkB, 0, 9000)).isEqualTo(TestProgram.pattern(2, 9000));
        RdmaClientStats s = t.stats();
        assertThat(s.get(XprtCounter.TIMEOUTS)).isEqualTo(1);
        assertThat(s.get(ClientCounter.FORCED_DISCONNECTS)).isEqualTo(1);
        assertThat(s.get(XprtCounter.RETRANSMITS)).isPositive();
    }

    @Test
    void aQueuePairInErrorWithoutADisconnectIsDroppedAndTheCallIsSentAgain() throws Exception {
        TestDevices.assumeSoft("a queue pair in error with no disconnect reported: the software device's fault "
                + "injection");
        server.script(c -> c.connection() == 0 && c.procedure() != TestProgram.NULL ? Reply.none()
                : TestProgram.serve(c));
        RdmaClientTransport t = connect();
        warmUp(t);
        RegisteredBuffer sink = registered(t, 9000);
        // the flushes come to a thread doing the agent's work inline (the default), and the runner, parked until the
        // call's deadline, must still be woken to drop the connection after the flush's grace, well before it
        RdmaCall call = get(t, sink, 9000, 3).timeout(10, TimeUnit.SECONDS);
        CountDownLatch done = new CountDownLatch(1);
        t.submit(call, c -> done.countDown());
        server.nextCall(); // held by the server on this connection
        // the client's receives are flushed, and the device says nothing more (as some devices do after a TERMINATE)
        SoftIwarpFaults.of(t.queuePair()).errorUnreported();
        assertThat(done.await(90, TimeUnit.SECONDS)).isTrue();
        assertThat(call.failure()).as("sent again on a new connection, not timed out").isNull();
        assertThat(bytes(sink, 0, 9000)).isEqualTo(TestProgram.pattern(3, 9000));
        RdmaClientStats s = t.stats();
        assertThat(s.get(ClientCounter.FORCED_DISCONNECTS)).isEqualTo(1);
        assertThat(s.get(XprtCounter.TIMEOUTS)).isZero();
        assertThat(s.get(XprtCounter.RETRANSMITS)).isPositive();
    }

    @Test
    void theKeepAliveProbeTakesNoXidACallOnTheWireHas() throws Exception {
        server.script(c -> c.procedure() == TestProgram.NULL ? TestProgram.serve(c) : Reply.none());
        RdmaClientTransport t = connect(b -> b.keepAlive(Duration.ofMillis(200), Duration.ofSeconds(5)));
        warmUp(t); // the server's credits are granted: the probe may go beside the held call
        // the xid the transport's counter gives next, which the probe would take: a caller's call has it already
        int taken = t.nextXid() + 1;
        byte[] data = "held while a probe goes.".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        ByteBuf reply = Unpooled.buffer();
        RdmaCall call = new RdmaCall().message(echoCall(taken, data)).reply(reply).timeout(60, TimeUnit.SECONDS);
        CountDownLatch done = new CountDownLatch(1);
        t.submit(call, c -> done.countDown());
        ReceivedCall held = server.nextCall();
        assertThat(held.xid()).isEqualTo(taken);
        ReceivedCall probe = server.nextCall(); // nothing received for the interval with a call out: the probe
        assertThat(probe.procedure()).isEqualTo(TestProgram.NULL);
        assertThat(probe.xid()).as("the probe's xid").isNotEqualTo(taken);
        server.respondLater(held, TestProgram.serve(held));
        assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
        assertThat(call.failure()).isNull();
        assertThat(bytes(reply, reply.readableBytes() - data.length, data.length)).isEqualTo(data);
        RdmaClientStats s = t.stats();
        assertThat(s.get(XprtCounter.KEEPALIVE_PROBES)).isPositive();
        assertThat(s.get(ClientCounter.FORCED_DISCONNECTS)).isZero();
    }

    @Test
    void aHungServerIsFoundByTheKeepAliveProbeAndTheCallFailsClearly() throws Exception {
        server.script(c -> {
            if (c.procedure() == TestProgram.NULL) {
                return TestProgram.serve(c);
            }
            server.freeze();
            return Reply.none();
        });
        RdmaClientTransport t = connect(b -> b.keepAlive(Duration.ofMillis(200), Duration.ofMillis(300))
                .timeouts(Duration.ofSeconds(5), Duration.ofSeconds(5)));
        warmUp(t);
        RdmaCall call = new RdmaCall().message(echoCall(t.nextXid(), new byte[8])).reply(Unpooled.buffer())
                .timeout(3, TimeUnit.SECONDS);
        assertThatThrownBy(() -> t.call(call)).isInstanceOf(RdmaCallTimeoutException.class)
                .hasMessageContaining("keep-alive probe not answered");
        RdmaClientStats s = t.stats();
        assertThat(s.get(XprtCounter.KEEPALIVE_PROBES)).isPositive();
        assertThat(s.get(ClientCounter.KEEPALIVE_FAILURES)).isPositive();
        assertThat(s.get(XprtCounter.TIMEOUTS)).isEqualTo(1);
    }

    @Test
    void aServerThatGoesAwayMakesWaitingCallsFailAtTheirTimeoutNamingTheCause() throws Exception {
        TestDevices.assumeSoft("a TCP reset under the connection: the software device's fault injection");
        server.script(c -> {
            server.refuseConnections();
            server.dropConnections();
            return Reply.none();
        });
        RdmaClientTransport t = connect();
        RdmaCall call = new RdmaCall().message(nullCall(t.nextXid())).reply(Unpooled.buffer())
                .timeout(2, TimeUnit.SECONDS);
        assertThatThrownBy(() -> t.call(call)).isInstanceOf(RdmaCallTimeoutException.class)
                .hasMessageContaining("was lost").hasMessageContaining("reconnecting failed");
        assertThat(t.isOpen()).isTrue();
        assertThat(t.stats().get(XprtCounter.CONNECT_FAILURES)).isPositive();
    }

    @Test
    void sendWithInvalidateNamingAnotherCallsHandleIsRefusedAndTheCallsOwnHandleIsInvalidatedLocally()
            throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(clientDevice.attributes().has(
                org.rpcrdma4j.verbs.DeviceCapability.REMOTE_INV), "a device that invalidates remotely");
        List<ReceivedCall> held = new CopyOnWriteArrayList<>();
        server.script(c -> {
            if (c.procedure() == TestProgram.NULL) {
                return TestProgram.serve(c);
            }
            if (c.connection() == 0 && held.isEmpty()) {
                held.add(c);
                return Reply.none();
            }
            if (c.connection() == 0) {
                return TestProgram.serve(c).invalidate(held.get(0).handles()[0]);
            }
            return TestProgram.serve(c);
        });
        RdmaClientTransport t = connect();
        warmUp(t);
        RegisteredBuffer sinkA = registered(t, 12_000);
        RegisteredBuffer sinkB = registered(t, 12_000);
        RdmaCall a = get(t, sinkA, 12_000, 31);
        RdmaCall b = get(t, sinkB, 12_000, 32);
        CountDownLatch aDone = new CountDownLatch(1);
        t.submit(a, c -> aDone.countDown());
        server.nextCall();
        t.call(b);
        ReceivedCall bSeen = server.nextCall();
        assertThat(bytes(sinkB, 0, 12_000)).isEqualTo(TestProgram.pattern(32, 12_000));
        RdmaClientStats s = t.stats();
        assertThat(s.get(ClientCounter.REMOTE_INVALIDATIONS_REFUSED)).isEqualTo(1);
        assertThat(s.get(XprtCounter.REMOTE_INVALIDATIONS)).isZero();
        assertThat(s.get(XprtCounter.LOCAL_INV_NEEDED)).isEqualTo(1);
        // b's own handle was invalidated locally: the server cannot use it (this breaks the connection, and a is
        // sent again on the next one, where it is answered)
        assertProbeFails(bSeen);
        assertThat(aDone.await(60, TimeUnit.SECONDS)).isTrue();
        assertThat(a.failure()).isNull();
        assertThat(bytes(sinkA, 0, 12_000)).isEqualTo(TestProgram.pattern(31, 12_000));
    }

    @Test
    void aReverseDirectionCallIsRecognisedAndNotTakenForTheReplyWithTheSameXid() throws Exception {
        List<ReceivedCall> answers = new CopyOnWriteArrayList<>();
        java.util.concurrent.atomic.AtomicInteger reverseXid = new java.util.concurrent.atomic.AtomicInteger();
        server.script(c -> {
            if (c.call().length >= 8 && Unpooled.wrappedBuffer(c.call()).getInt(4) == 1) {
                answers.add(c); // the client's answer to the reverse-direction call
                return Reply.none();
            }
            reverseXid.set(c.xid());
            ByteBuf m = Unpooled.buffer();
            m.writeInt(c.xid()).writeInt(1).writeInt(8).writeInt(0).writeInt(0).writeInt(0).writeInt(0);
            m.writeInt(c.xid()).writeInt(0).writeInt(2).writeInt(0x40000000).writeInt(1).writeInt(0)
                    .writeInt(0).writeInt(0).writeInt(0).writeInt(0);
            server.sendRaw(bytes(m, 0, m.readableBytes()));
            return TestProgram.serve(c);
        });
        RdmaClientTransport t = connect();
        RegisteredBuffer sink = registered(t, 6000);
        RdmaCall call = get(t, sink, 6000, 8);
        t.call(call);
        assertThat(bytes(sink, 0, 6000)).isEqualTo(TestProgram.pattern(8, 6000));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (answers.isEmpty() && System.nanoTime() - deadline < 0) {
            Thread.sleep(5);
        }
        assertThat(answers).hasSize(1);
        // counted before the answer went out (the refusal is made off the connection's thread, so the call's own
        // reply may complete first)
        RdmaClientStats s = t.stats();
        // taken as a call of the reverse direction (RFC 8167), not as the reply with the same xid; with no reverse
        // program registered it is answered PROG_UNAVAIL, inline, with the call's xid
        assertThat(s.get(ClientCounter.REVERSE_CALLS_RECEIVED)).isEqualTo(1);
        assertThat(s.get(ClientCounter.REVERSE_CALLS_REFUSED)).isEqualTo(1);
        assertThat(s.get(ClientCounter.BACKCHANNEL_CALLS_DROPPED)).isZero();
        assertThat(s.get(XprtCounter.UNKNOWN_XID_REPLIES)).isZero();
        assertThat(s.get(XprtCounter.BAD_REPLY_COUNT)).isZero();
        ReceivedCall answer = answers.get(0);
        assertThat(answer.hasReadChunk() || answer.hasWriteChunk() || answer.hasReplyChunk()).isFalse();
        ByteBuf expected = Unpooled.buffer().writeInt(reverseXid.get()).writeInt(1).writeInt(0).writeInt(0).writeInt(0)
                .writeInt(1);
        assertThat(answer.call()).isEqualTo(bytes(expected, 0, expected.readableBytes()));
        assertThat(answer.xid()).isEqualTo(reverseXid.get());
    }

    @Test
    void aReplyOfAnotherVersionFailsTheCallAsABadReply() throws Exception {
        server.script(c -> {
            ByteBuf m = Unpooled.buffer();
            m.writeInt(c.xid()).writeInt(7).writeInt(8).writeInt(0).writeInt(0).writeInt(0).writeInt(0);
            server.sendRaw(bytes(m, 0, m.readableBytes()));
            return Reply.none();
        });
        RdmaClientTransport t = connect();
        RegisteredBuffer sink = registered(t, 6000);
        RdmaCall call = get(t, sink, 6000, 8);
        assertThatThrownBy(() -> t.call(call)).isInstanceOf(RdmaBadReplyException.class)
                .hasMessageContaining("rdma_vers 7");
        assertThat(t.stats().get(XprtCounter.BAD_REPLY_COUNT)).isEqualTo(1);
        assertProbeFails(server.nextCall());
    }

    @Test
    void inlineMessageOfAnotherCallIsABadReply() throws Exception {
        server.script(c -> {
            Reply r = TestProgram.serve(c);
            byte[] m = patchedXid(r, c.xid() + 1);
            return Reply.of(m, -1, 0);
        });
        RdmaClientTransport t = connect();
        RdmaCall call = new RdmaCall().message(nullCall(t.nextXid())).reply(Unpooled.buffer());
        assertThatThrownBy(() -> t.call(call)).isInstanceOf(RdmaBadReplyException.class)
                .hasMessageContaining("inline message carries xid");
    }

    private static byte[] patchedXid(Reply r, int xid) throws Exception {
        java.lang.reflect.Field f = Reply.class.getDeclaredField("message");
        f.setAccessible(true);
        byte[] m = ((byte[]) f.get(r)).clone();
        java.nio.ByteBuffer.wrap(m).putInt(0, xid);
        return m;
    }

    private void assertProbeFails(ReceivedCall seen) throws Exception {
        List<WcStatus> statuses = server.probe(seen, true);
        assertThat(statuses).isNotEmpty();
        assertThat(statuses.get(0)).as("RDMA WRITE with a handle of a finished call").isNotEqualTo(WcStatus.SUCCESS);
    }

    @Override
    protected FakeRdmaServer.Options serverOptions() {
        return new FakeRdmaServer.Options();
    }
}
