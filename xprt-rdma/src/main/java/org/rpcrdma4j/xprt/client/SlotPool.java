package org.rpcrdma4j.xprt.client;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.rpcrdma4j.codec.RpcRdmaLimits;
import org.rpcrdma4j.registration.RegisteredBufferPool;
import org.rpcrdma4j.registration.RegistrationPool;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.util.EnumCounters;
import org.rpcrdma4j.xprt.XprtCounter;

/**
 * The request slots of a transport, made once: one per credit the client asks for, plus the keep-alive probe's, each
 * with its registered send buffer and its registration context. Callers take free slots in arrival order (a fair
 * queue); the agent returns them. Nothing here allocates once the slots exist.
 */
final class SlotPool {
    private final RequestSlot[] slots;
    private final RequestSlot probe;
    private final ArrayBlockingQueue<RequestSlot> free;
    private final int regular;

    SlotPool(ClientAgent agent, RdmaClientConfig config, RegisteredBufferPool buffers, RegistrationPool registrations,
             RpcRdmaLimits limits) throws VerbsException, InterruptedException {
        this.regular = config.maxCredits();
        int maxPieces = Math.max(config.maxPayloadSize(), config.defaultMaxReplySize()) / 4096 + 4;
        this.slots = new RequestSlot[regular + 1];
        this.free = new ArrayBlockingQueue<>(regular, true);
        try {
            for (int i = 0; i < slots.length; i++) {
                slots[i] = new RequestSlot(i, agent, buffers.allocate(RequestSlot.RESERVE + config.inlineSendSize(),
                        10, TimeUnit.SECONDS), registrations.newRegistration(), limits, maxPieces);
            }
        } catch (VerbsException | InterruptedException | RuntimeException e) {
            releaseBuffers();
            throw e;
        }
        this.probe = slots[regular];
        for (int i = 0; i < regular; i++) {
            free.add(slots[i]);
        }
    }

    /** Every slot, the probe's last. */
    RequestSlot[] all() {
        return slots;
    }

    RequestSlot probe() {
        return probe;
    }

    /** Slots callers can use (not the probe's). */
    int regular() {
        return regular;
    }

    int freeCount() {
        return free.size();
    }

    /**
     * Takes a free slot, waiting in arrival order until {@code deadlineNanos} (0: without end); counts a wait as
     * EMPTY_SENDCTX_Q. Checks {@code closed} while waiting.
     *
     * @return the slot, or null when the deadline passed
     */
    RequestSlot acquire(long deadlineNanos, EnumCounters<XprtCounter> counters, BooleanSupplier closed,
                        String server) throws RdmaConnectionException, InterruptedException {
        RequestSlot slot = free.poll();
        if (slot == null) {
            counters.increment(XprtCounter.EMPTY_SENDCTX_Q);
            while (slot == null) {
                checkOpen(closed, server);
                long wait = TimeUnit.MILLISECONDS.toNanos(50);
                if (deadlineNanos != 0) {
                    long left = deadlineNanos - System.nanoTime();
                    if (left <= 0) {
                        return null;
                    }
                    wait = Math.min(wait, left);
                }
                slot = free.poll(wait, TimeUnit.NANOSECONDS);
            }
        }
        if (closed.getAsBoolean()) {
            free.add(slot);
            checkOpen(closed, server);
        }
        slot.state = RequestSlot.State.MARSHALING;
        return slot;
    }

    private static void checkOpen(BooleanSupplier closed, String server) throws RdmaConnectionException {
        if (closed.getAsBoolean()) {
            throw new RdmaConnectionException("the RDMA transport to " + server + " is closed");
        }
    }

    /** Returns a finished slot (agent thread); the probe's stays out of the queue. */
    void release(RequestSlot slot) {
        slot.state = RequestSlot.State.FREE;
        if (slot != probe) {
            free.add(slot);
        }
    }

    /** Returns every slot's send buffer (and transport buffers of finished calls) to the buffer pool. */
    void releaseBuffers() {
        for (RequestSlot slot : slots) {
            if (slot == null) {
                continue;
            }
            if (slot.state == RequestSlot.State.FREE) {
                slot.clearCall();
            }
            if (slot.sendBuffer.refCnt() > 0) {
                slot.sendBuffer.release();
            }
        }
    }
}
