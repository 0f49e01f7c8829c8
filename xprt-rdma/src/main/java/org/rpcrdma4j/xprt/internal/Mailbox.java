package org.rpcrdma4j.xprt.internal;

import java.util.concurrent.atomic.AtomicReference;

/**
 * Hands slots (request slots, call slots, reverse-direction slots) from any thread to the agent that owns them,
 * without allocating: an intrusive multi-producer, single-consumer stack linked through the slots' own
 * {@link Linked#mailboxNext} field. Producers push with one CAS; the agent takes everything at once and gets it back
 * in arrival order. A slot is in at most one mailbox at a time (its owner's state machine guarantees it), so the link
 * field is never shared.
 *
 * @param <T> the slot type
 */
public final class Mailbox<T extends Mailbox.Linked<T>> {
    private final AtomicReference<T> head = new AtomicReference<>();

    /** A slot that can be handed over through a mailbox: it carries the link field. */
    public interface Linked<T> {
        T mailboxNext();

        void mailboxNext(T next);
    }

    /** Adds a slot; any thread. The push is the happens-before edge for everything the producer wrote to the slot. */
    public void push(T slot) {
        T h;
        do {
            h = head.get();
            slot.mailboxNext(h);
        } while (!head.compareAndSet(h, slot));
    }

    /**
     * Takes every slot pushed so far, oldest first, linked through {@link Linked#mailboxNext}; the agent clears each
     * link as it handles the slot ({@link #next}). Agent thread.
     */
    public T drain() {
        if (head.get() == null) {
            return null; // a read leaves the line shared with the producers; an exchange would take it every time
        }
        T h = head.getAndSet(null);
        T reversed = null;
        while (h != null) {
            T next = h.mailboxNext();
            h.mailboxNext(reversed);
            reversed = h;
            h = next;
        }
        return reversed;
    }

    /** The slot after {@code slot} in a drained chain; unlinks {@code slot} so it may be pushed again. */
    public static <T extends Linked<T>> T next(T slot) {
        T next = slot.mailboxNext();
        slot.mailboxNext(null);
        return next;
    }

    public boolean isEmpty() {
        return head.get() == null;
    }
}
