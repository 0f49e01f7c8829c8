package org.rpcrdma4j.verbs.soft.wire;

/**
 * DDP segment headers (RFC 5041) together with the RDMAP control byte (RFC 5040), as offsets inside the ULPDU (that
 * is, after the 2-byte MPA length field). Big-endian.
 * <pre>
 * Tagged (T = 1), 14 bytes:              Untagged (T = 0), 18 bytes:
 *  0: DDP ctrl  T L rsvd(4) DV(2)          0: DDP ctrl
 *  1: RDMAP ctrl RV(2) rsvd(2) opcode(4)   1: RDMAP ctrl
 *  2: STag (4)                             2: RsvdULP / Invalidate STag (4)
 *  6: TO   (8)                             6: QN  (4)
 *                                         10: MSN (4)
 *                                         14: MO  (4)
 * </pre>
 * Queue numbers: 0 Send, 1 RDMA Read Request, 2 Terminate. MSN counts messages per queue from 1; MO is the byte
 * offset of the segment's payload in its message.
 */
public final class Ddp {
    /** DDP control: tagged buffer model. */
    public static final int FLAG_TAGGED = 0x80;
    /** DDP control: last segment of the message. */
    public static final int FLAG_LAST = 0x40;
    /** DDP control: reserved bits. */
    public static final int RESERVED_MASK = 0x3C;
    /** DDP control: version field. */
    public static final int VERSION_MASK = 0x03;
    /** The DDP version of RFC 5041. */
    public static final int VERSION = 1;

    public static final int TAGGED_HEADER_LENGTH = 14;
    public static final int UNTAGGED_HEADER_LENGTH = 18;

    public static final int OFFSET_DDP_CONTROL = 0;
    public static final int OFFSET_RDMAP_CONTROL = 1;
    public static final int OFFSET_STAG = 2;
    public static final int OFFSET_TAGGED_OFFSET = 6;
    public static final int OFFSET_INVALIDATE_STAG = 2;
    public static final int OFFSET_QN = 6;
    public static final int OFFSET_MSN = 10;
    public static final int OFFSET_MO = 14;

    /** Queue of Send messages (all four Send opcodes). */
    public static final int QN_SEND = 0;
    /** Queue of RDMA Read Requests. */
    public static final int QN_READ_REQUEST = 1;
    /** Queue of Terminate messages. */
    public static final int QN_TERMINATE = 2;

    private Ddp() {
    }

    /** The DDP control byte of a segment. */
    public static int control(boolean tagged, boolean last) {
        return (tagged ? FLAG_TAGGED : 0) | (last ? FLAG_LAST : 0) | VERSION;
    }

    /**
     * Writes a tagged header at {@code index} (absolute; the first byte of the ULPDU).
     */
    public static void putTagged(java.nio.ByteBuffer dst, int index, boolean last, int opcode, int stag,
                                 long taggedOffset) {
        dst.put(index + OFFSET_DDP_CONTROL, (byte) control(true, last));
        dst.put(index + OFFSET_RDMAP_CONTROL, (byte) Rdmap.control(opcode));
        dst.putInt(index + OFFSET_STAG, stag);
        dst.putLong(index + OFFSET_TAGGED_OFFSET, taggedOffset);
    }

    /**
     * Writes an untagged header at {@code index} (absolute; the first byte of the ULPDU).
     *
     * @param rsvdUlp the Invalidate STag of a Send with Invalidate, else 0
     */
    public static void putUntagged(java.nio.ByteBuffer dst, int index, boolean last, int opcode, int rsvdUlp,
                                   int queueNumber, int msn, int mo) {
        dst.put(index + OFFSET_DDP_CONTROL, (byte) control(false, last));
        dst.put(index + OFFSET_RDMAP_CONTROL, (byte) Rdmap.control(opcode));
        dst.putInt(index + OFFSET_INVALIDATE_STAG, rsvdUlp);
        dst.putInt(index + OFFSET_QN, queueNumber);
        dst.putInt(index + OFFSET_MSN, msn);
        dst.putInt(index + OFFSET_MO, mo);
    }

    /** Header length of a segment whose DDP control byte is {@code ddpControl}. */
    public static int headerLength(int ddpControl) {
        return (ddpControl & FLAG_TAGGED) != 0 ? TAGGED_HEADER_LENGTH : UNTAGGED_HEADER_LENGTH;
    }
}
