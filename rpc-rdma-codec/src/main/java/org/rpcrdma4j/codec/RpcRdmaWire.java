package org.rpcrdma4j.codec;

import io.netty.buffer.ByteBuf;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The wire image of one transport header, owned by a {@link RpcRdmaHeader}: a byte array laid out exactly as the
 * header is on the wire. The decoder copies the received bytes in with a few bulk copies, on demand, checks them in
 * place, and leaves them there: the header's accessors read segments from this copy, so the receive buffer is only
 * borrowed for the call. The builder writes segments here as they are added, and the encoder completes the fixed
 * words and terminators and copies the result out once. Word access to a {@code byte[]} through a {@link VarHandle}
 * is a plain load or store, where every {@link ByteBuf} access repeats its index and reference-count checks.
 * <p>
 * The array grows only as far as a header that passed the limit checks reaches, and its doubling stops at the
 * largest header the limits allow, so once warm nothing is allocated. Not thread-safe: it belongs to its header's
 * owner thread.
 */
final class RpcRdmaWire {

    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    /** Bytes copied at the start of a decode: a header with a dozen segments fits. */
    private static final int FIRST_COPY = 512;

    /** Where doubling stops: the largest header the owner's limits allow. */
    private final int maxLength;
    private byte[] bytes;

    /** The buffer being decoded, borrowed for the duration of one decode. */
    private ByteBuf source;
    private int sourceIndex;
    private int length;
    /** How many bytes from {@code sourceIndex} are in {@link #bytes}. */
    private int copied;

    /** How many bytes a decode copies first; the array is never smaller. */
    private final int firstCopy;

    /** @param maxLength the largest header the owner's limits allow */
    RpcRdmaWire(int maxLength) {
        this.maxLength = maxLength;
        this.firstCopy = Math.min(FIRST_COPY, maxLength);
        this.bytes = new byte[firstCopy];
    }

    /**
     * The first step of every decode: copies up to the first 512 bytes of the {@code length} bytes at {@code index}
     * into the image, in one call, without growing it.
     *
     * @return how many bytes were copied
     */
    int copyFirst(ByteBuf buffer, int index, int length) {
        int size = Math.min(length, firstCopy);
        buffer.getBytes(index, bytes, 0, size);
        return size;
    }

    // ------------------------------------------------------------------------------------------- decoding

    /** Starts decoding {@code length} bytes at {@code index} of {@code buffer}. */
    void wrap(ByteBuf buffer, int index, int length) {
        this.source = buffer;
        this.sourceIndex = index;
        this.length = length;
        this.copied = 0;
        // straight to copyIn, not through need(): need()'s branch should look cold to the JIT, so that the many
        // places that call it stay small enough to inline
        copyIn(Math.min(length, firstCopy));
    }

    /** Ends a decode; the borrowed buffer is no longer referenced. */
    void release() {
        source = null;
    }

    /** @return bytes available to the decode */
    int length() {
        return length;
    }

    /**
     * Makes bytes {@code [0, end)} readable. The caller has checked {@code end <= length()}, and that the words
     * being asked for are within the limits, so growth stays bounded.
     */
    void need(int end) {
        if (end > copied) {
            copyIn(end);
        }
    }

    private void copyIn(int end) {
        // copy at least what was asked for, and up to twice what was copied so far, to keep copies few
        int target = (int) Math.min(length, Math.max(end, Math.min(2L * copied, maxLength)));
        ensureCapacity(target);
        source.getBytes(sourceIndex + copied, bytes, copied, target - copied);
        copied = target;
    }

    /**
     * The image array itself, for the header's accessors and bulk copies between headers. Valid until the next
     * {@link #need} or {@link #ensureCapacity}, which may replace it.
     */
    byte[] bytes() {
        return bytes;
    }

    int getInt(int offset) {
        return (int) INT.get(bytes, offset);
    }

    /** @return the two big-endian words at {@code offset} of {@code image}, the first in the high half */
    static long getLong(byte[] image, int offset) {
        return (long) LONG.get(image, offset);
    }

    /** @return the big-endian word at {@code offset} of {@code image} */
    static int getInt(byte[] image, int offset) {
        return (int) INT.get(image, offset);
    }

    // ------------------------------------------------------------------------------------------- encoding

    /** Makes room for an image of {@code size} bytes, keeping the content. */
    void ensureCapacity(int size) {
        if (size > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(size, (int) Math.min(2L * bytes.length, maxLength)));
        }
    }

    /** @return the image's current capacity in bytes (tests use it to show that nothing grew) */
    int capacity() {
        return bytes.length;
    }

    void putInt(int offset, int value) {
        INT.set(bytes, offset, value);
    }

    void putLong(int offset, long value) {
        LONG.set(bytes, offset, value);
    }

    /** Copies the first {@code size} encoded bytes to {@code out} at absolute index {@code index}. */
    void copyOut(ByteBuf out, int index, int size) {
        out.setBytes(index, bytes, 0, size);
    }
}
