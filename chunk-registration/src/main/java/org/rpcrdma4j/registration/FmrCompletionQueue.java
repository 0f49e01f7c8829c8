package org.rpcrdma4j.registration;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;

import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WcOpcode;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * The send completion queue as the transport sees it under FMR: the device's queue, with the synthetic
 * {@link WcOpcode#FMR_UNMAP} completions of finished unmap batches returned ahead of the device's own. So an FMR
 * invalidation ends, like an FRWR one, with a completion that the transport routes to
 * {@link RegistrationPool#onCompletion}.
 * <p>
 * Arming ({@link #requestNotify()}) arms the device queue too; the listener fires once for whichever comes first, a
 * device completion or a synthetic one (the latter on the unmap thread). Poll from one thread, as any queue.
 */
final class FmrCompletionQueue implements CompletionQueue {
    private final CompletionQueue device;
    private final AtomicBoolean armed = new AtomicBoolean();
    private volatile CompletionListener listener;
    /** Ring of pending synthetic completions. Guarded by this. */
    private long[] wrIds = new long[64];
    private WcStatus[] statuses = new WcStatus[64];
    private int head;
    private int size;

    FmrCompletionQueue(CompletionQueue device) {
        this.device = device;
        device.setListener(cq -> fire());
    }

    @Override
    public int capacity() {
        return device.capacity();
    }

    /** Synthetic completions first; the device's when there are none. */
    @Override
    public int poll(WorkCompletion[] batch) {
        int n = 0;
        synchronized (this) {
            while (size > 0 && n < batch.length) {
                WorkCompletion wc = batch[n++].clear();
                wc.wrId = wrIds[head];
                wc.status = statuses[head];
                wc.opcode = WcOpcode.FMR_UNMAP;
                head = (head + 1) % wrIds.length;
                size--;
            }
        }
        if (n > 0) {
            return n;
        }
        return device.poll(batch);
    }

    @Override
    public void requestNotify() {
        armed.set(true);
        device.requestNotify();
    }

    @Override
    public void setListener(CompletionListener listener) {
        this.listener = listener;
    }

    /** Queues a synthetic completion (unmap thread) and fires the listener if armed. */
    void deliver(long wrId, WcStatus status) {
        synchronized (this) {
            if (size == wrIds.length) {
                grow();
            }
            int tail = (head + size) % wrIds.length;
            wrIds[tail] = wrId;
            statuses[tail] = status;
            size++;
        }
        fire();
    }

    private void grow() {
        long[] w = new long[wrIds.length * 2];
        WcStatus[] s = new WcStatus[w.length];
        for (int i = 0; i < size; i++) {
            w[i] = wrIds[(head + i) % wrIds.length];
            s[i] = statuses[(head + i) % wrIds.length];
        }
        wrIds = w;
        statuses = s;
        head = 0;
    }

    synchronized int pendingSynthetic() {
        return size;
    }

    private void fire() {
        CompletionListener l = listener;
        if (l != null && armed.compareAndSet(true, false)) {
            l.onCompletion(this);
        }
    }

    /** Closes the device queue. */
    @Override
    public void close() throws VerbsException {
        synchronized (this) {
            Arrays.fill(statuses, null);
            size = 0;
        }
        device.close();
    }
}
