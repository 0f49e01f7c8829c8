package org.rpcrdma4j.verbs;

/**
 * Objects a device currently has open; a test's teardown asserts they return to zero.
 */
public record ResourceCounts(int protectionDomains, int memoryRegions, int queuePairs, int completionQueues,
                             int listeners) {
    public static final ResourceCounts NONE = new ResourceCounts(0, 0, 0, 0, 0);

    public boolean isEmpty() {
        return equals(NONE);
    }
}
