package org.rpcrdma4j.verbs.soft.internal;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
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
 * <p>
 * <b>The engine's claim.</b> Everything the engine owns (its queue pairs' transmitters, receivers, read queues,
 * completion decisions, its timers and selector registrations) is touched only by the holder of the engine's claim.
 * The engine thread holds it whenever it runs, and lets go only while it waits in {@code select}. Another thread may
 * take it then ({@link #tryClaim()}) to do a short piece of the engine's work itself — a thread that posts a send
 * work request to an idle queue pair transmits it at once, as Linux siw does in {@code post_send}, instead of waking
 * the engine. The engine thread, when {@code select} returns while another thread holds the claim, waits for it
 * (the holder only builds and writes what was posted, never blocks). The claim is the happens-before edge between
 * the holders. Work a holder leaves for the engine (tasks, scheduled queue pairs, timers, a changed interest set) is
 * noted and the engine woken when the claim is released.
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

    /**
     * A deadline on the engine's clock. Created, armed and cancelled by the engine's claim holder only. A timer may be
     * armed again after it fired or was cancelled ({@link #arm}), so that a deadline set per message costs no
     * allocation.
     */
    static final class Timer {
        long deadline;
        final Runnable action;
        boolean cancelled;
        /** Whether the timer is in the engine's list (armed, or cancelled and not yet dropped). */
        boolean queued;

        Timer(Runnable action) {
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
    /** The holder of the engine's claim (see the class comment); null while the engine waits in select, unclaimed. */
    private final AtomicReference<Thread> holder = new AtomicReference<>();
    /** Set by a holder other than the engine thread that left work the engine must see: wake it on release. */
    private boolean wakeOnRelease;
    /** The engine thread is parked waiting for the claim: the holder unparks it on release. */
    private volatile boolean engineWaiting;
    /** Spins of the engine thread waiting for the claim before it parks. */
    private static final int SPINS = 64;
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

    /** Whether the calling thread may touch what the engine owns: the engine thread, or the holder of its claim. */
    boolean inEngine() {
        Thread current = Thread.currentThread();
        return current == thread || holder.get() == current;
    }

    /** Whether the calling thread is this engine's own thread (which holds its claim whenever it runs code). */
    boolean isEngineThread() {
        return Thread.currentThread() == thread;
    }

    /**
     * Takes the engine's claim for the calling thread (not the engine's) when the engine is idle in {@code select};
     * false otherwise (the engine runs, or another thread holds it). Not re-entrant. Allocation-free.
     */
    boolean tryClaim() {
        return holder.compareAndSet(null, Thread.currentThread());
    }

    /**
     * {@link #tryClaim()}, but only when no control task is queued: a task queued before (a fault, a disconnect)
     * must take effect before whatever the claimer would do, as it would when the engine ran both in order.
     */
    boolean tryClaimWithoutTasks() {
        if (!tasks.isEmpty() || !tryClaim()) {
            return false;
        }
        if (!tasks.isEmpty()) {
            releaseClaim();
            return false;
        }
        return true;
    }

    /** Ends a claim taken with {@link #tryClaim()}; wakes the engine when the holder left work for it. */
    void releaseClaim() {
        boolean wakeNow = wakeOnRelease || !tasks.isEmpty() || scheduled.get() != null;
        wakeOnRelease = false;
        holder.set(null);
        if (engineWaiting) {
            LockSupport.unpark(thread);
        }
        if (wakeNow) {
            wake();
        }
    }

    /** A claim holder (not the engine thread) left work the engine must look at: it is woken on release. */
    void wakeAfterClaim() {
        if (Thread.currentThread() != thread) {
            wakeOnRelease = true;
        }
    }

    /**
     * The engine thread's claim: waits out another holder, whose claim lasts microseconds — spinning briefly, then
     * parked until the holder lets go (a holder that lost its processor must not be spun against).
     */
    private void claimForEngine() {
        if (holder.get() == thread) {
            return;
        }
        int spins = 0;
        while (!holder.compareAndSet(null, thread)) {
            if (++spins < SPINS) {
                Thread.onSpinWait();
                continue;
            }
            engineWaiting = true;
            if (holder.compareAndSet(null, thread)) {
                break; // let go before it could see that the engine waits
            }
            LockSupport.park(this);
        }
        engineWaiting = false;
    }

    /** Whether the caller is any engine thread (which must never wait for another engine). */
    static boolean onAnyEngine() {
        return Thread.currentThread() instanceof EngineThread;
    }

    /**
     * The engine threads' class, so that code can tell it runs on one. It also keeps the completion queues whose
     * listeners wait to be called at the end of the current readiness event ({@link #deferNotification}).
     */
    private static final class EngineThread extends Thread {
        /** Within a readiness event: completion listeners are called when it ends, or before the socket is read. */
        private boolean deferring;
        private SoftCq[] pending = new SoftCq[8];
        private int pendingCount;
        private boolean notifying;
        /** Queue pairs whose transmission waits for the listeners being called to return. */
        private SoftQp[] transmits = new SoftQp[8];
        private int transmitCount;

        EngineThread(Runnable body, String name) {
            super(body, name);
        }

        void defer(SoftCq cq) {
            if (pendingCount == pending.length) {
                pending = Arrays.copyOf(pending, pendingCount * 2); // more queues armed in one event than ever before
            }
            pending[pendingCount++] = cq;
        }

        /**
         * Calls the deferred listeners, in the order their queues were notified; completions they cause notify at
         * once. Re-entered (a listener's work handling another readiness event), it leaves the queues to the outer
         * call, which also calls those deferred meanwhile.
         */
        void notifyPending() {
            if (notifying) {
                return;
            }
            notifying = true;
            boolean was = deferring;
            deferring = false;
            try {
                for (int i = 0; i < pendingCount; i++) {
                    SoftCq cq = pending[i];
                    pending[i] = null;
                    cq.notifyListener();
                }
                pendingCount = 0;
            } finally {
                notifying = false;
                deferring = was;
                transmitDeferred();
            }
        }

        boolean deferTransmit(SoftQp qp) {
            if (!notifying) {
                return false;
            }
            if (!qp.transmitDeferred) {
                if (transmitCount == transmits.length) {
                    transmits = Arrays.copyOf(transmits, transmitCount * 2);
                }
                qp.transmitDeferred = true;
                transmits[transmitCount++] = qp;
            }
            return true;
        }

        /** Transmits what the listeners posted; completions this makes notify at once. */
        private void transmitDeferred() {
            for (int i = 0; i < transmitCount; i++) {
                SoftQp qp = transmits[i];
                transmits[i] = null;
                qp.transmitDeferred = false;
                serve(qp);
            }
            transmitCount = 0;
        }
    }

    /**
     * On an engine thread handling a readiness event, takes over the call of {@code cq}'s completion listener, which
     * is then called once the event has been handled, or before the socket is read again
     * ({@link #notifyDeferred}), whichever comes first: the completions of the FPDUs one read brought reach their
     * consumer in one call instead of one each (a Read Response that completes a Send and the request right behind
     * it, say). False elsewhere: the caller calls the listener itself.
     */
    static boolean deferNotification(SoftCq cq) {
        if (Thread.currentThread() instanceof EngineThread engineThread && engineThread.deferring) {
            engineThread.defer(cq);
            return true;
        }
        return false;
    }

    /**
     * On {@code qp}'s engine thread calling completion listeners ({@link #notifyDeferred}), takes over the transmission
     * of what a listener posts to {@code qp}: it goes when the listeners have returned, with whatever else they posted
     * to it, in one gathering write. False elsewhere, another engine's thread included (one that holds {@code qp}'s
     * engine's claim only for the post): the caller transmits itself, under the claim it holds.
     */
    static boolean deferTransmit(SoftQp qp) {
        return Thread.currentThread() == qp.engine.thread && qp.engine.thread instanceof EngineThread engineThread
                && engineThread.deferTransmit(qp);
    }

    /** Calls the listeners deferred so far on this engine thread ({@link #deferNotification}); elsewhere nothing. */
    static void notifyDeferred() {
        if (Thread.currentThread() instanceof EngineThread engineThread && engineThread.pendingCount > 0) {
            engineThread.notifyPending();
        }
    }

    /** Queues a control task. Any thread. */
    void execute(Runnable task) {
        tasks.add(task);
        if (!inEngine()) {
            wake();
        }
    }

    /** Marks a queue pair as having new work. Any thread; allocation-free. A claim holder's wakes the engine on release. */
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

    /** Runs {@code action} on the engine after {@code delayNanos}. Engine thread or claim holder only. */
    Timer timer(long delayNanos, Runnable action) {
        Timer t = new Timer(action);
        arm(t, delayNanos);
        return t;
    }

    /**
     * Arms {@code t} (made by this engine's {@link Timer#Timer}) to run after {@code delayNanos}, replacing an earlier
     * deadline of it: allocation-free once the engine's timer list has grown to its working size. Engine thread or
     * claim holder only.
     */
    void arm(Timer t, long delayNanos) {
        t.deadline = System.nanoTime() + delayNanos;
        t.cancelled = false;
        if (!t.queued) {
            t.queued = true;
            timers.add(t);
        }
        wakeAfterClaim();
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
        if (!onAnyEngine() && !inEngine()) {
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
            claimForEngine();
            while (!stopping) {
                runTasks();
                runScheduled();
                long timeoutMillis = runTimers();
                sleeping.set(true);
                if (!tasks.isEmpty() || scheduled.get() != null || stopping) {
                    sleeping.set(false);
                    selector.selectNow(onKey);
                } else {
                    holder.set(null); // idle: another thread may claim the engine while it waits
                    selector.select(onKey, timeoutMillis);
                    claimForEngine();
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
            } catch (Throwable e) {
                LOG.error("engine task failed", e); // the engine serves its other queue pairs on
            }
        }
    }

    /** Does the work a queue pair was scheduled for; a failure in it ends the queue pair, not the engine. */
    private static void serve(SoftQp qp) {
        try {
            qp.onScheduled();
        } catch (Throwable e) {
            fail(qp, e);
        }
    }

    /**
     * Ends what {@code handler} serves after it threw {@code cause} (an Error too: an assertion in a listener, a
     * failed allocation), so that one queue pair's failure does not stop the engine and every other one with it.
     */
    private static void fail(Handler handler, Throwable cause) {
        try {
            handler.onFailure(cause);
        } catch (Throwable e) {
            e.addSuppressed(cause);
            LOG.error("ending {} after a failure failed too", handler, e);
        }
    }

    private void runScheduled() {
        SoftQp qp = scheduled.getAndSet(null);
        while (qp != null) {
            SoftQp next = qp.nextScheduled;
            qp.nextScheduled = null;
            qp.scheduled.set(false);
            serve(qp);
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
                t.queued = false;
            } else if (t.deadline - now <= 0) {
                timers.remove(i--);
                t.queued = false;
                try {
                    t.action.run();
                } catch (Throwable e) {
                    LOG.error("engine timer failed", e);
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
        claimForEngine();
        Handler handler = (Handler) key.attachment();
        if (!key.isValid()) {
            return;
        }
        EngineThread engineThread = (EngineThread) thread;
        engineThread.deferring = true;
        try {
            handler.onReady(key);
        } catch (Throwable e) {
            fail(handler, e);
        } finally {
            engineThread.deferring = false;
            engineThread.notifyPending();
        }
    }

    @Override
    public String toString() {
        return thread.getName();
    }
}
