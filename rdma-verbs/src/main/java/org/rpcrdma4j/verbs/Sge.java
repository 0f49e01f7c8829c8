package org.rpcrdma4j.verbs;

/** A scatter/gather entry: {@code length} bytes at IOVA {@code address} of the local region named by {@code lkey}. Mutable and reusable. */
public final class Sge {
    public long address;
    public int length;
    public int lkey;

    public Sge set(long address, int length, int lkey) {
        this.address = address;
        this.length = length;
        this.lkey = lkey;
        return this;
    }

    /** Covers {@code length} bytes at {@code offset} of a registered region. */
    public Sge set(RegisteredMemory region, long offset, int length) {
        return set(region.address(offset), length, region.lkey());
    }

    @Override
    public String toString() {
        return "Sge[addr=0x" + Long.toHexString(address) + ", len=" + length + ", lkey=" + Stag.toString(lkey) + "]";
    }
}
