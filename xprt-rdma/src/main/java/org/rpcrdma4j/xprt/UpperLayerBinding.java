package org.rpcrdma4j.xprt;

import io.netty.buffer.ByteBuf;

/**
 * An RPC-over-RDMA upper-layer binding (RFC 8166 section 6, RFC 8267 for NFS): for one RPC program, which argument or
 * result of a procedure is DDP-eligible, and how large a reply can be. With it, a flat XDR call or reply — which
 * knows nothing of chunks — can be split into an inline part and a chunk on either side.
 * <p>
 * A binding never trusts the stream: it reads through an {@link XdrCursor} and answers "no DDP item" (or throws
 * {@link XdrFormatException}) for anything it cannot parse, never a wrong offset. Implementations are stateless
 * and thread-safe; they allocate nothing.
 * <p>
 * Programs without a binding use inline messages, position-zero read chunks and reply chunks only.
 */
public interface UpperLayerBinding {

    /** The RPC program number this binding describes (e.g. 100003 for NFS). */
    int program();

    /** Whether this binding knows the version. */
    boolean supportsVersion(int version);

    /**
     * Finds the DDP-eligible argument of a call (e.g. NFSv3 WRITE data).
     *
     * @param version   program version
     * @param procedure procedure number
     * @param args      the call's arguments: {@code args[readerIndex, writerIndex)} begins with the first argument,
     *                  just after the RPC call header's verifier. Borrowed; indexes are not moved.
     * @param out       filled with the item's offset relative to {@code args.readerIndex()}
     * @return true when the call has a DDP-eligible item (and {@code out} is set)
     */
    boolean locateCallItem(int version, int procedure, ByteBuf args, DataItem out) throws XdrFormatException;

    /**
     * Finds the DDP-eligible result of a reply (e.g. NFSv3 READ data), in the unreduced reply.
     *
     * @param results the reply's results: begins just after the accept status SUCCESS. Borrowed.
     * @param out     filled with the item's offset relative to {@code results.readerIndex()}
     * @return true when the reply carries a DDP-eligible item
     */
    boolean locateReplyItem(int version, int procedure, ByteBuf results, DataItem out) throws XdrFormatException;

    /**
     * Finds, in a reply whose DDP-eligible item was moved into a write chunk (reduced: the length word stays
     * inline, the bytes and their padding are gone), the offset just after that item's length word: where the
     * item's bytes belong when the reply is rebuilt. There is no default: a walk that checks the item's bytes are
     * present (as {@link XdrCursor#skipOpaque} does) would fail on a reduced reply.
     *
     * @param results the reduced reply's results, beginning just after the accept status. Borrowed.
     * @return true when the reply has such an item (and {@code out} is set, with the length word's value)
     */
    boolean locateReducedReplyItem(int version, int procedure, ByteBuf results, DataItem out)
            throws XdrFormatException;

    /**
     * The most bytes the DDP-eligible result of this call can carry (e.g. the count of an NFSv3 READ), so that the
     * requester can provide a write chunk large enough; -1 when the procedure has no DDP-eligible result.
     *
     * @param args as for {@link #locateCallItem}
     */
    long maxReplyItemLength(int version, int procedure, ByteBuf args) throws XdrFormatException;

    /**
     * An upper bound, in bytes, of the reply's RPC message without its DDP-eligible item's bytes (the reply header,
     * the results, and the item's length word): the requester compares it with its inline receive threshold to
     * decide whether a reply chunk is needed. -1 when unbounded or unknown (then a reply chunk is always provided).
     */
    long maxInlineReplySize(int version, int procedure, ByteBuf args) throws XdrFormatException;

    /**
     * {@link #maxReplyItemLength} of a reduced call: one whose DDP-eligible argument travels apart from the message,
     * as a Read chunk from the caller's memory. In {@code reducedArgs} that item's length word stays, its bytes and
     * their padding are gone, and what followed the item follows the length word. The default asks
     * {@link #maxReplyItemLength}: right for bindings that never read past a call's item (NFSv3's); a binding whose
     * walk goes on past it (NFSv4's COMPOUND) overrides this.
     */
    default long maxReplyItemLengthReduced(int version, int procedure, ByteBuf reducedArgs)
            throws XdrFormatException {
        return maxReplyItemLength(version, procedure, reducedArgs);
    }

    /** {@link #maxInlineReplySize} of a reduced call ({@link #maxReplyItemLengthReduced} says what that is). */
    default long maxInlineReplySizeReduced(int version, int procedure, ByteBuf reducedArgs)
            throws XdrFormatException {
        return maxInlineReplySize(version, procedure, reducedArgs);
    }
}
