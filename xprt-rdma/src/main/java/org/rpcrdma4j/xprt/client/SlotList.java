package org.rpcrdma4j.xprt.client;

/**
 * A FIFO of request slots linked through their own fields: adding, taking the first and removing any one are O(1)
 * and allocate nothing. A slot is in at most one list. Owned by the agent thread.
 */
final class SlotList {
    private RequestSlot head;
    private RequestSlot tail;
    private int size;

    void addLast(RequestSlot slot) {
        if (slot.list != null) {
            throw new IllegalStateException(slot + " is already queued");
        }
        slot.list = this;
        slot.prev = tail;
        slot.next = null;
        if (tail == null) {
            head = slot;
        } else {
            tail.next = slot;
        }
        tail = slot;
        size++;
    }

    RequestSlot peekFirst() {
        return head;
    }

    RequestSlot pollFirst() {
        RequestSlot slot = head;
        if (slot != null) {
            remove(slot);
        }
        return slot;
    }

    /** Removes {@code slot} when it is in this list; returns whether it was. */
    boolean remove(RequestSlot slot) {
        if (slot.list != this) {
            return false;
        }
        if (slot.prev == null) {
            head = slot.next;
        } else {
            slot.prev.next = slot.next;
        }
        if (slot.next == null) {
            tail = slot.prev;
        } else {
            slot.next.prev = slot.prev;
        }
        slot.prev = null;
        slot.next = null;
        slot.list = null;
        size--;
        return true;
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return head == null;
    }
}
