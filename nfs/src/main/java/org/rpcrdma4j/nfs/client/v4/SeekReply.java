package org.rpcrdma4j.nfs.client.v4;

/**
 * What a SEEK found (RFC 7862 section 15.11), as lseek(2)'s SEEK_DATA and SEEK_HOLE answer.
 *
 * @param offset where the data or hole asked for begins, at or after the offset asked from; the end of the file is a
 *               hole
 * @param eof    whether {@code offset} is the end of the file
 */
public record SeekReply(long offset, boolean eof) {
    /** What to look for: {@code data_content4}. */
    public enum Content {
        DATA(0), HOLE(1);

        private final int wire;

        Content(int wire) {
            this.wire = wire;
        }

        int wireValue() {
            return wire;
        }
    }
}
