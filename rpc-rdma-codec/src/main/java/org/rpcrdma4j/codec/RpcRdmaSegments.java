package org.rpcrdma4j.codec;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Reads and changes runs of RDMA segments in their wire form, inside a header's wire image (see
 * {@link RpcRdmaWire}): a run starts at the offset of its first segment's handle, and segments follow each other
 * every {@code stride} bytes: 24 in the Read list (each segment is preceded by its entry's discriminator and
 * position), 16 in a Write chunk and in the Reply chunk. A segment is handle (u32), length (u32), offset (u64), all
 * big-endian; a Read list entry's position is the word just before its handle.
 * <p>
 * Every method is one or a few plain loads or stores per segment (a {@link VarHandle} view of the array), so a
 * header answers its accessors straight from the bytes it was decoded from or will be encoded from.
 */
final class RpcRdmaSegments {

    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    /** Stride of the Read list: discriminator, position, segment. */
    static final int READ_STRIDE = RpcRdmaLayout.READ_LIST_ENTRY_LENGTH;
    /** Stride of a Write chunk or the Reply chunk: plain segments. */
    static final int PLAIN_STRIDE = RpcRdmaLayout.SEGMENT_LENGTH;

    /** {@link #foldSoleHandle} state: no handle seen yet. */
    static final long NO_HANDLE = -2;
    /** {@link #foldSoleHandle} state: two distinct handles seen. */
    static final long MANY_HANDLES = -1;

    private RpcRdmaSegments() {
    }

    /** @return the position of the Read list entry whose handle is at {@code at} */
    static int position(byte[] image, int at) {
        return (int) INT.get(image, at - RpcRdmaLayout.WORD);
    }

    static int handle(byte[] image, int at) {
        return (int) INT.get(image, at);
    }

    static int length(byte[] image, int at) {
        return (int) INT.get(image, at + RpcRdmaLayout.WORD);
    }

    static long offset(byte[] image, int at) {
        return (long) LONG.get(image, at + 2 * RpcRdmaLayout.WORD);
    }

    static void setLength(byte[] image, int at, int length) {
        INT.set(image, at + RpcRdmaLayout.WORD, length);
    }

    /** Writes a Read list entry (1, position, segment) whose handle goes to {@code at}. */
    static void putReadEntry(byte[] image, int at, int position, int handle, int length, long offset) {
        LONG.set(image, at - 2 * RpcRdmaLayout.WORD, pair(RpcRdmaLayout.PRESENT, position));
        putSegment(image, at, handle, length, offset);
    }

    /** Writes a plain segment at {@code at}. */
    static void putSegment(byte[] image, int at, int handle, int length, long offset) {
        LONG.set(image, at, pair(handle, length));
        LONG.set(image, at + 2 * RpcRdmaLayout.WORD, offset);
    }

    /** Two XDR words as one big-endian long, {@code first} at the lower address; one store instead of two. */
    static long pair(int first, int second) {
        return (long) first << 32 | second & 0xFFFFFFFFL;
    }

    /**
     * Checks the positions of {@code n} Read list entries whose first handle is at {@code at} and records where each
     * Read chunk (run of one position) starts in {@code chunkStarts}, which has room for {@code n}. An entry whose
     * position is not a multiple of 4 or is below the one before it, or that makes its chunk longer than
     * {@code maxPerChunk}, is refused.
     *
     * @return the number of Read chunks, or {@code -1 - i} when entry {@code i} is refused
     */
    static int groupReadEntries(byte[] image, int at, int n, int[] chunkStarts, int maxPerChunk) {
        int chunks = 0;
        int chunkStart = 0;
        int previous = 0;
        for (int i = 0, p = at; i < n; i++, p += READ_STRIDE) {
            int current = position(image, p);
            if (i == 0 || current != previous) {
                if ((current & 3) != 0 || i > 0 && Integer.compareUnsigned(current, previous) < 0) {
                    return -1 - i;
                }
                chunkStart = i;
                chunkStarts[chunks++] = i;
            } else if (i - chunkStart >= maxPerChunk) {
                return -1 - i;
            }
            previous = current;
        }
        return chunks;
    }

    /** @return the sum of the unsigned lengths of {@code n} segments from {@code at} */
    static long sumLengths(byte[] image, int at, int n, int stride) {
        long sum = 0;
        for (int i = 0, p = at; i < n; i++, p += stride) {
            sum += Integer.toUnsignedLong(length(image, p));
        }
        return sum;
    }

    /**
     * Sets the lengths of {@code n} segments from {@code at} to what a responder wrote: {@code bytes} spread over
     * the segments in order, each filled up to its present length (its capacity), the rest 0.
     */
    static void spread(byte[] image, int at, int n, int stride, long bytes) {
        long remaining = bytes;
        for (int i = 0, p = at; i < n; i++, p += stride) {
            long capacity = Integer.toUnsignedLong(length(image, p));
            long used = Math.min(capacity, remaining);
            setLength(image, p, (int) used);
            remaining -= used;
        }
    }

    /**
     * Folds the handles of {@code n} segments from {@code at} into {@code sole}: {@link #NO_HANDLE} before any
     * handle, the one handle (unsigned) while all handles agree, {@link #MANY_HANDLES} once two differ.
     */
    static long foldSoleHandle(byte[] image, int at, int n, int stride, long sole) {
        long result = sole;
        for (int i = 0, p = at; i < n && result != MANY_HANDLES; i++, p += stride) {
            long h = Integer.toUnsignedLong(handle(image, p));
            if (result == NO_HANDLE) {
                result = h;
            } else if (result != h) {
                result = MANY_HANDLES;
            }
        }
        return result;
    }

    /** Appends {@code n} segments from {@code at} to {@code sb}, with positions when {@code stride} is the Read list's. */
    static void appendTo(StringBuilder sb, byte[] image, int at, int n, int stride) {
        sb.append('[');
        for (int i = 0, p = at; i < n; i++, p += stride) {
            if (i > 0) {
                sb.append(", ");
            }
            if (stride == READ_STRIDE) {
                sb.append("pos=").append(Integer.toUnsignedString(position(image, p))).append(' ');
            }
            sb.append("h=0x").append(Integer.toHexString(handle(image, p)))
                    .append(" len=").append(Integer.toUnsignedString(length(image, p)))
                    .append(" off=0x").append(Long.toHexString(offset(image, p)));
        }
        sb.append(']');
    }
}
