package org.rpcrdma4j.codec;

import io.netty.buffer.ByteBuf;
import java.util.Objects;
import java.util.Optional;

/**
 * The RPC-over-RDMA version 1 connection private data of RFC 8797: 8 bytes exchanged in the RDMA-CM connect request
 * and accept, announcing inline thresholds and whether the sender can receive Send With Invalidate.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |               format identifier 0xF6AB0E18                    |
 *  +---------------+---------------+---------------+---------------+
 *  |  version (1)  |     flags     |   send size   | receive size  |
 *  +---------------+---------------+---------------+---------------+
 * </pre>
 * Flags: bit 0 ({@link #FLAG_REMOTE_INVALIDATION}) = "I can receive Send With Invalidate"; other bits are sent as 0
 * and kept as received. Sizes are one byte each: {@code enc = (bytes >> 10) - 1}, {@code bytes = (enc + 1) << 10},
 * so 1 KiB ({@code 0x00}) to 256 KiB ({@code 0xFF}) in 1 KiB steps.
 * <p>
 * Receiving: {@link #decode} accepts the 8 bytes followed by anything (other upper-layer data may follow them).
 * Unknown magic, another version or fewer than 8 bytes mean "no private data": the peer is taken to use the
 * version 1 defaults, {@link #V1_DEFAULTS} (1024 bytes each way, no remote invalidation). On iWARP with MPA
 * revision 2 the device strips its 4-byte IRD/ORD prefix before the private data reaches this class.
 * <p>
 * Following the Linux client, a peer's sizes cap the local ones: {@link #sendLimit(int)} and
 * {@link #receiveLimit(int)}. Immutable.
 */
public final class RpcRdmaPrivateData {

    /** The RFC 8797 format identifier. */
    public static final int MAGIC = 0xF6AB0E18;
    /** The private data version this class reads and writes. */
    public static final int VERSION = 1;
    /** Flag bit: the sender can receive Send With Invalidate (remote invalidation). */
    public static final int FLAG_REMOTE_INVALIDATION = 0x01;
    /** Encoded length in bytes. */
    public static final int LENGTH = 8;
    /** The RPC-over-RDMA version 1 default inline threshold, each way, in bytes. */
    public static final int DEFAULT_INLINE = 1024;
    /** Smallest size the encoding can express. */
    public static final int MIN_INLINE = 1024;
    /** Largest size the encoding can express. */
    public static final int MAX_INLINE = 256 * 1024;

    /** What a peer that sent no (valid) private data is assumed to support. */
    public static final RpcRdmaPrivateData V1_DEFAULTS = new RpcRdmaPrivateData(0, DEFAULT_INLINE, DEFAULT_INLINE);

    private final int flags;
    private final int inlineSendSize;
    private final int inlineReceiveSize;

    private RpcRdmaPrivateData(int flags, int inlineSendSize, int inlineReceiveSize) {
        this.flags = flags;
        this.inlineSendSize = inlineSendSize;
        this.inlineReceiveSize = inlineReceiveSize;
    }

    /**
     * Private data to send. Sizes are made representable: below 1 KiB becomes 1 KiB (every version 1 peer must
     * handle 1 KiB anyway), above 256 KiB becomes 256 KiB, and the rest rounds down to a whole KiB, so the value
     * sent never promises more than was asked for, except at the 1 KiB floor.
     *
     * @param remoteInvalidation whether this side can receive Send With Invalidate
     * @param inlineSendSize     largest inline message this side sends, in bytes
     * @param inlineReceiveSize  largest inline message this side can receive, in bytes
     * @return the private data, with sizes as they will appear on the wire
     */
    public static RpcRdmaPrivateData of(boolean remoteInvalidation, int inlineSendSize, int inlineReceiveSize) {
        return new RpcRdmaPrivateData(remoteInvalidation ? FLAG_REMOTE_INVALIDATION : 0,
                decodeSize(encodeSize(inlineSendSize)), decodeSize(encodeSize(inlineReceiveSize)));
    }

    /**
     * @param bytes a size in bytes
     * @return its one-byte encoding (0..255), clamped to 1 KiB..256 KiB and rounded down to a whole KiB
     */
    public static int encodeSize(int bytes) {
        int clamped = Math.max(MIN_INLINE, Math.min(MAX_INLINE, bytes));
        return (clamped >> 10) - 1;
    }

    /**
     * @param encoded a size byte (only its low 8 bits are used)
     * @return the size in bytes, 1024..262144
     */
    public static int decodeSize(int encoded) {
        return ((encoded & 0xFF) + 1) << 10;
    }

