package org.rpcrdma4j.xprt;

/**
 * Where a DDP-eligible data item (RFC 8267) lies in an XDR stream: {@link #offset()} is the offset of its first data
 * byte, just after the item's XDR length word, and {@link #length()} the item's unpadded length (the value of that
 * length word). The item's XDR padding follows it in the stream. Mutable and reusable; filled by an
 * {@link UpperLayerBinding}.
 */
public final class DataItem {
    private int offset = -1;
    private long length;

    public DataItem set(int offset, long length) {
        if (offset < 4 || (offset & 3) != 0) {
            throw new IllegalArgumentException("a data item starts after its length word, at a multiple of 4: " + offset);
        }
        if (length < 0 || length > 0xFFFFFFFFL) {
            throw new IllegalArgumentException("length out of range: " + length);
        }
        this.offset = offset;
        this.length = length;
        return this;
    }

    public DataItem clear() {
        offset = -1;
        length = 0;
        return this;
    }

    public boolean isSet() {
        return offset >= 0;
    }

    public int offset() {
        return offset;
    }

    public long length() {
        return length;
    }

    /** The item's length rounded up to a multiple of 4, as it occupies an unreduced XDR stream. */
    public long paddedLength() {
        return (length + 3) & ~3L;
    }

    @Override
    public String toString() {
        return isSet() ? "DataItem[offset=" + offset + ", length=" + length + "]" : "DataItem[none]";
    }
}
