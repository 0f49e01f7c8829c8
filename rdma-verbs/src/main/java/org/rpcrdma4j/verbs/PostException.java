package org.rpcrdma4j.verbs;

/**
 * A chain of work requests was refused. Posting is all or nothing: when this is thrown, no work request of the
 * chain was queued. {@link #failedIndex()} names the first offending request (0 = the head of the chain).
 */
public final class PostException extends VerbsException {
    private static final long serialVersionUID = 1L;

    private final int failedIndex;
    private final long failedWrId;

    public PostException(String message, int failedIndex, long failedWrId) {
        super(message + " (work request #" + failedIndex + " of the chain, wr_id " + failedWrId + ")");
        this.failedIndex = failedIndex;
        this.failedWrId = failedWrId;
    }

    /** Index of the refused work request within the chain, counting from the head at 0. */
    public int failedIndex() {
        return failedIndex;
    }

    /** The {@code wrId} of the refused work request. */
    public long failedWrId() {
        return failedWrId;
    }
}
