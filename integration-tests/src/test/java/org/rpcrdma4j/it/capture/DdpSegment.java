package org.rpcrdma4j.it.capture;

/**
 * One DDP segment (RFC 5041) with its RDMAP control byte (RFC 5040), as carried by one FPDU.
 *
 * @param frame          capture frame after which the receiver had the whole FPDU
 * @param streamOffset   offset of the FPDU (its ULPDU_Length field) in the sender's TCP stream
 * @param tagged         the T bit
 * @param last           the L bit
 * @param opcode         RDMAP opcode ({@link RdmapMessage#WRITE} ...)
 * @param stag           tagged: the data sink STag; untagged: the RsvdULP word (the Invalidate STag of a Send with
 *                       Invalidate)
 * @param taggedOffset   tagged: the TO; untagged: 0
 * @param queueNumber    untagged: QN; tagged: -1
 * @param msn            untagged: MSN (unsigned 32 bits); tagged: 0
 * @param messageOffset  untagged: MO; tagged: 0
 * @param payload        the bytes after the DDP/RDMAP header; owned by the record
 */
public record DdpSegment(int frame, int streamOffset, boolean tagged, boolean last, int opcode, int stag,
                         long taggedOffset, int queueNumber, long msn, long messageOffset, byte[] payload) {
    /** DDP control byte: T. */
    static final int TAGGED_FLAG = 0x80;
    /** DDP control byte: L. */
    static final int LAST_FLAG = 0x40;
    /** DDP control byte: DV, the DDP version (1). */
    static final int DDP_VERSION_MASK = 0x03;
    /** RDMAP control byte: RV, the RDMAP version (1, in the top two bits). */
    static final int RDMAP_VERSION_MASK = 0xC0;
    static final int RDMAP_VERSION_1 = 0x40;
    static final int OPCODE_MASK = 0x0F;
    static final int TAGGED_HEADER_LENGTH = 14;
    static final int UNTAGGED_HEADER_LENGTH = 18;

    /** The whole FPDU's bytes in the stream from {@link #streamOffset()}: length field, ULPDU, pad and CRC field. */
    public int wireLength() {
        int ulpdu = (tagged ? TAGGED_HEADER_LENGTH : UNTAGGED_HEADER_LENGTH) + payload.length;
        return ((2 + ulpdu + 3) & ~3) + 4;
    }
}
