package org.rpcrdma4j.xprt.client;

import io.netty.buffer.ByteBuf;
import org.rpcrdma4j.codec.RpcRdmaDecodeException;
import org.rpcrdma4j.codec.RpcRdmaDecoder;
import org.rpcrdma4j.codec.RpcRdmaErrorCode;
import org.rpcrdma4j.codec.RpcRdmaHeader;
import org.rpcrdma4j.codec.RpcRdmaLimits;
import org.rpcrdma4j.registration.Registration;
import org.rpcrdma4j.registration.WrIds;
import org.rpcrdma4j.verbs.PostException;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.rpcrdma4j.verbs.util.EnumCounters;
import org.rpcrdma4j.xprt.DataItem;
import org.rpcrdma4j.xprt.XdrFormatException;
import org.rpcrdma4j.xprt.XprtCounter;
import org.rpcrdma4j.xprt.internal.Copies;
import org.rpcrdma4j.xprt.internal.ReceiveRing;
import org.rpcrdma4j.xprt.internal.RpcHeader;
import org.rpcrdma4j.xprt.internal.StreamLayout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes one received message apart (Linux's {@code rpcrdma_reply_handler}), on the agent thread: decodes the
 * transport header; recognises reverse-direction calls (RFC 8167: the RPC message type word says CALL) and drops them;
 * matches the xid; takes the credit grant; checks the chunk lists against what the call registered; and hands the
 * reply (inline, rebuilt around a Write chunk, or from the Reply chunk) to the call's target. The call then completes
 * once every handle it exposed is invalid.
 * <p>
 * Checks (each failure ends the RPC with {@link RdmaBadReplyException}, counted as {@code bad_reply_count}): a Reply
 * has no Read list; RDMA_MSG has an empty Reply chunk and an inline message whose xid is the call's; RDMA_NOMSG has no
 * Write list data and a non-empty Reply chunk; a returned Write or Reply chunk has the call's segments, the same
 * handles, and lengths no larger than what was registered.
 */
final class ReplyProcessor {
    private static final Logger LOG = LoggerFactory.getLogger(ReplyProcessor.class);

    private final ClientAgent agent;
    private final EnumCounters<XprtCounter> counters;
    private final EnumCounters<ClientCounter> own;
    private final RpcRdmaHeader header;
    private final String server;

    ReplyProcessor(ClientAgent agent, RpcRdmaLimits limits, String server) {
        this.agent = agent;
        this.counters = agent.counters();
        this.own = agent.ownCounters();
        this.header = new RpcRdmaHeader(limits);
        this.server = server;
    }

    /**
     * Polls the connection's receive completion queue until it is empty (or the connection is dropped), processes
     * every message and posts the consumed receive buffers again, one chain per batch.
     *
     * @return the completions polled
     */
    int poll(ClientConnection c, ReceiveRing receives, WorkCompletion[] batch, long now) {
        int total = 0;
        int n;
        while (agent.connection() == c && (n = c.queues.recvCq().poll(batch)) > 0) {
            total += n;
            for (int i = 0; i < n; i++) {
                WorkCompletion wc = batch[i];
                if (WrIds.kind(wc.wrId) != WrIds.Kind.RECEIVE
                        || WrIds.epoch(wc.wrId) != (c.generation & WrIds.EPOCH_MASK)) {
                    continue;
                }
                int index = WrIds.index(wc.wrId);
                receives.completed();
                if (!wc.ok()) {
                    if (wc.status != WcStatus.WR_FLUSH_ERR) {
                        agent.disconnectSoon("a receive failed: " + wc.status);
                    } else {
                        agent.flushed("a receive was flushed");
                    }
                    continue;
                }
                agent.received(now);
                try {
                    onReceive(wc, receives.buffer(index), receives.offset(index), wc.byteLen);
                } catch (RuntimeException e) {
                    LOG.warn("taking a message from {} apart failed: {}", server, e.toString(), e);
                    agent.disconnectSoon("taking a message apart failed: " + e);
                } finally {
                    receives.recycle(index);
                }
            }
            if (agent.state() == ClientAgent.State.CONNECTED && receives.recycledCount() > 0) {
                try {
                    receives.repost(c.qp, c.generation);
                } catch (PostException e) {
                    agent.disconnectSoon("posting receives failed: " + e.getMessage());
                }
            }
        }
        return total;
    }

    /** Processes the {@code length} bytes received into {@code buf} at {@code offset}, reported by {@code wc}. */
    void onReceive(WorkCompletion wc, ByteBuf buf, int offset, int length) {
        int headerLength;
        try {
            headerLength = RpcRdmaDecoder.decodeAt(buf, offset, length, header);
        } catch (RpcRdmaDecodeException e) {
            counters.increment(XprtCounter.BAD_REPLY_COUNT);
            RequestSlot slot = e.hasXid() ? agent.takeSent(e.xid()) : null;
            if (slot == null) {
                LOG.debug("dropped an undecodable message from {}: {}", server, e.getMessage());
                return;
            }
            agent.replied(slot, wc, new RdmaBadReplyException("the reply to xid 0x" + Integer.toHexString(slot.xid)
                    + " from " + server + " has a malformed transport header: " + e.getMessage(), e));
            return;
        }
        int messageLength = length - headerLength;
        int at = offset + headerLength;
        if (ReverseServer.isCall(header, buf, at, messageLength)) {
            // RFC 8167 reverse direction: a call from the server, with an xid of the other direction's space
            ClientConnection c = agent.connection();
            agent.reverse().onCall(header, buf, at, messageLength, c != null ? c.generation : -1);
            return;
        }
        RequestSlot slot = agent.takeSent(header.xid());
        if (slot == null) {
            counters.increment(XprtCounter.UNKNOWN_XID_REPLIES);
            LOG.debug("dropped a reply for xid 0x{} from {}: no such call outstanding",
                    Integer.toHexString(header.xid()), server);
            return;
        }
        agent.grant(header.credits());
        Throwable failure;
        try {
            failure = take(slot, buf, at, messageLength);
        } catch (RuntimeException e) {
            counters.increment(XprtCounter.BAD_REPLY_COUNT);
            failure = new RdmaBadReplyException("the reply to xid 0x" + Integer.toHexString(slot.xid) + " from "
                    + server + " could not be taken: " + e, e);
        }
        agent.replied(slot, wc, failure);
    }

    /** Checks the reply to {@code slot} and hands it to the call's target: the call's failure, or null. */
    private Throwable take(RequestSlot slot, ByteBuf buf, int at, int messageLength) {
        Throwable failure;
        switch (header.proc()) {
            case RDMA_ERROR:
                counters.increment(XprtCounter.RDMA_ERRORS);
                failure = header.errorCode() == RpcRdmaErrorCode.ERR_VERS
                        ? new RdmaVersionMismatchException(server, header.errorVersLow(), header.errorVersHigh())
                        : new RdmaChunkErrorException("server " + server + " answered xid 0x"
                        + Integer.toHexString(slot.xid) + " with ERR_CHUNK: it could not parse the call's chunk lists"
                        + (slot.hasItem ? ", would not pull its data item of " + slot.itemLength + " bytes (a server "
                        + "bounds what it reads for one call: Linux by its max payload, ours by maxReadChunkBytes)"
                        : "") + " or its reply did not fit the " + describePlan(slot));
                break;
            case RDMA_MSG:
                failure = inline(slot, buf, at, messageLength);
                break;
            case RDMA_NOMSG:
                failure = nomsg(slot);
                break;
            default:
                failure = bad(slot, "procedure " + header.proc() + " in a reply");
        }
        return failure;
    }

    private static String describePlan(RequestSlot slot) {
        switch (slot.replyPlan) {
            case WRITE_CHUNK:
                return "Write chunk of " + slot.sinkLength + " bytes";
            case REPLY_CHUNK:
                return "Reply chunk of " + slot.sinkLength + " bytes";
            default:
                return "inline receive threshold";
        }
    }

    /** Whether the DDP caller's reply buffer can take {@code length} more bytes (grown as far as it may be). */
    private static boolean fits(RequestSlot slot, long length) {
        return slot.ddpCall.replyBuffer().maxWritableBytes() >= length;
    }

    private Throwable tooLarge(RequestSlot slot, long length) {
        counters.increment(XprtCounter.BAD_REPLY_COUNT);
        return new RdmaBadReplyException("the " + length + "-byte reply to xid 0x" + Integer.toHexString(slot.xid)
                + " from " + server + " does not fit the call's reply buffer, which takes at most "
                + slot.ddpCall.replyBuffer().maxWritableBytes() + " more bytes");
    }

    private Throwable bad(RequestSlot slot, String what) {
        counters.increment(XprtCounter.BAD_REPLY_COUNT);
        return new RdmaBadReplyException("bad reply to xid 0x" + Integer.toHexString(slot.xid) + " from " + server
                + ": " + what);
    }

    // ------------------------------------------------------------------ RDMA_MSG

    private Throwable inline(RequestSlot slot, ByteBuf buf, int at, int length) {
        if (header.readSegmentCount() != 0) {
            return bad(slot, "a Read list in a reply");
        }
        if (header.hasReplyChunk() && header.replyChunkLength() != 0) {
            return bad(slot, "RDMA_MSG with a non-empty Reply chunk");
        }
        long placed = -1;
        if (header.writeChunkCount() > 0) {
            if (slot.replyPlan != RequestSlot.ReplyPlan.WRITE_CHUNK || header.writeChunkCount() > 1) {
                return bad(slot, header.writeChunkCount() + " Write chunk(s) returned, the call offered "
                        + (slot.replyPlan == RequestSlot.ReplyPlan.WRITE_CHUNK ? 1 : 0));
            }
            String wrong = checkSegments(slot.registration, slot.writeSegFrom, slot.writeSegTo, true);
            if (wrong != null) {
                return bad(slot, wrong);
            }
            placed = header.writeChunkLength(0);
        }
        if (length < 4 || buf.getInt(at) != slot.xid) {
            return bad(slot, length < 4 ? "no inline RPC message"
                    : "the inline message carries xid 0x" + Integer.toHexString(buf.getInt(at)));
        }
        counters.add(XprtCounter.TOTAL_RDMA_REPLY, length + Math.max(0, placed));
        if (slot.keepAliveProbe) {
            return null;
        }
        boolean rebuild = placed >= 0 && slot.ownedReply != null;
        if (rebuild) {
            return rebuild(slot, buf, at, length, placed);
        }
        if (slot.ddpCall != null) {
            if (!fits(slot, length)) {
                return tooLarge(slot, length);
            }
            slot.ddpCall.replyBuffer().writeBytes(buf, at, length);
            slot.ddpCall.replied(length, placed);
        } else {
            byte[] flat = new byte[length];
            buf.getBytes(at, flat);
            slot.plainReply = PlainReply.of(flat);
        }
        return null;
    }

    /**
     * The result went into a transport buffer's Write chunk but the caller wants a flat reply: puts the placed bytes
     * (and their pad) back where the binding says the item's bytes belong.
     */
    private Throwable rebuild(RequestSlot slot, ByteBuf buf, int at, int length, long placed) {
        RpcHeader rh = slot.replyHeader;
        int position = -1;
        try {
            rh.parse(buf, at, at + length);
            if (rh.isSuccessfulReply() && slot.binding != null) {
                int results = rh.bodyOffset();
                DataItem item = slot.replyItem.clear();
                ByteBuf view = buf.duplicate().setIndex(at + results, at + length);
                if (slot.binding.locateReducedReplyItem(slot.version, slot.procedure, view, item)) {
                    if (item.length() != placed) {
                        return bad(slot, "the reply's data item says " + item.length() + " bytes, the server "
                                + "placed " + placed + " in the Write chunk");
                    }
                    position = results + item.offset();
                    if (position > length) {
                        return bad(slot, "the reply's data item lies beyond the " + length + "-byte reply");
                    }
                }
            }
        } catch (XdrFormatException e) {
            return bad(slot, "the reduced reply does not decode: " + e.getMessage());
        }
        if (position < 0 && placed > 0) {
            return bad(slot, placed + " bytes placed in the Write chunk, but the reply has no data item for them");
        }
        if (position >= 0) {
            counters.add(XprtCounter.FIXUP_COPY_COUNT, placed);
        }
        if (slot.ddpCall == null) {
            // an oncrpc4j caller's: made flat on the callback thread, from the sink the reply takes over
            byte[] head = new byte[length];
            buf.getBytes(at, head);
            slot.plainReply = PlainReply.spliced(head, position < 0 ? length : position, slot.ownedReply,
                    slot.sinkIndex, position < 0 ? 0 : (int) placed);
            slot.ownedReply = null;
            return null;
        }
        StreamLayout layout = slot.replyLayout;
        layout.layOutReply(length, position < 0 ? length : position, position < 0 ? 0 : placed);
        int total = layout.totalLength();
        if (!fits(slot, total)) {
            return tooLarge(slot, total);
        }
        layout.appendTo(slot.ddpCall.replyBuffer(), buf, at, slot.sinkBuf, slot.sinkIndex);
        slot.ddpCall.replied(total, -1);
        return null;
    }

    // ------------------------------------------------------------------ RDMA_NOMSG

    private Throwable nomsg(RequestSlot slot) {
        if (header.readSegmentCount() != 0) {
            return bad(slot, "a Read list in a reply");
        }
        for (int c = 0; c < header.writeChunkCount(); c++) {
            if (header.writeChunkLength(c) != 0) {
                return bad(slot, "RDMA_NOMSG with data in the Write list");
            }
        }
        if (!header.hasReplyChunk() || header.replyChunkLength() == 0) {
            return bad(slot, "RDMA_NOMSG without a Reply chunk");
        }
        if (slot.replyPlan != RequestSlot.ReplyPlan.REPLY_CHUNK) {
            return bad(slot, "a Reply chunk returned, the call offered none");
        }
        String wrong = checkSegments(slot.registration, slot.replySegFrom, slot.replySegTo, false);
        if (wrong != null) {
            return bad(slot, wrong);
        }
        int length = (int) header.replyChunkLength();
        if (length < 4 || slot.sinkBuf.getInt(slot.sinkIndex) != slot.xid) {
            return bad(slot, "the Reply chunk does not hold the reply to this call");
        }
        counters.add(XprtCounter.TOTAL_RDMA_REPLY, length);
        counters.add(XprtCounter.FIXUP_COPY_COUNT, length);
        if (slot.keepAliveProbe) {
            return null;
        }
        if (slot.ddpCall != null) {
            if (!fits(slot, length)) {
                return tooLarge(slot, length);
            }
            Copies.append(slot.sinkBuf, slot.sinkIndex, length, slot.ddpCall.replyBuffer());
            slot.ddpCall.replied(length, -1);
        } else if (slot.ownedReply == slot.sinkBuf) {
            // made flat on the callback thread, from the Reply chunk the reply takes over
            slot.plainReply = PlainReply.inChunk(slot.ownedReply, slot.sinkIndex, length);
            slot.ownedReply = null;
        } else {
            byte[] flat = new byte[length];
            slot.sinkBuf.getBytes(slot.sinkIndex, flat);
            slot.plainReply = PlainReply.of(flat);
        }
        return null;
    }

    /**
     * Compares a returned Write chunk ({@code write}) or Reply chunk with the segments the call registered: the same
     * count, the same handles, no length above the registered one.
     *
     * @return what is wrong, or null
     */
    private String checkSegments(Registration r, int from, int to, boolean write) {
        int count = write ? header.writeSegmentCount(0) : header.replySegmentCount();
        String what = write ? "Write chunk" : "Reply chunk";
        if (count != to - from) {
            return "the returned " + what + " has " + count + " segments, the call registered " + (to - from);
        }
        for (int s = 0; s < count; s++) {
            int handle = write ? header.writeHandle(0, s) : header.replyHandle(s);
            long returned = write ? header.writeLengthUnsigned(0, s) : header.replyLengthUnsigned(s);
            int i = from + s;
            if (handle != r.handle(i)) {
                return "segment " + s + " of the returned " + what + " names handle 0x" + Integer.toHexString(handle)
                        + ", the call registered 0x" + Integer.toHexString(r.handle(i));
            }
            if (returned > Integer.toUnsignedLong(r.length(i))) {
                return "segment " + s + " of the returned " + what + " reports " + returned
                        + " bytes written, more than the " + Integer.toUnsignedLong(r.length(i)) + " registered";
            }
        }
        return null;
    }
}
