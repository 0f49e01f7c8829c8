package org.rpcrdma4j.xprt;

import io.netty.buffer.ByteBuf;

/**
 * A bounds-checked XDR reader over a region of a {@link ByteBuf} that never moves the buffer's indexes. Every read
 * checks the bytes that remain and throws {@link XdrFormatException} instead of reading past the region, so a
 * binding that walks a hostile message can at worst fail. Reusable: {@link #wrap} it again for the next message.
 * Offsets are relative to the start of the region.
 */
public final class XdrCursor {
    private ByteBuf buf;
    private int start;
    private int end;
    private int pos;

    /** Reads {@code buf[from, to)}. Borrows the buffer for as long as the cursor is used. */
    public XdrCursor wrap(ByteBuf buf, int from, int to) {
        if (from < 0 || to < from || to > buf.capacity()) {
            throw new IllegalArgumentException("region [" + from + ", " + to + ") outside buffer of " + buf.capacity());
        }
        this.buf = buf;
        this.start = from;
        this.end = to;
        this.pos = from;
        return this;
    }

    /** Reads the readable bytes of {@code buf}. */
    public XdrCursor wrap(ByteBuf buf) {
        return wrap(buf, buf.readerIndex(), buf.writerIndex());
    }

    /** Current offset from the start of the region. */
    public int offset() {
        return pos - start;
    }

    public int remaining() {
        return end - pos;
    }

    public boolean hasRemaining() {
        return pos < end;
    }

    /** Checks that {@code bytes} remain; the message is only built when the check fails. */
    private void need(int bytes, String what) throws XdrFormatException {
        if (bytes < 0 || bytes > end - pos) {
            throw new XdrFormatException(what + " needs " + (bytes & 0xFFFFFFFFL) + " bytes, " + (end - pos)
                    + " remain", pos - start);
        }
    }

    private void needOpaque(int padded, long length) throws XdrFormatException {
        if (padded > end - pos) {
            throw new XdrFormatException("opaque of " + length + " bytes needs " + padded + " bytes, " + (end - pos)
                    + " remain", pos - start);
        }
    }

    public int readInt() throws XdrFormatException {
        need(4, "int");
        int v = buf.getInt(pos);
        pos += 4;
        return v;
    }

    /** An unsigned int as a long. */
    public long readUnsignedInt() throws XdrFormatException {
        return readInt() & 0xFFFFFFFFL;
    }

    public long readLong() throws XdrFormatException {
        need(8, "hyper");
        long v = buf.getLong(pos);
        pos += 8;
        return v;
    }

    public boolean readBoolean() throws XdrFormatException {
        int v = readInt();
        if (v != 0 && v != 1) {
            throw new XdrFormatException("bool must be 0 or 1, got " + v, pos - start - 4);
        }
        return v == 1;
    }

    /** Skips {@code bytes} plus XDR padding to a multiple of 4. */
    public void skipOpaque(long bytes) throws XdrFormatException {
        if (bytes < 0 || bytes > Integer.MAX_VALUE) {
            throw new XdrFormatException("opaque length " + bytes + " out of range", pos - start);
        }
        int padded = (int) ((bytes + 3) & ~3L);
        needOpaque(padded, bytes);
        pos += padded;
    }

    /** Reads a variable-length opaque's length (at most {@code max}) and skips its bytes; returns the length. */
    public int skipVariableOpaque(int max) throws XdrFormatException {
        long length = readUnsignedInt();
        if (length > max) {
            throw new XdrFormatException("variable opaque of " + length + " bytes exceeds its bound " + max,
                    pos - start - 4);
        }
        skipOpaque(length);
        return (int) length;
    }

    /** Skips {@code bytes} that must be a multiple of 4. */
    public void skip(int bytes) throws XdrFormatException {
        need(bytes, "skip");
        pos += bytes;
    }

    /** Moves to an offset already validated by an earlier read (e.g. back to a remembered position). */
    public void seek(int offset) {
        if (offset < 0 || offset > end - start) {
            throw new IllegalArgumentException("offset " + offset + " outside region of " + (end - start));
        }
        pos = start + offset;
    }
}
