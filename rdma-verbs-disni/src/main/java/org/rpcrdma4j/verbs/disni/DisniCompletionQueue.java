package org.rpcrdma4j.verbs.disni;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.concurrent.atomic.AtomicBoolean;

import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.SVCPollCq;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WcOpcode;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.rpcrdma4j.verbs.disni.CompletionTranslation.CqRole;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A completion queue over DiSNI.
 * <p>
 * {@link #poll} runs DiSNI's reusable poll call into a fixed array of {@link IbvWC} and translates each into the
 * consumer's {@link WorkCompletion} ({@link CompletionTranslation}); completions polled beyond the consumer's batch wait
 * in that array for the next poll, so order is kept. After the device's completions come the provider's own flush
 * completions ({@link SyntheticCompletions}). Nothing is allocated.
 * <p>
 * Notification: {@link #requestNotify} arms the native queue; the device's {@link CompletionEventLoop} takes the
 * event from this queue's own completion channel, acknowledges it and calls the listener on its thread.
 * <p>
 * Threads: {@link #poll} belongs to one consumer thread; {@link #checkEvent} to the event loop; attachments change
 * under a lock and are read through a volatile array.
 */
final class DisniCompletionQueue implements CompletionQueue {
    private static final Logger LOG = LoggerFactory.getLogger(DisniCompletionQueue.class);
    static final int POLL_BATCH = 32;
    private static final User[] NO_USERS = new User[0];

    /** A queue pair that uses this completion queue. */
    interface User {
        /** The SPI's number of the queue pair. */
        int qpNum();

        /** The device's number, or -1 before the native queue pair exists. */
        int nativeQpNum();

        /** Told when one of its completions failed: the queue pair is in error now. */
        void completionFailed();
    }

    private record Attachment(User user, boolean send, boolean recv) {
    }

    private final NativeCq nativeCq;
    private final int capacity;
    private final IbvWC[] wcs;
    private final SVCPollCq pollCall;
    private final SyntheticCompletions synthetic;
    private final CompletionEventLoop loop;
    private final Runnable onClose;
    private final AtomicBoolean armed = new AtomicBoolean();
    private final Object attachLock = new Object();
    private volatile Attachment[] attachments = new Attachment[0];
    private volatile User[] users = NO_USERS;
    private volatile CqRole role = CqRole.BOTH;
    private volatile CompletionListener listener;
    private volatile boolean closed;
    private int stashNext;
    private int stashCount;

    /**
     * @param loop    the device's event loop (null: no notifications, for tests that only poll)
     * @param onClose called once when the queue is closed (resource accounting)
     */
    DisniCompletionQueue(NativeCq nativeCq, int capacity, CompletionEventLoop loop, Runnable onClose)
            throws IOException {
        this.nativeCq = nativeCq;
        this.capacity = capacity;
        this.wcs = new IbvWC[Math.min(POLL_BATCH, capacity)];
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new IbvWC();
        }
        this.pollCall = nativeCq.newPoll(wcs);
        this.synthetic = new SyntheticCompletions(capacity);
        this.loop = loop;
        this.onClose = onClose;
        if (loop != null) {
            loop.add(this);
        }
    }

    NativeCq nativeCq() {
        return nativeCq;
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public int poll(WorkCompletion[] batch) {
        if (closed) {
            throw new IllegalStateException("completion queue is closed");
        }
        int n = 0;
        while (n < batch.length) {
            if (stashNext == stashCount) {
                int got;
                try {
                    got = pollCall.execute().getPolls();
                } catch (IOException e) {
                    throw new UncheckedIOException(DisniErrors.failure("ibv_poll_cq", e));
                }
                if (got <= 0) {
                    break;
                }
                stashNext = 0;
                stashCount = got;
            }
            translate(wcs[stashNext++], batch[n++]);
        }
        if (n < batch.length && !synthetic.isEmpty()) {
            n += synthetic.drainInto(batch, n);
        }
        return n;
    }

    private void translate(IbvWC wc, WorkCompletion out) {
        User[] us = users;
        User user = null;
        if (wc.getStatus() == 0) {
            int nativeNum = wc.getQp_num();
            for (User u : us) {
                if (u.nativeQpNum() == nativeNum) {
                    user = u;
                    break;
                }
            }
        } else if (us.length == 1) {
            user = us[0]; // DiSNI does not read qp_num of a failed completion
        }
        CompletionTranslation.translate(wc, out, role, user == null ? 0 : user.qpNum());
        if (!out.ok() && user != null) {
            user.completionFailed();
        }
    }

    @Override
    public void requestNotify() {
        if (closed) {
            throw new IllegalStateException("completion queue is closed");
        }
        armed.set(true);
        try {
            nativeCq.requestNotify();
        } catch (IOException e) {
            armed.set(false);
            throw new UncheckedIOException(DisniErrors.failure("ibv_req_notify_cq", e));
        }
        if (loop != null) {
            loop.wake();
        }
    }

    @Override
    public void setListener(CompletionListener listener) {
        this.listener = listener;
    }

    boolean isArmed() {
        return armed.get();
    }

    /**
     * On the event loop: takes this queue's completion event, if any, and calls the listener once per arming. A
     * provider flush completion waiting to be polled counts as an event too.
     *
     * @return whether anything happened
     */
    boolean checkEvent() {
        boolean event = false;
        try {
            if (nativeCq.takeEvent()) {
                nativeCq.ackEvents(1);
                event = true;
            }
        } catch (IOException e) {
            LOG.warn("completion event of {} failed: {}", this, e.toString());
        }
        if (!event && !synthetic.isEmpty()) {
            event = true;
        }
        if (event && armed.compareAndSet(true, false)) {
            CompletionListener l = listener;
            if (l != null) {
                try {
                    l.onCompletion(this);
                } catch (RuntimeException e) {
                    LOG.error("completion listener of {} threw", this, e);
                }
            }
        }
        return event;
    }

    /**
     * Queues a provider flush completion; false when the queue is full (the consumer overran it).
     */
    boolean addFlush(long wrId, WcOpcode opcode, int qpNum) {
        boolean added = synthetic.addFlush(wrId, opcode, qpNum);
        if (added && loop != null && armed.get()) {
            loop.wake();
        }
        return added;
    }

    int flushRoom() {
        return synthetic.room();
    }

    void attach(User user, boolean send, boolean recv) {
        synchronized (attachLock) {
            Attachment[] a = Arrays.copyOf(attachments, attachments.length + 1);
            a[a.length - 1] = new Attachment(user, send, recv);
            publish(a);
        }
    }

    void detach(User user) {
        synchronized (attachLock) {
            Attachment[] a = attachments;
            int at = -1;
            for (int i = 0; i < a.length; i++) {
                if (a[i].user() == user) {
                    at = i;
                }
            }
            if (at < 0) {
                return;
            }
            Attachment[] b = new Attachment[a.length - 1];
            System.arraycopy(a, 0, b, 0, at);
            System.arraycopy(a, at + 1, b, at, a.length - at - 1);
            publish(b);
        }
    }

    private void publish(Attachment[] a) {
        LinkedHashSet<User> distinct = new LinkedHashSet<>();
        boolean send = false;
        boolean recv = false;
        for (Attachment x : a) {
            distinct.add(x.user());
            send |= x.send();
            recv |= x.recv();
        }
        attachments = a;
        users = distinct.toArray(NO_USERS);
        role = send == recv ? CqRole.BOTH : send ? CqRole.SEND : CqRole.RECV;
    }

    @Override
    public void close() throws VerbsException {
        if (closed) {
            return;
        }
        if (attachments.length > 0) {
            throw new VerbsException("completion queue still used by " + users.length + " queue pair(s); close them "
                    + "first");
        }
        closed = true;
        if (loop != null) {
            loop.remove(this);
        }
        try {
            while (nativeCq.takeEvent()) {
                nativeCq.ackEvents(1);
            }
            pollCall.free();
            nativeCq.destroy();
        } catch (IOException e) {
            throw DisniErrors.failure("ibv_destroy_cq", e);
        } finally {
            onClose.run();
        }
    }

    @Override
    public String toString() {
        return "DisniCompletionQueue[" + capacity + " entries]";
    }
}