    /**
     * Reads private data from {@code bytes}; trailing bytes are ignored.
     *
     * @param bytes what the connection manager delivered; may be {@code null} or empty
     * @return the private data, or empty when there is none this class understands
     */
    public static Optional<RpcRdmaPrivateData> decode(byte[] bytes) {
        if (bytes == null) {
            return Optional.empty();
        }
        return decode(bytes, 0, bytes.length);
    }

    /**
     * Reads private data from {@code length} bytes of {@code bytes} at {@code offset}; trailing bytes are ignored.
     *
     * @return the private data, or empty when there is none this class understands
     * @throws IndexOutOfBoundsException when the range lies outside the array
     */
    public static Optional<RpcRdmaPrivateData> decode(byte[] bytes, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, bytes.length);
        if (length < LENGTH) {
            return Optional.empty();
        }
        int magic = (bytes[offset] & 0xFF) << 24 | (bytes[offset + 1] & 0xFF) << 16
                | (bytes[offset + 2] & 0xFF) << 8 | bytes[offset + 3] & 0xFF;
        if (magic != MAGIC || (bytes[offset + 4] & 0xFF) != VERSION) {
            return Optional.empty();
        }
        return Optional.of(new RpcRdmaPrivateData(bytes[offset + 5] & 0xFF, decodeSize(bytes[offset + 6]),
                decodeSize(bytes[offset + 7])));
    }

    /**
     * Reads private data between {@code in}'s reader and writer index; the indices do not move.
     *
     * @param in borrowed; may be {@code null}
     * @return the private data, or empty when there is none this class understands
     */
    public static Optional<RpcRdmaPrivateData> decode(ByteBuf in) {
        if (in == null || in.readableBytes() < LENGTH) {
            return Optional.empty();
        }
        int r = in.readerIndex();
        if (in.getInt(r) != MAGIC || in.getUnsignedByte(r + 4) != VERSION) {
            return Optional.empty();
        }
        return Optional.of(new RpcRdmaPrivateData(in.getUnsignedByte(r + 5), decodeSize(in.getUnsignedByte(r + 6)),
                decodeSize(in.getUnsignedByte(r + 7))));
    }

    /** @return the 8 bytes to hand to the connection manager */
    public byte[] encode() {
        return new byte[] {
            (byte) (MAGIC >>> 24), (byte) (MAGIC >>> 16), (byte) (MAGIC >>> 8), (byte) MAGIC,
            (byte) VERSION, (byte) flags, (byte) encodeSize(inlineSendSize), (byte) encodeSize(inlineReceiveSize)
        };
    }

    /**
     * Writes the 8 bytes at {@code out}'s writer index and advances it.
     *
     * @param out borrowed
     * @return 8
     */
    public int encode(ByteBuf out) {
        out.writeBytes(encode());
        return LENGTH;
    }

    /** @return the raw flags byte */
    public int flags() {
        return flags;
    }

    /** @return whether the sender can receive Send With Invalidate */
    public boolean remoteInvalidation() {
        return (flags & FLAG_REMOTE_INVALIDATION) != 0;
    }

    /** @return the sender's inline send size in bytes (a multiple of 1024 in 1 KiB..256 KiB) */
    public int inlineSendSize() {
        return inlineSendSize;
    }

    /** @return the sender's inline receive size in bytes (a multiple of 1024 in 1 KiB..256 KiB) */
    public int inlineReceiveSize() {
        return inlineReceiveSize;
    }

    /**
     * @param localSendSize what this side would like to send inline
     * @return the inline send limit towards the peer that sent this private data: the smaller of the local size
     *         and the peer's receive size
     */
    public int sendLimit(int localSendSize) {
        return Math.min(localSendSize, inlineReceiveSize);
    }

    /**
     * @param localReceiveSize what this side can receive inline
     * @return the inline receive limit for messages from the peer that sent this private data: the smaller of the
     *         local size and the peer's send size
     */
    public int receiveLimit(int localReceiveSize) {
        return Math.min(localReceiveSize, inlineSendSize);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof RpcRdmaPrivateData)) {
            return false;
        }
        RpcRdmaPrivateData that = (RpcRdmaPrivateData) o;
        return flags == that.flags && inlineSendSize == that.inlineSendSize
                && inlineReceiveSize == that.inlineReceiveSize;
    }

    @Override
    public int hashCode() {
        return (flags * 31 + inlineSendSize) * 31 + inlineReceiveSize;
    }

    @Override
    public String toString() {
        return "RpcRdmaPrivateData{flags=0x" + Integer.toHexString(flags) + ", remoteInvalidation="
                + remoteInvalidation() + ", inlineSend=" + inlineSendSize + ", inlineReceive=" + inlineReceiveSize
                + '}';
    }
}
