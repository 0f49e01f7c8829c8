package org.rpcrdma4j.verbs.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.ffm.internal.Errno;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The device's second thread, for the calls that can wait in the kernel until a peer answers or a handshake gives up,
 * in the order they were handed over. Made so that the device thread never waits on a peer: siw opens its TCP
 * connection inside {@code rdma_connect} (a SYN that goes unanswered holds the call for TCP's retries), and it
 * destroys the queue pair and identifier of a handshake under way only once that handshake ended (its MPA reply
 * timer, seconds). Meanwhile the device thread goes on acknowledging the identifier's events, which
 * {@code rdma_destroy_id} waits for.
 * <p>
 * Whatever the destruction of a queue pair goes before (its completion queues, its protection domain) is handed here
 * after it, so that it runs after it; the device's close waits for all of it ({@link #drain}).
 */
final class PeerBoundCalls implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(PeerBoundCalls.class);

    /** A call made on this thread; {@code errno} is this thread's captured state. */
    interface Call {
        void run(MemorySegment errno) throws VerbsException;
    }

    private record Task(String what, Call call) {
    }

    private final LinkedBlockingQueue<Task> queue = new LinkedBlockingQueue<>();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment errno = Errno.allocate(arena);
    private final Thread thread;
    private volatile String running;

    PeerBoundCalls(String name) {
        thread = new Thread(this, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Hands {@code call} over, to run after everything handed over before it; a failure is logged as {@code what}. */
    void execute(String what, Call call) {
        queue.add(new Task(what, call));
    }

    /**
     * Waits up to {@code bound} for everything handed over so far to have run; false (and what is still running
     * logged) when the bound passed first.
     */
    boolean drain(Duration bound) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        execute("drain", e -> done.complete(null));
        try {
            done.get(bound.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            LOG.warn("{}: {} still waits in the kernel after {} ms", thread.getName(), running, bound.toMillis());
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException e) {
            return true;
        }
    }

    /** Ends the thread once what was handed over ran; its memory goes when it ends. */
    void stop() {
        queue.add(new Task(null, null));
    }

    @Override
    public void run() {
        try {
            while (true) {
                Task t = queue.take();
                if (t.call == null) {
                    break;
                }
                running = t.what;
                try {
                    t.call.run(errno);
                } catch (VerbsException | RuntimeException e) {
                    LOG.warn("{} failed: {}", t.what, e.getMessage());
                }
                running = null;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            arena.close();
        }
    }
}
