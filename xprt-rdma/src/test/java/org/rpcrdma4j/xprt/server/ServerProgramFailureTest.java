package org.rpcrdma4j.xprt.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.codec.RpcRdmaProc;
import org.rpcrdma4j.registration.RegistrationMode;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.xprt.TestDevices;

/**
 * A program that throws an {@link Error}, and an {@code Error} while a call's RDMA READs are prepared: the call is
 * answered (SYSTEM_ERR) or its connection dropped, its slot and credit come back, and no memory stays behind, also
 * when the connection went while the program held the call (checked after each test: no connection, no page in use).
 * Five slots per connection, so that a slot that never came back would stop the connection within a few calls. And a
 * program that replies twice: the second reply never reaches the call its slot carries by then.
 */
@Timeout(120)
class ServerProgramFailureTest extends ServerFixture {
    private static final int SLOTS = 5;
    private FaultyServerDevice device;

    @Override
    RdmaDevice serverDevice() throws Exception {
        device = new FaultyServerDevice(TestDevices.open(Map.of("name", "test-server", "engineThreads", "1")));
        return device;
    }

    @Override
    void configure(RdmaRpcServer.Builder builder) {
        // READ sinks registered on the io thread through the device, where the test can make it fail
        builder.credits(SLOTS - 1).receiveMargin(1).registrationMode(RegistrationMode.REG_MR);
    }

    @AfterEach
    void noMoreFailures() {
        device.fail(null);
        program.failure = () -> new StackOverflowError("deep in the test's decoder");
    }

    /** xid | REPLY | MSG_ACCEPTED | AUTH_NONE verifier | SYSTEM_ERR. */
    private static ByteBuf systemErr(int xid) {
        return Rpc.ints(xid, 1, 0, 0, 0, 5);
    }

    private static final int POSITION = Rpc.ARGS_OFFSET_AUTH_NONE + 4;

    /** Sends a call of {@code procedure} whose opaque argument, {@code data}, is a read chunk at its position. */
    private static void sendWithReadChunk(RawClient c, int xid, int procedure, byte[] data) throws Exception {
        RawClient.Chunk chunk = c.registered(data.length, Access.REMOTE_READ);
        chunk.memory.put(0, data);
        c.send(RawClient.header().xid(xid).credits(32).proc(RpcRdmaProc.RDMA_MSG)
                .addReadSegment(POSITION, chunk.stag, data.length, chunk.iova),
                Rpc.echoCall(xid, procedure, Rpc.ints(data.length)));
    }

    @Test
    void aProgramThatThrowsAnErrorIsAnsweredSystemErrAndItsSlotServesTheNextCalls() throws Exception {
        RawClient c = client(false);
        for (int i = 0; i < 3 * SLOTS; i++) {
            int xid = 0x100 + i;
            program.failure = i % 2 == 0 ? () -> new StackOverflowError("deep in the test's decoder")
                    : () -> new AssertionError("a broken invariant in the test's program");
            c.send(RawClient.header().xid(xid).credits(32).proc(RpcRdmaProc.RDMA_MSG),
                    Rpc.echoCall(xid, EchoProgram.FAIL, Rpc.opaque(EchoProgram.pattern(100, i))));
            Rpc.assertBytes(c.receive().message(), systemErr(xid));
        }
        c.send(RawClient.header().xid(0x1ff).credits(32).proc(RpcRdmaProc.RDMA_MSG),
                Rpc.echoCall(0x1ff, EchoProgram.NULL, null));
        Rpc.assertBytes(c.receive().message(), Rpc.successHeader(0x1ff));
    }

    @Test
    void aProgramThatThrowsAnErrorOverReadChunkDataIsAnsweredAndTheCallsMemoryComesBack() throws Exception {
        RawClient c = client(false);
        int idle = server.registeredPagesInUse();
        for (int i = 0; i < 2 * SLOTS; i++) {
            int xid = 0x200 + i;
            sendWithReadChunk(c, xid, EchoProgram.FAIL, EchoProgram.pattern(64 << 10, i));
            Rpc.assertBytes(c.receive().message(), systemErr(xid));
        }
        await("the calls' memory back", () -> server.registeredPagesInUse() == idle);
    }

