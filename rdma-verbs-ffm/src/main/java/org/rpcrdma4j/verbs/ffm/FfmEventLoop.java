package org.rpcrdma4j.verbs.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.ffm.internal.Errno;
import org.rpcrdma4j.verbs.ffm.internal.Ibv;
import org.rpcrdma4j.verbs.ffm.internal.IbvAbi;
import org.rpcrdma4j.verbs.ffm.internal.Libc;
import org.rpcrdma4j.verbs.ffm.internal.RdmaCm;
import org.rpcrdma4j.verbs.ffm.internal.RdmaCmAbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The device's thread: the one owner of its rdma_cm event channel, of every rdma_cm identifier on it, and of its
 * completion channel. It waits in {@code poll} on both channels' descriptors and on an {@code eventfd} that other
 * threads write when they hand it a command, so a command runs at once and an event is handled as it comes. An rdma_cm
 * event is copied and acknowledged before its owner sees it ({@code rdma_destroy_id} waits for every event of its id
 * to be acknowledged); a completion event is acknowledged and its queue's listener called.
 */
final class FfmEventLoop implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(FfmEventLoop.class);
    private static final long CALL_TIMEOUT_SECONDS = 30;
    /** Completion queues a device can have at once (their {@code cq_context} is the index here). */
    static final int MAX_CQS = 4096;

    private final FfmRuntime rt;
    private final MemorySegment cmChannel;
    private final MemorySegment compChannel;
    private final int wakeFd;
    private final int tickMillis;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment pollfds = arena.allocate(Libc.POLLFD_SIZE * 3, 8);
    private final MemorySegment cqEvent = arena.allocate(ADDRESS.byteSize() * 2, 8);
    private final MemorySegment cqEventCq = cqEvent.asSlice(0, ADDRESS.byteSize());
    private final MemorySegment cqEventContext = cqEvent.asSlice(ADDRESS.byteSize(), ADDRESS.byteSize());
    private final MemorySegment loopErrno = Errno.allocate(arena);
    private final MemorySegment wakeErrno = Errno.allocate(arena);
    private final MemorySegment loopScratch = arena.allocate(8, 8);
    private final MemorySegment wakeScratch = arena.allocate(8, 8);
    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();
    private final Map<Long, CmEndpoint> endpoints = new HashMap<>();
    /** The endpoints in registration order, for the tick to walk without allocating. */
    private final List<CmEndpoint> registered = new ArrayList<>();
    private CmEndpoint[] tickScratch = new CmEndpoint[16];
    private final AtomicReferenceArray<FfmCompletionQueue> cqs = new AtomicReferenceArray<>(MAX_CQS);
    private volatile boolean running = true;
    private volatile Thread thread;

    FfmEventLoop(FfmRuntime rt, MemorySegment cmChannel, MemorySegment compChannel, int wakeFd, int tickMillis) {
        this.rt = rt;
        this.cmChannel = cmChannel;
        this.compChannel = compChannel;
        this.wakeFd = wakeFd;
        this.tickMillis = tickMillis;
        Libc.watch(pollfds, 0, cmChannel.reinterpret(8).get(JAVA_INT, RdmaCmAbi.EVENT_CHANNEL_FD));
        Libc.watch(pollfds, 1, compChannel.reinterpret(16).get(JAVA_INT, IbvAbi.COMP_CHANNEL_FD));
        Libc.watch(pollfds, 2, wakeFd);
    }

    void start(String name) {
        Thread t = new Thread(this, name);
        t.setDaemon(true);
        thread = t;
        t.start();
    }

    /** The errno segment of the device thread, for verbs called on it. */
    MemorySegment errno() {
        return loopErrno;
    }

    boolean inLoop() {
        return Thread.currentThread() == thread;
    }

    /** On the loop: routes the events of the identifier at {@code id} to {@code endpoint}. */
    void register(long id, CmEndpoint endpoint) {
        CmEndpoint before = endpoints.put(id, endpoint);
        if (before != null) {
            registered.remove(before);
        }
        registered.add(endpoint);
    }

    /** On the loop. */
    void unregister(long id) {
        CmEndpoint gone = endpoints.remove(id);
        if (gone != null) {
            registered.remove(gone);
        }
    }

    /** On the loop: the owners of identifiers now, for the device's close. */
    List<CmEndpoint> endpoints() {
        return List.copyOf(endpoints.values());
    }

    /** Takes a slot for a completion queue: its {@code cq_context}. */
    int addCq(FfmCompletionQueue cq) throws VerbsException {
        for (int i = 1; i < MAX_CQS; i++) {
            if (cqs.compareAndSet(i, null, cq)) {
                return i;
            }
        }
        throw new VerbsException("the device has " + (MAX_CQS - 1) + " completion queues open, its limit here");
    }

    void removeCq(int index) {
        cqs.set(index, null);
    }

    /** Runs {@code work} on the loop, later (at once when called on it). */
    void execute(Runnable work) {
        if (inLoop()) {
            work.run();
        } else if (running) {
            commands.add(work);
            wake();
        } else {
            LOG.debug("the device is closed; a command was dropped");
        }
    }

    /** Runs {@code work} on the loop and waits for its result. */
    <T> T call(Callable<T> work) throws VerbsException {
        if (inLoop() || thread == null) {
            try {
                return work.call();
            } catch (VerbsException | RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new VerbsException(e.toString(), e);
            }
        }
        if (!running) {
            throw new VerbsException("the device is closed");
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        commands.add(() -> {
            try {
                result.complete(work.call());
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        wake();
        try {
            return result.get(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new VerbsException("interrupted while waiting for the device thread", e);
        } catch (TimeoutException e) {
            throw new VerbsException("the device thread did not answer within " + CALL_TIMEOUT_SECONDS + " s", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof VerbsException v) {
                throw v;
            }
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            throw new VerbsException(String.valueOf(cause), cause);
        }
    }

    private void wake() {
        synchronized (wakeScratch) {
            try {
                Libc.signal(wakeFd, wakeScratch, wakeErrno);
            } catch (VerbsException e) {
                LOG.warn("waking the device thread failed: {}", e.getMessage());
            }
        }
    }

    /** Stops the loop after the commands queued so far ran; waits for it. */
    void stop() {
        running = false;
        wake();
        Thread t = thread;
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join(TimeUnit.SECONDS.toMillis(CALL_TIMEOUT_SECONDS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Frees the loop's own memory; after {@link #stop}. */
    void release() {
        arena.close();
    }

    @Override
    public void run() {
        long nextTick = System.nanoTime();
        while (running) {
            runCommands();
            int ready;
            try {
                ready = Libc.poll(pollfds, 3, tickMillis, loopErrno);
            } catch (VerbsException e) {
                LOG.error("waiting for device events failed; the device thread stops", e);
                break;
            }
            if (ready > 0) {
                if (Libc.ready(pollfds, 2)) {
                    drainWake();
                }
                if (Libc.ready(pollfds, 0)) {
                    cmEvent();
                }
                if (Libc.ready(pollfds, 1)) {
                    completionEvent();
                }
            }
            long now = System.nanoTime();
            if (now - nextTick >= 0) {
                tick(now);
                nextTick = now + TimeUnit.MILLISECONDS.toNanos(tickMillis);
            }
        }
        runCommands();
    }

    private void drainWake() {
        try {
            Libc.drain(wakeFd, loopScratch, loopErrno);
        } catch (VerbsException e) {
            LOG.debug("draining the wake-up descriptor: {}", e.getMessage());
        }
    }

    private void runCommands() {
        Runnable c;
        while ((c = commands.poll()) != null) {
            try {
                c.run();
            } catch (RuntimeException e) {
                LOG.error("a device command failed", e);
            }
        }
    }

    private void cmEvent() {
        CmEvent event;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment e = rt.cm().getCmEvent(a, cmChannel, loopErrno);
            if (e == null) {
                return; // the event went with its identifier, destroyed on the other thread after the poll
            }
            int type = e.get(JAVA_INT, RdmaCmAbi.CM_EVENT_EVENT);
            int len = Byte.toUnsignedInt(e.get(JAVA_BYTE, RdmaCmAbi.CM_EVENT_CONN_PRIVATE_DATA_LEN));
            MemorySegment data = e.get(ADDRESS, RdmaCmAbi.CM_EVENT_CONN_PRIVATE_DATA);
            boolean connection = type == RdmaCmAbi.EVENT_CONNECT_REQUEST || type == RdmaCmAbi.EVENT_ESTABLISHED
                    || type == RdmaCmAbi.EVENT_REJECTED || type == RdmaCmAbi.EVENT_CONNECT_RESPONSE;
            byte[] privateData = connection && len > 0 && !data.equals(MemorySegment.NULL)
                    ? data.reinterpret(len).toArray(JAVA_BYTE) : new byte[0];
            event = new CmEvent(type, e.get(JAVA_INT, RdmaCmAbi.CM_EVENT_STATUS),
                    e.get(ADDRESS, RdmaCmAbi.CM_EVENT_ID).address(), e.get(ADDRESS, RdmaCmAbi.CM_EVENT_LISTEN_ID)
                    .address(), privateData,
                    connection ? Byte.toUnsignedInt(e.get(JAVA_BYTE, RdmaCmAbi.CM_EVENT_CONN_RESPONDER_RESOURCES)) : 0,
                    connection ? Byte.toUnsignedInt(e.get(JAVA_BYTE, RdmaCmAbi.CM_EVENT_CONN_INITIATOR_DEPTH)) : 0);
            rt.cm().ackCmEvent(e, loopErrno);
        } catch (VerbsException e) {
            LOG.warn("reading an rdma_cm event failed: {}", e.getMessage());
            return;
        }
        CmEndpoint owner = endpoints.get(event.type() == RdmaCmAbi.EVENT_CONNECT_REQUEST ? event.listenId()
                : event.id());
        if (owner == null) {
            LOG.debug("{} for an rdma_cm id nobody owns", event.name());
            if (event.type() == RdmaCmAbi.EVENT_CONNECT_REQUEST) {
                destroyQuietly(event.id()); // a listener closed meanwhile: the requester is refused
            }
            return;
        }
        try {
            owner.onCmEvent(event);
        } catch (RuntimeException e) {
            LOG.error("handling {} failed", event.name(), e);
        }
    }

    /** On the loop: destroys an identifier nobody owns (the kernel rejects a request whose id goes). */
    void destroyQuietly(long id) {
        try {
            rt.cm().destroyId(MemorySegment.ofAddress(id), loopErrno);
        } catch (VerbsException e) {
            LOG.debug("rdma_destroy_id: {}", e.getMessage());
        }
    }

    private void completionEvent() {
        int index;
        FfmCompletionQueue owner;
        try {
            index = (int) rt.ibv().nextCqEvent(compChannel, cqEventCq, cqEventContext, loopErrno);
            if (index == 0) {
                return; // the event went with its queue, destroyed on the other thread after the poll
            }
            owner = index > 0 && index < MAX_CQS ? cqs.get(index) : null;
            // the owner's segment when there is one: reading the event's pointer would make a new one per event
            rt.ibv().ackCqEvents(owner != null ? owner.cq() : Ibv.eventQueue(cqEvent), 1);
        } catch (VerbsException e) {
            LOG.warn("reading a completion event failed: {}", e.getMessage());
            return;
        }
        if (owner != null) {
            owner.notified();
        }
    }

    private void tick(long now) {
        // a copy, since a deadline that passes unregisters its endpoint; made without allocating once large enough
        int n = registered.size();
        if (tickScratch.length < n) {
            tickScratch = new CmEndpoint[2 * n];
        }
        for (int i = 0; i < n; i++) {
            tickScratch[i] = registered.get(i);
        }
        for (int i = 0; i < n; i++) {
            try {
                tickScratch[i].onTick(now);
            } catch (RuntimeException ex) {
                LOG.error("a connection deadline failed", ex);
            }
            tickScratch[i] = null;
        }
    }
}
