package org.rpcrdma4j.verbs.soft.internal;

import java.util.concurrent.atomic.AtomicInteger;

import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A completion queue: a ring of {@link WorkCompletion} entries made once. Engine threads add (copying into a ring
 * entry), one consumer thread polls (copying out). Both take the queue's monitor briefly; nothing is allocated.
 * <p>
 * The listener is called on the engine thread that added the completion which found the queue armed, outside the
 * monitor: at once, or, while that thread handles a socket's readiness, once it has handled the FPDUs it read (before
 * it reads the socket again, at the latest when the event is done; see {@link Engine#deferNotification}). So one call
 * tells the consumer of all the completions one read produced. A full queue drops the completion and reports an
 * overrun to the adding queue pair, which goes to error.
 */
final class SoftCq implements CompletionQueue {
    private static final Logger LOG = LoggerFactory.getLogger(SoftCq.class);

    private final SoftDevice device;
    private final WorkCompletion[] ring;
    private final int mask;
    private final AtomicInteger users = new AtomicInteger();
    private long head;
    private long tail;
    private boolean armed;
    private boolean overrunLogged;
    private volatile CompletionListener listener;
    private volatile boolean closed;

    SoftCq(SoftDevice device, int entries) {
        this.device = device;
        int size = 1;
        while (size < entries) {
            size <<= 1;
        }
        ring = new WorkCompletion[size];
        for (int i = 0; i < size; i++) {
            ring[i] = new WorkCompletion();
        }
        mask = size - 1;
    }

    @Override
    public int capacity() {
        return ring.length;
    }

    /**
     * Adds a copy of {@code completion}; calls the listener if the queue was armed.
     *
     * @return false when the queue was full (the completion is lost: an overrun)
     */
    boolean add(WorkCompletion completion) {
        boolean notify = false;
        synchronized (this) {
            if (closed) {
                return true;
            }
            if (tail - head >= ring.length) {
                if (!overrunLogged) {
                    overrunLogged = true;
                    LOG.warn("completion queue of {} entries overrun; completions are lost", ring.length);
                }
                return false;
            }
            ring[(int) (tail & mask)].copyFrom(completion);
            tail++;
            if (armed) {
                armed = false;
                notify = true;
            }
        }
        if (notify && !Engine.deferNotification(this)) {
            notifyListener();
        }
        return true;
    }

    /** Calls the listener (the queue was armed and has a new completion). Outside the monitor. */
    void notifyListener() {
        CompletionListener l = listener;
        if (l != null) {
            try {
                l.onCompletion(this);
            } catch (RuntimeException | Error e) {
                LOG.warn("completion listener failed", e);
            }
        }
    }

    @Override
    public int poll(WorkCompletion[] batch) {
        synchronized (this) {
            int n = (int) Math.min(batch.length, tail - head);
            for (int i = 0; i < n; i++) {
                batch[i].copyFrom(ring[(int) (head & mask)]);
                head++;
            }
            return n;
        }
    }

    @Override
    public void requestNotify() {
        synchronized (this) {
            armed = true;
        }
    }

    @Override
    public void setListener(CompletionListener listener) {
        this.listener = listener;
    }

    void attach() {
        users.incrementAndGet();
    }

    void detach() {
        users.decrementAndGet();
    }

    @Override
    public void close() throws VerbsException {
        if (closed) {
            return;
        }
        if (users.get() > 0) {
            throw new VerbsException("completion queue still used by " + users.get() + " queue pairs");
        }
        release();
    }

    /** Marks the queue closed and updates the device's counts. Idempotent. */
    void release() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        device.completionQueueClosed(this);
    }

    boolean isClosed() {
        return closed;
    }
}
