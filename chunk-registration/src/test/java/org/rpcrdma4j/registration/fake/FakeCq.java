package org.rpcrdma4j.registration.fake;

import java.util.ArrayDeque;

import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.WorkCompletion;

/** A completion queue backed by a deque (it allocates per completion: fine for a fake). */
public final class FakeCq implements CompletionQueue {
    private final FakeDevice device;
    private final int capacity;
    private final ArrayDeque<WorkCompletion> queue = new ArrayDeque<>();
    private boolean armed;
    private volatile CompletionListener listener;
    private boolean closed;

    FakeCq(FakeDevice device, int capacity) {
        this.device = device;
        this.capacity = capacity;
    }

    void add(WorkCompletion wc) {
        boolean fire;
        synchronized (this) {
            queue.add(wc);
            fire = armed;
            armed = false;
        }
        CompletionListener l = listener;
        if (fire && l != null) {
            l.onCompletion(this);
        }
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public synchronized int poll(WorkCompletion[] batch) {
        int n = 0;
        while (n < batch.length && !queue.isEmpty()) {
            batch[n++].copyFrom(queue.poll());
        }
        return n;
    }

    public synchronized int size() {
        return queue.size();
    }

    @Override
    public synchronized void requestNotify() {
        armed = true;
    }

    @Override
    public void setListener(CompletionListener listener) {
        this.listener = listener;
    }

    @Override
    public void close() {
        synchronized (device.lock) {
            if (!closed) {
                closed = true;
                device.cqs--;
            }
        }
    }
}
