package org.rpcrdma4j.verbs.disni;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The device's completion-event thread: it takes completion events from the channels of armed completion queues and
 * calls their listeners.
 * <p>
 * DiSNI cannot wait on several completion channels at once (its {@code getCqEvent} polls one channel's descriptor), so
 * the thread scans the armed queues without waiting and, when nothing happened, sleeps for a time that doubles from
 * 1 microsecond up to {@code maxIdle}; any event or arming resets it. With no armed queue it sleeps until one is armed.
 * The cost of this design is a notification latency of at most {@code maxIdle} after a quiet period; consumers that
 * need less poll the queue themselves.
 */
final class CompletionEventLoop implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(CompletionEventLoop.class);
    private static final DisniCompletionQueue[] NONE = new DisniCompletionQueue[0];
    private static final long REMOVE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final long maxIdleNanos;
    private final Object lock = new Object();
    private volatile DisniCompletionQueue[] queues = NONE;
    private volatile boolean running = true;
    private volatile long passes;
    private volatile Thread thread;

    CompletionEventLoop(long maxIdleNanos) {
        this.maxIdleNanos = maxIdleNanos;
    }

    /** Starts the thread. */
    void start(String name) {
        Thread t = new Thread(this, name);
        t.setDaemon(true);
        thread = t;
        t.start();
    }

    void add(DisniCompletionQueue cq) {
        synchronized (lock) {
            DisniCompletionQueue[] q = Arrays.copyOf(queues, queues.length + 1);
            q[q.length - 1] = cq;
            queues = q;
        }
        wake();
    }

    /** Removes a queue; on return the thread no longer touches it. */
    void remove(DisniCompletionQueue cq) {
        synchronized (lock) {
            DisniCompletionQueue[] q = queues;
            int n = 0;
            DisniCompletionQueue[] r = new DisniCompletionQueue[q.length];
            for (DisniCompletionQueue x : q) {
                if (x != cq) {
                    r[n++] = x;
                }
            }
            queues = Arrays.copyOf(r, n);
        }
        awaitPasses(2);
    }

    /** Wakes the thread (a queue was armed or has provider completions). */
    void wake() {
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /** Stops the thread and waits for it. */
    void stop() {
        running = false;
        Thread t = thread;
        if (t != null && t != Thread.currentThread()) {
            LockSupport.unpark(t);
            try {
                t.join(TimeUnit.NANOSECONDS.toMillis(REMOVE_WAIT_NANOS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void awaitPasses(int count) {
        Thread t = thread;
        if (t == null || t == Thread.currentThread() || !t.isAlive()) {
            return;
        }
        long target = passes + count;
        long deadline = System.nanoTime() + REMOVE_WAIT_NANOS;
        while (passes < target && running && t.isAlive()) {
            if (System.nanoTime() > deadline) {
                LOG.warn("completion event thread did not finish a pass in time");
                return;
            }
            LockSupport.unpark(t);
            Thread.onSpinWait();
        }
    }

    @Override
    public void run() {
        long idle = 0;
        while (running) {
            boolean anyArmed = false;
            boolean progress = false;
            for (DisniCompletionQueue cq : queues) {
                if (cq.isArmed()) {
                    anyArmed = true;
                    progress |= cq.checkEvent();
                }
            }
            passes++;
            if (progress) {
                idle = 0;
            } else if (!anyArmed) {
                idle = 0;
                LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(100));
            } else {
                idle = idle == 0 ? 1000 : Math.min(idle * 2, maxIdleNanos);
                LockSupport.parkNanos(this, idle);
            }
        }
    }
}