    /** The client goes while the program holds the call; the program then throws: its call's memory comes back. */
    @Test
    void aProgramThatThrowsAnErrorAfterItsConnectionWentLeavesNoMemoryBehind() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        program.failure = () -> {
            entered.countDown();
            try {
                go.await(RawClient.WAIT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new StackOverflowError("deep in the test's decoder");
        };
        RawClient c = client(false);
        sendWithReadChunk(c, 0x301, EchoProgram.FAIL, EchoProgram.pattern(64 << 10, 1));
        assertThat(entered.await(RawClient.WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        assertThat(server.registeredPagesInUse()).isPositive();
        closeClient(c);
        await("the connection closed", () -> server.connectionCount() == 0);
        go.countDown();
        await("the call's memory back", () -> server.registeredPagesInUse() == 0);
    }

    /**
     * A slot freed is the next one taken: the call after TWICE's first reply is carried by TWICE's slot when the
     * program replies again, and that second reply is dropped instead of answering it. oncrpc4j encodes the second
     * reply into the first call's stream, which was over the slot's memory: the next call's arguments, still to be
     * decoded, come through whole.
     */
    @Test
    void aSecondReplyOfAProgramNeverReachesTheNextCallOfItsSlot() throws Exception {
        RawClient c = client(false);
        long errChunks = counter(ServerCounter.ERR_CHUNK_SENT);
        int sent = program.firstRepliesSent.get();
        c.send(RawClient.header().xid(0x501).credits(32).proc(RpcRdmaProc.RDMA_MSG),
                Rpc.echoCall(0x501, EchoProgram.TWICE, Rpc.ints(0x501)));
        Rpc.assertBytes(c.receive().message(), Rpc.successHeader(0x501));
        await("the first reply done, its slot free", () -> program.firstRepliesSent.get() > sent);
        int started = program.slowStarted.get();
        byte[] data = EchoProgram.pattern(512, 0x502);
        c.send(RawClient.header().xid(0x502).credits(32).proc(RpcRdmaProc.RDMA_MSG),
                Rpc.echoCall(0x502, EchoProgram.LATE_ECHO, Rpc.concat(Rpc.ints(0x502), Rpc.opaque(data))));
        await("the next call runs, its data not decoded yet", () -> program.slowStarted.get() > started);
        program.release(0x501); // the second reply
        java.util.Optional<Throwable> second = program.secondReplies.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(second).as("what became of the second reply").isNotNull();
        assertThat(second).as("the second reply was not sent").isPresent();
        assertThat(second.get()).isInstanceOf(IllegalStateException.class).hasMessageContaining("0x501");
        program.release(0x502);
        Rpc.assertBytes(c.receive().message(), Rpc.concat(Rpc.successHeader(0x502), Rpc.opaque(data)));
        assertThat(counter(ServerCounter.ERR_CHUNK_SENT) - errChunks).isZero();
    }

    @Test
    void anErrorWhileTheReadsArePreparedDropsTheConnectionAndReleasesEverything() throws Exception {
        long dropped = counter(ServerCounter.DROPPED_INTERNAL_ERROR);
        byte[] data = EchoProgram.pattern(64 << 10, 5);
        RawClient c = client(false);
        device.fail(() -> new OutOfMemoryError("no memory for the test's registration"));
        sendWithReadChunk(c, 0x401, EchoProgram.DIGEST, data);
        assertThat(c.awaitDisconnected(WAIT)).as("the connection is dropped").isTrue();
        closeClient(c);
        awaitNoLeaks();
        assertThat(counter(ServerCounter.DROPPED_INTERNAL_ERROR) - dropped).isEqualTo(1);
        // the client sends the call again on a new connection, and it is served
        device.fail(null);
        RawClient again = client(false);
        sendWithReadChunk(again, 0x401, EchoProgram.DIGEST, data);
        CRC32C crc = new CRC32C();
        crc.update(data);
        Rpc.assertBytes(again.receive().message(), Rpc.concat(Rpc.successHeader(0x401),
                Rpc.ints(data.length, (int) crc.getValue())));
    }
}
