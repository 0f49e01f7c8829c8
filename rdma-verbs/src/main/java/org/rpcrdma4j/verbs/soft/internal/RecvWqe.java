package org.rpcrdma4j.verbs.soft.internal;

/** One receive-queue slot: a copy of a posted receive plus, once a Send lands in it, its checked SGEs. */
final class RecvWqe {
    long wrId;
    int numSge;
    final long[] addr;
    final int[] len;
    final int[] lkey;
    final SoftRegion[] regions;
    final long[] offsets;
    /** Each region's {@link SoftRegion#generation()} before its check. */
    final int[] generations;
    long capacity;

    RecvWqe(int maxSge) {
        addr = new long[maxSge];
        len = new int[maxSge];
        lkey = new int[maxSge];
        regions = new SoftRegion[maxSge];
        offsets = new long[maxSge];
        generations = new int[maxSge];
    }

    void clearReferences() {
        for (int i = 0; i < numSge; i++) {
            regions[i] = null;
        }
    }
}
