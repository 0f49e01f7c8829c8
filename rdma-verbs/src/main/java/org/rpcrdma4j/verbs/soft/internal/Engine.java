package org.rpcrdma4j.verbs.soft.internal;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One engine thread: a selector serving the sockets of many queue pairs, listeners and handshakes, plus the work
 * other threads hand it. Everything a queue pair does on the wire happens on its engine.
 * <p>
 * Other threads reach an engine in two ways: {@link #execute} queues a control task (connect, accept, disconnect,
 * close; allocates, so not for the data path), and {@link #schedule} pushes a queue pair that has new work requests
 * onto an intrusive lock-free stack (the queue pair is the node; no allocation). Either wakes the selector only if
 * the engine is about to sleep or sleeping. On the engine thread itself no wake-up is needed: the loop looks at the
 * stack before it selects again.
 */
final class Engine implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(Engine.class);

    /** Something registered with the selector. */
    interface Handler {
        /** Called on the engine thread when the key is ready. */
        void onReady(SelectionKey key) throws IOException;

        /** Called on the engine thread when {@link #onReady} threw. */
        void onFailure(Throwable cause);
    }

    /** A deadline on the engine's clock. Created and cancelled on the engine thread only. */
    static final class Timer {
        final long deadline;
        final Runnable action;
        boolean cancelled;

        Timer(long deadline, Runnable action) {
            this.deadline = deadline;
            this.action = action;
        }

        void cancel() {
            cancelled = true;
        }
    }

    final int id;
    final Selector selector;
    private final Thread thread;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final AtomicReference<SoftQp> scheduled = new AtomicReference<>();
    private final AtomicBoolean sleeping = new AtomicBoolean();
    private final ArrayList<Timer> timers = new ArrayList<>();
    private final Consumer<SelectionKey> onKey = this::onKey;
    private volatile boolean stopping;

    Engine(String deviceName, int id) throws IOException {
        this.id = id;
        this.selector = Selector.open();
        this.thread = new EngineThread(this, deviceName + "-engine-" + id);
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    boolean inEngine() {
        return Thread.currentThread() == thread;
    }

    /** Whether the caller is any engine thread (which must never wait for another engine). */
    static boolean onAnyEngine() {
        return Thread.currentThread() instanceof EngineThread;
    }

    /** The engine threads' class, so that code can tell it runs on one. */
    private static final class EngineThread extends Thread {
        EngineThread(Runnable body, String name) {
            super(body, name);
        }
    }

    /** Queues a control task. Any thread. */
    void execute(Runnable task) {
        tasks.add(task);
        if (!inEngine()) {
            wake();
        }
    }

    /** Marks a queue pair as having new work. Any thread; allocation-free. */
    void schedule(SoftQp qp) {
        if (!qp.scheduled.compareAndSet(false, true)) {
            return;
        }
        SoftQp head;
        do {
            head = scheduled.get();
            qp.nextScheduled = head;
        } while (!scheduled.compareAndSet(head, qp));
        if (!inEngine()) {
            wake();
        }
    }

    /** Runs {@code action} on the engine after {@code delayNanos}. Engine thread only. */
    Timer timer(long delayNanos, Runnable action) {
        Timer t = new Timer(System.nanoTime() + delayNanos, action);
        timers.add(t);
        return t;
    }

    private void wake() {
        if (sleeping.compareAndSet(true, false)) {
            selector.wakeup();
        }
    }

    /**
     * Lets the selector drop cancelled keys now (so that a closed channel's socket is really closed when this
     * returns); ready keys met on the way are handled as usual. Engine thread only.
     */
    void flushCancelledKeys() throws IOException {
        selector.selectNow(onKey);
    }

    /** Stops the loop after the tasks queued so far; waits for it unless called on the engine itself. */
    void stop() {
        execute(() -> stopping = true);
        if (!onAnyEngine()) {
            try {
                thread.join(TimeUnit.SECONDS.toMillis(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void run() {
        try {
            while (!stopping) {
                runTasks();
                runScheduled();
                long timeoutMillis = runTimers();
                sleeping.set(true);
                if (!tasks.isEmpty() || scheduled.get() != null || stopping) {
                    sleeping.set(false);
                    selector.selectNow(onKey);
                } else {
                    selector.select(onKey, timeoutMillis);
                    sleeping.set(false);
                }
            }
            runTasks();
        } catch (Throwable t) {
            LOG.error("engine {} stopped by an unexpected error", thread.getName(), t);
        } finally {
            try {
                selector.close();
            } catch (IOException e) {
                LOG.debug("closing the selector", e);
            }
        }
    }

    private void runTasks() {
        Runnable task;
        while ((task = tasks.poll()) != null) {
            try {
                task.run();
            } catch (RuntimeException e) {
                LOG.warn("engine task failed", e);
            }
        }
    }

    private void runScheduled() {
        SoftQp qp = scheduled.getAndSet(null);
        while (qp != null) {
            SoftQp next = qp.nextScheduled;
            qp.nextScheduled = null;
            qp.scheduled.set(false);
            try {
                qp.onScheduled();
            } catch (RuntimeException e) {
                LOG.warn("queue pair {} failed", qp.qpNum(), e);
                qp.onInternalError(e);
            }
            qp = next;
        }
    }

    /** Runs due timers; returns how long the selector may sleep (0: until woken). */
    private long runTimers() {
        if (timers.isEmpty()) {
            return 0;
        }
        long now = System.nanoTime();
        long next = Long.MAX_VALUE;
        for (int i = 0; i < timers.size(); i++) {
            Timer t = timers.get(i);
            if (t.cancelled) {
                timers.remove(i--);
            } else if (t.deadline - now <= 0) {
                timers.remove(i--);
                try {
                    t.action.run();
                } catch (RuntimeException e) {
                    LOG.warn("engine timer failed", e);
                }
            } else {
                next = Math.min(next, t.deadline - now);
            }
        }
        if (next == Long.MAX_VALUE) {
            return 0;
        }
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(next) + 1);
    }

    private void onKey(SelectionKey key) {
        Handler handler = (Handler) key.attachment();
        if (!key.isValid()) {
            return;
        }
        try {
            handler.onReady(key);
        } catch (IOException | RuntimeException e) {
            handler.onFailure(e);
        }
    }

    @Override
    public String toString() {
        return thread.getName();
    }
}
