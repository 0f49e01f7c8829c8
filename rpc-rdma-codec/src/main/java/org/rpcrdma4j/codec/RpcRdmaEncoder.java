package org.rpcrdma4j.codec;

import static org.rpcrdma4j.codec.RpcRdmaLayout.ABSENT;
import static org.rpcrdma4j.codec.RpcRdmaLayout.CHUNK_PREFIX_LENGTH;
import static org.rpcrdma4j.codec.RpcRdmaLayout.CREDITS_OFFSET;
import static org.rpcrdma4j.codec.RpcRdmaLayout.ERROR_CODE_OFFSET;
import static org.rpcrdma4j.codec.RpcRdmaLayout.ERROR_VERS_HIGH_OFFSET;
import static org.rpcrdma4j.codec.RpcRdmaLayout.ERROR_VERS_LOW_OFFSET;
import static org.rpcrdma4j.codec.RpcRdmaLayout.ERR_CHUNK_LENGTH;
import static org.rpcrdma4j.codec.RpcRdmaLayout.ERR_VERS_LENGTH;
import static org.rpcrdma4j.codec.RpcRdmaLayout.PRESENT;
import static org.rpcrdma4j.codec.RpcRdmaLayout.PROC_OFFSET;
import static org.rpcrdma4j.codec.RpcRdmaLayout.SEGMENT_LENGTH;
import static org.rpcrdma4j.codec.RpcRdmaLayout.VERSION;
import static org.rpcrdma4j.codec.RpcRdmaLayout.VERS_OFFSET;
import static org.rpcrdma4j.codec.RpcRdmaLayout.WORD;
import static org.rpcrdma4j.codec.RpcRdmaLayout.XID_OFFSET;

import io.netty.buffer.ByteBuf;
import java.util.Objects;

/**
 * Writes RPC-over-RDMA version 1 transport headers into buffers the caller owns. Stateless and allocation free
 * once warm: a header keeps its chunk lists in wire form (its wire image), so encoding adds the fixed words and the
 * list terminators and copies the image to the buffer in one call.
 * <p>
 * {@link #encodedLength(RpcRdmaHeader)} gives the exact size first, so a transport can decide between inline and
 * chunks, or reserve room in front of an RPC message, before writing anything. The encode methods write nothing
 * when the header cannot be encoded or the buffer cannot take it.
 * <p>
 * Error replies need no header object: {@link #encodeErrVers}, {@link #encodeErrChunk}, {@link #encodeError} and,
 * straight from a failed decode, {@link #encodeErrorReply}.
 */
public final class RpcRdmaEncoder {

    private RpcRdmaEncoder() {
    }

    /**
     * @param header borrowed
     * @return the exact number of bytes {@link #encode(ByteBuf, RpcRdmaHeader)} will write
     * @throws IllegalStateException for a header that cannot be encoded: RDMA_MSGP or RDMA_DONE, an RDMA_ERROR
     *                               without an error code or with chunk lists
     */
    public static int encodedLength(RpcRdmaHeader header) {
        // RDMA_MSG is 0 and RDMA_NOMSG 1
        return (header.proc().value() & ~1) == 0 ? header.lists().imageLength() : otherLength(header);
    }

    /** RDMA_ERROR, or the procedures that are not encoded. */
    private static int otherLength(RpcRdmaHeader header) {
        if (header.proc() != RpcRdmaProc.RDMA_ERROR) {
            throw new IllegalStateException(header.proc() + " is not to be used (RFC 8166) and is not encoded");
        }
        if (header.totalSegmentCount() != 0 || header.writeChunkCount() != 0 || header.hasReplyChunk()) {
            throw new IllegalStateException("an RDMA_ERROR carries no chunk lists");
        }
        RpcRdmaErrorCode code = header.errorCode();
        if (code == RpcRdmaErrorCode.ERR_VERS) {
            return ERR_VERS_LENGTH;
        }
        if (code == RpcRdmaErrorCode.ERR_CHUNK) {
            return ERR_CHUNK_LENGTH;
        }
        throw new IllegalStateException("an RDMA_ERROR needs ERR_VERS or ERR_CHUNK, not " + code);
    }

    /**
     * Writes {@code header} at {@code out}'s writer index and advances it.
     *
     * @param out    borrowed; grown if it may grow
     * @param header borrowed; not changed
     * @return the number of bytes written ({@link #encodedLength})
     * @throws IllegalStateException     when the header cannot be encoded (see {@link #encodedLength})
     * @throws IndexOutOfBoundsException when {@code out} cannot take that many bytes; nothing is written
     */
    public static int encode(ByteBuf out, RpcRdmaHeader header) {
        int length = encodedLength(header);
        write(header, length);
        // one call: makes room (or throws before writing anything), copies, advances the writer index
        out.writeBytes(header.wire().bytes(), 0, length);
        return length;
    }

    /**
     * Writes {@code header} at absolute index {@code index}; the buffer's indices do not move.
     *
     * @param out    borrowed
     * @param index  where the header's first byte goes
     * @param header borrowed; not changed
     * @return the number of bytes written
     * @throws IllegalStateException     when the header cannot be encoded
     * @throws IndexOutOfBoundsException when the bytes do not fit inside {@code out}'s capacity; nothing is written
     */
    public static int encodeAt(ByteBuf out, int index, RpcRdmaHeader header) {
        int length = encodedLength(header);
        if (index < 0 || index > out.capacity() - length) {
            throw new IndexOutOfBoundsException("a " + length + "-byte header at " + index + " does not fit capacity "
                    + out.capacity());
        }
        write(header, length);
        header.wire().copyOut(out, index, length);
        return length;
    }

