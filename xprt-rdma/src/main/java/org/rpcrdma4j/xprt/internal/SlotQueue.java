package org.rpcrdma4j.xprt.internal;

/**
 * A FIFO of slots linked through links the slots carry ({@link Entry#queueLinks()}): adding, taking the first and
 * removing any one are O(1) and allocate nothing. A slot is in at most one queue at a time. Owned by one agent thread
 * (queues of calls waiting for a credit, READs waiting for the ORD, replies waiting for send-queue room).
 *
 * @param <T> the slot type
 */
public final class SlotQueue<T extends SlotQueue.Entry<T>> {
    private T head;
    private T tail;
    private int size;

    /** A slot that can wait in a {@link SlotQueue}. */
    public interface Entry<T> {
        /** The slot's links, made once with the slot. */
        Links<T> queueLinks();
    }

    /** The link fields of one slot. */
    public static final class Links<T> {
        private SlotQueue<?> queue;
        private T prev;
        private T next;

        /** Whether the slot is in a queue now. */
        public boolean isQueued() {
            return queue != null;
        }
    }

    public void addLast(T slot) {
        Links<T> l = slot.queueLinks();
        if (l.queue != null) {
            throw new IllegalStateException(slot + " is already queued");
        }
        l.queue = this;
        l.prev = tail;
        l.next = null;
        if (tail == null) {
            head = slot;
        } else {
            tail.queueLinks().next = slot;
        }
        tail = slot;
        size++;
    }

    public T peekFirst() {
        return head;
    }

    public T pollFirst() {
        T slot = head;
        if (slot != null) {
            remove(slot);
        }
        return slot;
    }

    /** Removes {@code slot} when it is in this queue; returns whether it was. */
    public boolean remove(T slot) {
        Links<T> l = slot.queueLinks();
        if (l.queue != this) {
            return false;
        }
        if (l.prev == null) {
            head = l.next;
        } else {
            l.prev.queueLinks().next = l.next;
        }
        if (l.next == null) {
            tail = l.prev;
        } else {
            l.next.queueLinks().prev = l.prev;
        }
        l.prev = null;
        l.next = null;
        l.queue = null;
        size--;
        return true;
    }

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return head == null;
    }
}
