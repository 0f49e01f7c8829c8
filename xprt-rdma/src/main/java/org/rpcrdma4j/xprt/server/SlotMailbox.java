package org.rpcrdma4j.xprt.server;

import java.util.concurrent.atomic.AtomicReference;

/**
 * Hands call slots from any thread to the connection's agent, without allocating: an intrusive multi-producer,
 * single-consumer list linked through {@link CallSlot#mailboxNext}. Producers push with one CAS; the agent takes
 * everything at once and gets it back in arrival order. A slot is in at most one mailbox at a time (its state
 * machine guarantees it), so the link field is never shared.
 */
final class SlotMailbox {
    private final AtomicReference<CallSlot> head = new AtomicReference<>();

    /** Adds a slot; any thread. The push is the happens-before edge for everything the producer wrote to the slot. */
    void push(CallSlot slot) {
        CallSlot h;
        do {
            h = head.get();
            slot.mailboxNext = h;
        } while (!head.compareAndSet(h, slot));
    }

    /** Takes every slot pushed so far, oldest first (linked through {@link CallSlot#mailboxNext}); agent thread. */
    CallSlot drain() {
        CallSlot h = head.getAndSet(null);
        CallSlot reversed = null;
        while (h != null) {
            CallSlot next = h.mailboxNext;
            h.mailboxNext = reversed;
            reversed = h;
            h = next;
        }
        return reversed;
    }

    boolean isEmpty() {
        return head.get() == null;
    }
}
