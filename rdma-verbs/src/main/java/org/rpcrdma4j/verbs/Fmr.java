package org.rpcrdma4j.verbs;

/**
 * A fast memory region: mapped synchronously by the consumer (no work request), unmapped in batches through
 * {@link ProtectionDomain#unmapFmrs}. Every map gives the region a new key, so an rkey of an earlier mapping fails.
 */
public interface Fmr extends MemoryRegion {

    int maxPages();

    /**
     * Maps the page list at {@code pages.iova()} and returns the new rkey. The region must be unmapped.
     *
     * @throws VerbsException when the region is mapped, closed, or the page list is deeper than {@link #maxPages()}
     */
    int map(PageList pages) throws VerbsException;
}
