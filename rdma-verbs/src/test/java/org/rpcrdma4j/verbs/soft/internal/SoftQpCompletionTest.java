package org.rpcrdma4j.verbs.soft.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.WcOpcode;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.rpcrdma4j.verbs.conformance.VerbsFixture;

/**
 * Whoever makes the transmitter write (a posting thread, the engine, a timer), what it wrote completes. Without
 * placement confirmation a Send is done once written; one written by the initiator's wake-up timer (the responder has
 * not spoken yet, so the timer is armed during a connection's first second) used to stay done but unreported, and
 * the consumer waited for its completion for ever.
 */
@Timeout(60)
class SoftQpCompletionTest extends VerbsFixture {

    @Override
    protected RdmaDevice newDevice() throws Exception {
        return RdmaProviders.select("soft").open(Map.of("wakeResponder", "true", "confirmPlacement", "false"));
    }

    @Override
    protected RdmaDevice newPeerDevice() {
        return device;
    }

    @Test
    void aSendTheWakeUpTimerWritesCompletes() throws Exception {
        Connection c = connect();
        RegisteredMemory out = register(c.client().pd, 64, Access.LOCAL_WRITE);
        RegisteredMemory in = register(c.server().pd, 64, Access.LOCAL_WRITE);
        out.buffer().put(0, "first".getBytes(StandardCharsets.US_ASCII));
        out.buffer().put(8, "second".getBytes(StandardCharsets.US_ASCII));
        c.server().qp.postRecv(recv(11, in, 0, 16));
        c.server().qp.postRecv(recv(12, in, 16, 16));
        c.client().qp.postSend(send(1, out, 0, 5)); // the first message: the wake-up timer is armed
        assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.SUCCESS);

        SoftQp client = (SoftQp) c.client().qp;
        CompletableFuture<Void> fired = new CompletableFuture<>();
        client.engine.execute(() -> {
            try {
                // queued but not yet transmitted when the timer fires, as a large Send left to the engine can be
                client.sq.post(send(2, out, 8, 6));
                client.onWakeTimer();
                fired.complete(null);
            } catch (Throwable e) {
                fired.completeExceptionally(e);
            }
        });
        fired.get(WAIT.toSeconds(), TimeUnit.SECONDS);

        WorkCompletion second = await(c.client().sendCq);
        assertThat(second.wrId).isEqualTo(2);
        assertThat(second.status).isEqualTo(WcStatus.SUCCESS);
        assertThat(second.opcode).isEqualTo(WcOpcode.SEND);
        awaitAll(c.server().recvCq, 2);
        assertThat(bytes(in.buffer(), 16, 6)).isEqualTo("second".getBytes(StandardCharsets.US_ASCII));
    }
}
