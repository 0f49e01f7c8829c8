package org.rpcrdma4j.verbs;

/**
 * A completion queue. Completions are polled in batches into reusable {@link WorkCompletion} objects; a listener is
 * called when a completion arrives while the queue is armed.
 * <p>
 * The usual loop, which cannot miss a completion: poll until empty, {@link #requestNotify()}, poll once more (a
 * completion that arrived between the last poll and the arming is found here), then wait for the listener.
 * <p>
 * {@link #poll} is for one consumer thread at a time. The listener runs on a device thread and must not block.
 */
public interface CompletionQueue extends AutoCloseable {

    /** The number of completions the queue holds; more than that overruns it (an error that breaks its QPs). */
    int capacity();

    /**
     * Moves up to {@code batch.length} completions into {@code batch[0..n)}, oldest first, and returns n (0 if none).
     * Allocates nothing.
     */
    int poll(WorkCompletion[] batch);

    /** Arms the queue: the listener is called once, on the next completion added. */
    void requestNotify();

    /** Sets the listener called on an armed completion (null: none). */
    void setListener(CompletionListener listener);

    /** Destroys the queue. Fails while queue pairs still use it. */
    @Override
    void close() throws VerbsException;

    /** Called on a device thread when a completion arrives on an armed queue. */
    @FunctionalInterface
    interface CompletionListener {
        void onCompletion(CompletionQueue cq);
    }
}
