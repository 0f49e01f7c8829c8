package org.rpcrdma4j.verbs.soft.internal;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.soft.SoftIwarpFaults;

/**
 * {@link SoftIwarpFaults} of one queue pair: each fault is a task on the queue pair's engine, carried out at once when
 * the caller is that engine's thread (a completion listener posting a reply): the engine cannot run a task while that
 * thread is in the listener, and a caller waiting for the fault to take effect would wait for itself.
 */
public final class FaultInjector implements SoftIwarpFaults {
    private static final int APPLY_WAIT_SECONDS = 10;
    private final SoftQp qp;

    FaultInjector(SoftQp qp) {
        this.qp = qp;
    }

    @Override
    public void dropConnection() {
        apply(() -> {
            qp.enterError(SoftQp.TEARDOWN_ABORT, ConnectionEventType.DISCONNECTED,
                    new IOException("fault injected: connection dropped"));
            qp.closeChannel(true);
        });
    }

    @Override
    public void errorUnreported() {
        apply(qp::enterErrorUnreported);
    }

    @Override
    public void corruptNextCrc() {
        apply(qp.tx::faultCorruptNextCrc);
    }

    @Override
    public void truncateNextFrame() {
        apply(qp.tx::faultTruncateNextFrame);
    }

    /**
     * Returns once the delay is in effect (a test can then post and know it is held), unless called on another
     * engine's thread, which must not wait for an engine.
     */
    @Override
    public void delayTransmit(Duration delay) {
        long nanos = delay.toNanos();
        CountDownLatch applied = new CountDownLatch(1);
        apply(() -> {
            qp.tx.faultDelay(nanos);
            qp.engine.timer(nanos, () -> qp.engine.schedule(qp));
            applied.countDown();
        });
        if (Engine.onAnyEngine() || qp.engine.inEngine()) {
            return; // in effect already under this queue pair's engine's claim; another engine must not wait for it
        }
        try {
            applied.await(APPLY_WAIT_SECONDS, TimeUnit.SECONDS); // a stopped engine never runs it
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Carries {@code fault} out now on the queue pair's engine thread or under its claim (a completion listener called
     * by a posting thread); elsewhere queues it there.
     */
    private void apply(Runnable fault) {
        if (qp.engine.inEngine()) {
            fault.run();
        } else {
            qp.engine.execute(fault);
        }
    }
}
