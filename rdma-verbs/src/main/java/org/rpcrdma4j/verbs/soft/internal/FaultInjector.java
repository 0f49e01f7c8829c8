package org.rpcrdma4j.verbs.soft.internal;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.soft.SoftIwarpFaults;

/** {@link SoftIwarpFaults} of one queue pair: each fault is a task on the queue pair's engine. */
public final class FaultInjector implements SoftIwarpFaults {
    private static final int APPLY_WAIT_SECONDS = 10;
    private final SoftQp qp;

    FaultInjector(SoftQp qp) {
        this.qp = qp;
    }

    @Override
    public void dropConnection() {
        qp.engine.execute(() -> {
            qp.enterError(SoftQp.TEARDOWN_ABORT, ConnectionEventType.DISCONNECTED,
                    new IOException("fault injected: connection dropped"));
            qp.closeChannel(true);
        });
    }

    @Override
    public void errorUnreported() {
        qp.engine.execute(qp::enterErrorUnreported);
    }

    @Override
    public void corruptNextCrc() {
        qp.engine.execute(qp.tx::faultCorruptNextCrc);
    }

    @Override
    public void truncateNextFrame() {
        qp.engine.execute(qp.tx::faultTruncateNextFrame);
    }

    /** Returns once the delay is in effect (a test can then post and know it is held), unless on an engine thread. */
    @Override
    public void delayTransmit(Duration delay) {
        long nanos = delay.toNanos();
        CountDownLatch applied = new CountDownLatch(1);
        qp.engine.execute(() -> {
            qp.tx.faultDelay(nanos);
            qp.engine.timer(nanos, () -> qp.engine.schedule(qp));
            applied.countDown();
        });
        if (Engine.onAnyEngine()) {
            return; // the engine runs the task once this thread's callback returns
        }
        try {
            applied.await(APPLY_WAIT_SECONDS, TimeUnit.SECONDS); // a stopped engine never runs it
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
