package org.rpcrdma4j.verbs;

/** A receive work request: where an incoming Send lands. Mutable and reusable, copied by the device at post time. */
public final class RecvWorkRequest {
    public long wrId;
    private final Sge[] sges;
    private int numSge;
    /** The next request of the chain, or null. */
    public RecvWorkRequest next;

    public RecvWorkRequest(int maxSge) {
        sges = new Sge[maxSge];
        for (int i = 0; i < maxSge; i++) {
            sges[i] = new Sge();
        }
    }

    public int numSge() {
        return numSge;
    }

    public Sge sge(int index) {
        if (index < 0 || index >= numSge) {
            throw new IndexOutOfBoundsException("sge " + index + " of " + numSge);
        }
        return sges[index];
    }

    public Sge addSge() {
        if (numSge == sges.length) {
            throw new IllegalStateException("at most " + sges.length + " SGEs");
        }
        return sges[numSge++];
    }

    public RecvWorkRequest reset() {
        wrId = 0;
        numSge = 0;
        next = null;
        return this;
    }

    public long totalLength() {
        long total = 0;
        for (int i = 0; i < numSge; i++) {
            total += sges[i].length;
        }
        return total;
    }
}
