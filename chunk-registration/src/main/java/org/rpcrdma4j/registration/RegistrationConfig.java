package org.rpcrdma4j.registration;

import java.util.concurrent.Executor;

import org.rpcrdma4j.verbs.PageList;

/**
 * How a connection's {@link RegistrationPool} is chosen and sized. Immutable; use {@link #defaults(int)} and the
 * {@code with*} methods.
 *
 * @param mode               strategy, or AUTO (best the device has)
 * @param credits            the connection's credit limit: RPCs that may hold handles at once
 * @param maxPayloadBytes    the largest bulk payload of one RPC (e.g. NFS rsize/wsize), assumed unaligned
 * @param maxReplyChunkBytes the largest Reply chunk an RPC provisions (a page-aligned transport buffer)
 * @param handles            handles allocated up front; 0 = computed ({@link #handlesPerRpc} x credits)
 * @param maxHandles         bound for background growth; 0 = twice the initial count
 * @param maxPagesPerHandle  cap on the fast-register depth; 0 = the device's maximum
 * @param maxSegmentsPerRpc  segments one {@link Registration} holds; 0 = computed
 * @param executor           where background growth runs; null = a daemon thread owned by the pool
 */
public record RegistrationConfig(RegistrationMode mode, int credits, int maxPayloadBytes, int maxReplyChunkBytes,
                                 int handles, int maxHandles, int maxPagesPerHandle, int maxSegmentsPerRpc,
                                 Executor executor) {
    public static final int PAGE_SIZE = PageList.DEFAULT_PAGE_SIZE;

    public RegistrationConfig {
        if (mode == null) {
            throw new IllegalArgumentException("mode is required");
        }
        if (credits <= 0 || maxPayloadBytes <= 0 || maxReplyChunkBytes < 0 || handles < 0 || maxHandles < 0
                || maxPagesPerHandle < 0 || maxSegmentsPerRpc < 0) {
            throw new IllegalArgumentException("credits and payload size must be positive, the rest not negative");
        }
        if (handles > 0 && maxHandles > 0 && maxHandles < handles) {
            throw new IllegalArgumentException("maxHandles " + maxHandles + " below handles " + handles);
        }
    }

    /** AUTO mode, 1 MiB payloads, 64 KiB reply chunks, everything else computed. */
    public static RegistrationConfig defaults(int credits) {
        return new RegistrationConfig(RegistrationMode.AUTO, credits, 1 << 20, 64 << 10, 0, 0, 0, 0, null);
    }

    public RegistrationConfig withMode(RegistrationMode mode) {
        return new RegistrationConfig(mode, credits, maxPayloadBytes, maxReplyChunkBytes, handles, maxHandles,
                maxPagesPerHandle, maxSegmentsPerRpc, executor);
    }

    public RegistrationConfig withSizes(int maxPayloadBytes, int maxReplyChunkBytes) {
        return new RegistrationConfig(mode, credits, maxPayloadBytes, maxReplyChunkBytes, handles, maxHandles,
                maxPagesPerHandle, maxSegmentsPerRpc, executor);
    }

    public RegistrationConfig withHandles(int handles, int maxHandles) {
        return new RegistrationConfig(mode, credits, maxPayloadBytes, maxReplyChunkBytes, handles, maxHandles,
                maxPagesPerHandle, maxSegmentsPerRpc, executor);
    }

    public RegistrationConfig withMaxPagesPerHandle(int maxPagesPerHandle) {
        return new RegistrationConfig(mode, credits, maxPayloadBytes, maxReplyChunkBytes, handles, maxHandles,
                maxPagesPerHandle, maxSegmentsPerRpc, executor);
    }

    public RegistrationConfig withMaxSegmentsPerRpc(int maxSegmentsPerRpc) {
        return new RegistrationConfig(mode, credits, maxPayloadBytes, maxReplyChunkBytes, handles, maxHandles,
                maxPagesPerHandle, maxSegmentsPerRpc, executor);
    }

    public RegistrationConfig withExecutor(Executor executor) {
        return new RegistrationConfig(mode, credits, maxPayloadBytes, maxReplyChunkBytes, handles, maxHandles,
                maxPagesPerHandle, maxSegmentsPerRpc, executor);
    }

    /**
     * Handles the largest RPC needs with {@code depth} pages per handle: its payload, which may start anywhere in a
     * page (so it spans one page more than its size), plus its page-aligned Reply chunk. A 1 MiB payload with depth
     * 256 takes 2 handles (1 if it were aligned), a 64 KiB reply chunk 1.
     */
    public int handlesPerRpc(int depth) {
        long payloadPages = (maxPayloadBytes + (long) PAGE_SIZE - 1) / PAGE_SIZE + 1;
        long replyPages = (maxReplyChunkBytes + (long) PAGE_SIZE - 1) / PAGE_SIZE;
        return (int) ((payloadPages + depth - 1) / depth + (replyPages + depth - 1) / depth);
    }
}
