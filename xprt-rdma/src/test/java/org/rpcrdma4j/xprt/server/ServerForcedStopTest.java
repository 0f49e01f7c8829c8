package org.rpcrdma4j.xprt.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.codec.RpcRdmaProc;
import org.rpcrdma4j.verbs.Access;

/**
 * A stop whose timeout passes while a program's reply is still being made: the connection is closed by force, and the
 * reply, handed over once made, still ends: its program hears it was not sent. It used to sit in the closed
 * connection's mailbox, which no agent takes any more, with its handler never called.
 */
@Timeout(120)
class ServerForcedStopTest extends ServerFixture {
    @Override
    void configure(RdmaRpcServer.Builder builder) {
        // the reply waits longer for copy memory than the stop waits for the call
        builder.registeredMemory(16 << 20).bufferWait(Duration.ofSeconds(2)).stopTimeout(Duration.ofMillis(100));
    }

    @Test
    void aReplyMadeAfterAForcedCloseStillTellsItsProgram() throws Exception {
        int failures = program.sendFailures.get();
        RawClient c = client(false);
        RawClient.Chunk sink = c.registered(128 << 10, Access.REMOTE_WRITE | Access.LOCAL_WRITE);
        takeEveryFreePage();
        long waits = server.bufferPool.waits();
        // READ_PLAIN's result is in unregistered memory: it waits for registered memory to be copied into
        c.send(RawClient.header().xid(0x91).credits(32).proc(RpcRdmaProc.RDMA_MSG)
                .beginWriteChunk().addWriteSegment(sink.stag, 128 << 10, sink.iova),
                Rpc.echoCall(0x91, EchoProgram.READ_PLAIN, Rpc.ints(100_000, 9)));
        await("the reply waits for copy memory", () -> server.bufferPool.waits() > waits);

        server.stop(); // the call does not end within the stop's timeout: its connection is closed by force

        await("the program heard its reply was not sent", () -> program.sendFailures.get() > failures);
        await("the program's buffer went back", () -> program.buffersReleased.get() > 0);
        closeClient(c);
    }

    /** The server is stopped by the test: nothing to look for in it but what the test checks. */
    @AfterEach
    @Override
    void closeClientsAndCheckLeaks() {
        giveThePagesBack();
    }
}
