package org.rpcrdma4j.nfs.server.v4;

import java.nio.ByteBuffer;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;

/**
 * An XDR encoding stream that keeps nothing and counts the bytes oncrpc4j's {@code Xdr} would write for the same
 * calls: the size of an operation's result without encoding it. One per COMPOUND; {@link #reset} before each use.
 */
final class EncodedSize implements XdrEncodingStream {
    private long bytes;

    void reset() {
        bytes = 0;
    }

    long bytes() {
        return bytes;
    }

    private static long padded(long n) {
        return (n + 3) & ~3L;
    }

    /** The UTF-8 length of {@code s}, as {@code String.getBytes(UTF_8)} counts it (an unpaired surrogate is 1 byte). */
    static int utf8Length(String s) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n += 1;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                n += 1; // replaced by '?'
            } else {
                n += 3;
            }
        }
        return n;
    }

    @Override
    public void beginEncoding() {
    }

    @Override
    public void endEncoding() {
    }

    @Override
    public void xdrEncodeInt(int value) {
        bytes += 4;
    }

    @Override
    public void xdrEncodeIntVector(int[] value) {
        bytes += 4 + 4L * value.length;
    }

    @Override
    public void xdrEncodeIntFixedVector(int[] value, int length) {
        bytes += 4L * length;
    }

    @Override
    public void xdrEncodeDynamicOpaque(byte[] opaque) {
        bytes += 4 + padded(opaque.length);
    }

    @Override
    public void xdrEncodeOpaque(byte[] opaque, int length) {
        bytes += padded(length);
    }

    @Override
    public void xdrEncodeOpaque(byte[] opaque, int offset, int length) {
        bytes += padded(length);
    }

    @Override
    public void xdrEncodeBoolean(boolean value) {
        bytes += 4;
    }

    @Override
    public void xdrEncodeString(String string) {
        bytes += 4 + padded(string == null ? 0 : utf8Length(string));
    }

    @Override
    public void xdrEncodeLong(long value) {
        bytes += 8;
    }

    @Override
    public void xdrEncodeLongVector(long[] value) {
        bytes += 4 + 8L * value.length;
    }

    @Override
    public void xdrEncodeLongFixedVector(long[] value, int length) {
        bytes += 8L * length;
    }

    @Override
    public void xdrEncodeByteBuffer(ByteBuffer buf) {
        bytes += 4 + padded(buf.remaining());
    }

    @Override
    public void xdrEncodeFloat(float value) {
        bytes += 4;
    }

    @Override
    public void xdrEncodeDouble(double value) {
        bytes += 8;
    }

    @Override
    public void xdrEncodeFloatVector(float[] value) {
        bytes += 4 + 4L * value.length;
    }

    @Override
    public void xdrEncodeFloatFixedVector(float[] value, int length) {
        bytes += 4L * length;
    }

    @Override
    public void xdrEncodeDoubleVector(double[] value) {
        bytes += 4 + 8L * value.length;
    }

    @Override
    public void xdrEncodeDoubleFixedVector(double[] value, int length) {
        bytes += 8L * length;
    }

    // oncrpc4j writes each byte and short of a vector as an XDR int

    @Override
    public void xdrEncodeByteVector(byte[] value) {
        bytes += 4 + 4L * value.length;
    }

    @Override
    public void xdrEncodeByteFixedVector(byte[] value, int length) {
        bytes += 4L * length;
    }

    @Override
    public void xdrEncodeByte(byte value) {
        bytes += 4;
    }

    @Override
    public void xdrEncodeShort(short value) {
        bytes += 4;
    }

    @Override
    public void xdrEncodeShortVector(short[] value) {
        bytes += 4 + 4L * value.length;
    }

    @Override
    public void xdrEncodeShortFixedVector(short[] value, int length) {
        bytes += 4L * length;
    }
}