    /**
     * Completes the header's wire image (the fixed words, the list terminators, or an RDMA_ERROR body), from which
     * it is copied to the buffer in one call: one bounds check instead of one per word, and no per-segment work.
     * Only the words around the lists are written; the builder or the decoder put the lists there already.
     */
    private static void write(RpcRdmaHeader header, int length) {
        RpcRdmaWire w = header.wire();
        w.ensureCapacity(length);
        RpcRdmaProc proc = header.proc();
        w.putLong(XID_OFFSET, RpcRdmaSegments.pair(header.xid(), header.vers()));
        w.putLong(CREDITS_OFFSET, RpcRdmaSegments.pair(header.credits(), proc.value()));
        if (proc == RpcRdmaProc.RDMA_ERROR) {
            writeErrorImage(w, header);
            return;
        }
        // the lists are in the image already, in wire order; only their terminators are written here
        RpcRdmaChunkLists lists = header.lists();
        int readEnd = lists.readEnd();
        w.putInt(readEnd, ABSENT);
        int writeEnd = readEnd + WORD + lists.writeChunkCount * CHUNK_PREFIX_LENGTH
                + lists.writeCount * SEGMENT_LENGTH;
        if (lists.replyChunkPresent) {
            w.putInt(writeEnd, ABSENT);
            w.putLong(writeEnd + WORD, RpcRdmaSegments.pair(PRESENT, lists.replyCount));
        } else {
            w.putLong(writeEnd, RpcRdmaSegments.pair(ABSENT, ABSENT));
        }
    }

    private static void writeErrorImage(RpcRdmaWire w, RpcRdmaHeader header) {
        w.putInt(ERROR_CODE_OFFSET, header.errorCode().value());
        if (header.errorCode() == RpcRdmaErrorCode.ERR_VERS) {
            w.putInt(ERROR_VERS_LOW_OFFSET, header.errorVersLow());
            w.putInt(ERROR_VERS_HIGH_OFFSET, header.errorVersHigh());
        }
    }

    private static void writeErrorBody(ByteBuf out, int index, RpcRdmaErrorCode code, int low, int high) {
        out.setInt(index + ERROR_CODE_OFFSET, code.value());
        if (code == RpcRdmaErrorCode.ERR_VERS) {
            out.setInt(index + ERROR_VERS_LOW_OFFSET, low);
            out.setInt(index + ERROR_VERS_HIGH_OFFSET, high);
        }
    }

    /**
     * Writes a complete RDMA_ERROR message (vers 1) at {@code out}'s writer index and advances it.
     *
     * @param out     borrowed
     * @param xid     the xid of the message being answered
     * @param credits the responder's usual credit grant
     * @param code    ERR_VERS or ERR_CHUNK
     * @param low     lowest supported version (ERR_VERS only)
     * @param high    highest supported version (ERR_VERS only)
     * @return bytes written: 28 for ERR_VERS, 20 for ERR_CHUNK
     * @throws IllegalArgumentException  for {@link RpcRdmaErrorCode#UNKNOWN}
     * @throws IndexOutOfBoundsException when {@code out} cannot take the bytes; nothing is written
     */
    public static int encodeError(ByteBuf out, int xid, int credits, RpcRdmaErrorCode code, int low, int high) {
        int length;
        if (Objects.requireNonNull(code, "code") == RpcRdmaErrorCode.ERR_VERS) {
            length = ERR_VERS_LENGTH;
        } else if (code == RpcRdmaErrorCode.ERR_CHUNK) {
            length = ERR_CHUNK_LENGTH;
        } else {
            throw new IllegalArgumentException("UNKNOWN is not an error code that can be sent");
        }
        out.ensureWritable(length);
        int index = out.writerIndex();
        out.setInt(index + XID_OFFSET, xid);
        out.setInt(index + VERS_OFFSET, VERSION);
        out.setInt(index + CREDITS_OFFSET, credits);
        out.setInt(index + PROC_OFFSET, RpcRdmaProc.RDMA_ERROR.value());
        writeErrorBody(out, index, code, low, high);
        out.writerIndex(index + length);
        return length;
    }

    /** Writes RDMA_ERROR / ERR_VERS reporting version 1..1; see {@link #encodeError}. @return 28 */
    public static int encodeErrVers(ByteBuf out, int xid, int credits) {
        return encodeError(out, xid, credits, RpcRdmaErrorCode.ERR_VERS, VERSION, VERSION);
    }

    /** Writes RDMA_ERROR / ERR_CHUNK; see {@link #encodeError}. @return 20 */
    public static int encodeErrChunk(ByteBuf out, int xid, int credits) {
        return encodeError(out, xid, credits, RpcRdmaErrorCode.ERR_CHUNK, 0, 0);
    }

    /**
     * Writes the answer a responder owes for a header that failed to decode, as {@link RpcRdmaDecodeException#response()}
     * says: ERR_VERS (versions {@code e.versLow()..e.versHigh()}), ERR_CHUNK, or nothing.
     *
     * @param out     borrowed
     * @param e       the decode failure
     * @param credits the responder's usual credit grant
     * @return bytes written; 0 when the message is to be dropped (then nothing should be sent)
     */
    public static int encodeErrorReply(ByteBuf out, RpcRdmaDecodeException e, int credits) {
        RpcRdmaErrorCode code = e.response().errorCode();
        if (code == null || !e.hasXid()) {
            return 0;
        }
        return encodeError(out, e.xid(), credits, code, e.versLow(), e.versHigh());
    }
}
