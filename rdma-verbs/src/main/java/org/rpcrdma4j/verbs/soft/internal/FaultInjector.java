package org.rpcrdma4j.verbs.soft.internal;

import java.io.IOException;
import java.time.Duration;

import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.soft.SoftIwarpFaults;

/** {@link SoftIwarpFaults} of one queue pair: each fault is a task on the queue pair's engine. */
public final class FaultInjector implements SoftIwarpFaults {
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
    public void corruptNextCrc() {
        qp.engine.execute(qp.tx::faultCorruptNextCrc);
    }

    @Override
    public void truncateNextFrame() {
        qp.engine.execute(qp.tx::faultTruncateNextFrame);
    }

    @Override
    public void delayTransmit(Duration delay) {
        long nanos = delay.toNanos();
        qp.engine.execute(() -> {
            qp.tx.faultDelay(nanos);
            qp.engine.timer(nanos, () -> qp.engine.schedule(qp));
        });
    }
}
