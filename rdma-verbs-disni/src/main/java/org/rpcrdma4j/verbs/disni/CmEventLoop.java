package org.rpcrdma4j.verbs.disni;

import java.io.IOException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.disni.CmEvents.CmAction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The device's connection-manager thread: the one owner of its rdma_cm event channel and of every id on it.
 * <p>
 * Why one thread: DiSNI keeps the ids of an event channel in a plain {@code HashMap} that both {@code createId} and
 * {@code getCmEvent} change, so ids may only be created on the thread that reads events. The loop waits up to
 * {@code pollMillis} for an event, acknowledges it at once (librdmacm's {@code rdma_destroy_id} waits for every event
 * of the id to be acknowledged), hands it to the {@link CmEndpoint} that owns the id, runs queued commands and ticks
 * every endpoint for its deadlines. Commands from other threads therefore wait at most {@code pollMillis}.
 */
final class CmEventLoop implements Runnable, CmExecutor {
    private static final Logger LOG = LoggerFactory.getLogger(CmEventLoop.class);
    private static final long CALL_TIMEOUT_SECONDS = 30;

    private final RdmaEventChannel channel;
    private final int pollMillis;
    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();
    private final Map<RdmaCmId, CmEndpoint> endpoints = new IdentityHashMap<>();
    private final List<CmEndpoint> tickScratch = new ArrayList<>();
    private volatile boolean running = true;
    private volatile Thread thread;
    private ConnectionRequestSink requests;

    /** Receives connection requests that arrive at listening ids. */
    interface ConnectionRequestSink {
        /** A request for the listening id {@code listenId}; {@code connId} is the new id (owned by the sink now). */
        void onConnectionRequest(RdmaCmId listenId, RdmaCmId connId);
    }

    CmEventLoop(RdmaEventChannel channel, int pollMillis) {
        this.channel = channel;
        this.pollMillis = pollMillis;
    }

    void setRequestSink(ConnectionRequestSink sink) {
        this.requests = sink;
    }

    void start(String name) {
        Thread t = new Thread(this, name);
        t.setDaemon(true);
        thread = t;
        t.start();
    }

    /** On the loop: creates an id on the channel. */
    RdmaCmId createId() throws IOException {
        assertInLoop();
        return channel.createId(RdmaCm.RDMA_PS_TCP);
    }

    /** On the loop: routes the id's events to an endpoint. */
    void register(RdmaCmId id, CmEndpoint endpoint) {
        assertInLoop();
        endpoints.put(id, endpoint);
    }

    /** On the loop: stops routing the id's events. */
    void unregister(RdmaCmId id) {
        assertInLoop();
        endpoints.remove(id);
    }

    @Override
    public boolean inLoop() {
        return Thread.currentThread() == thread;
    }

    private void assertInLoop() {
        if (thread != null && !inLoop()) {
            throw new IllegalStateException("rdma_cm ids are used on the connection-manager thread only");
        }
    }

    @Override
    public void execute(Runnable work) {
        if (inLoop()) {
            work.run();
        } else if (running) {
            commands.add(work);
        } else {
            LOG.debug("connection manager stopped; dropped a command");
        }
    }

    @Override
    public <T> T call(Callable<T> work) throws VerbsException {
        if (inLoop() || thread == null) {
            try {
                return work.call();
            } catch (VerbsException e) {
                throw e;
            } catch (Exception e) {
                throw DisniErrors.failure("connection manager", e);
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
        try {
            return result.get(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new VerbsException("interrupted while waiting for the connection manager", e);
        } catch (TimeoutException e) {
            throw new VerbsException("the connection manager did not answer within " + CALL_TIMEOUT_SECONDS + " s", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw cause instanceof VerbsException ? (VerbsException) cause : DisniErrors.failure("connection manager",
                    cause);
        }
    }

    /** Stops the loop after its current wait; commands still queued run first. */
    void stop() {
        running = false;
        Thread t = thread;
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join(TimeUnit.SECONDS.toMillis(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void run() {
        while (running) {
            runCommands();
            RdmaCmEvent event;
            try {
                event = channel.getCmEvent(pollMillis);
            } catch (IOException | RuntimeException e) {
                if (running) {
                    LOG.error("reading rdma_cm events failed; the connection manager stops", e);
                }
                break;
            }
            if (event != null) {
                dispatch(event);
            }
            tick(System.nanoTime());
        }
        runCommands();
    }

    private void runCommands() {
        Runnable c;
        while ((c = commands.poll()) != null) {
            try {
                c.run();
            } catch (RuntimeException e) {
                LOG.error("connection-manager command failed", e);
            }
        }
    }

    private void dispatch(RdmaCmEvent event) {
        int type = event.getEvent();
        RdmaCmId connId = event.getConnIdPriv();
        RdmaCmId listenId = event.getListenIdPriv();
        try {
            event.ackEvent();
        } catch (IOException e) {
            LOG.warn("acknowledging {} failed: {}", CmEvents.name(type), e.toString());
        }
        CmAction action = CmEvents.classify(type);
        if (action == CmAction.CONNECT_REQUEST) {
            if (requests != null && listenId != null) {
                requests.onConnectionRequest(listenId, connId);
            }
            return;
        }
        CmEndpoint endpoint = connId == null ? null : endpoints.get(connId);
        if (endpoint == null && listenId != null) {
            endpoint = endpoints.get(listenId);
        }
        if (endpoint == null) {
            LOG.debug("{} for an id nobody owns", CmEvents.name(type));
            return;
        }
        try {
            endpoint.onCmEvent(action, type);
        } catch (RuntimeException e) {
            LOG.error("handling {} failed", CmEvents.name(type), e);
        }
    }

    private void tick(long now) {
        tickScratch.clear();
        tickScratch.addAll(endpoints.values());
        for (CmEndpoint e : tickScratch) {
            try {
                e.onTick(now);
            } catch (RuntimeException ex) {
                LOG.error("connection deadline handling failed", ex);
            }
        }
    }
}
