package org.rpcrdma4j.xprt.server;

import io.netty.buffer.ByteBuf;

import org.rpcrdma4j.codec.RpcRdmaEncoder;
import org.rpcrdma4j.codec.RpcRdmaHeader;
import org.rpcrdma4j.codec.RpcRdmaLayout;
import org.rpcrdma4j.codec.RpcRdmaProc;
import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.xprt.UpperLayerBinding;
import org.rpcrdma4j.xprt.XdrFormatException;
import org.rpcrdma4j.xprt.internal.DataItemCut;

/**
 * Turns one encoded reply into what goes on the wire, as Linux svcrdma does (PROTOCOLS.md A.3-A.6): the
 * DDP-eligible result, found with the program's {@link UpperLayerBinding}, into the call's first write chunk by RDMA
 * WRITE, with the reply reduced (the item's length word stays inline, its bytes and pad go); then the reply inline
 * (RDMA_MSG) if header and message fit the inline threshold, else into the reply chunk (RDMA_NOMSG), else
 * RDMA_ERROR / ERR_CHUNK. The reply header echoes the call's write list with the bytes actually written (0 for
 * unused chunks). Send With Invalidate names the call's only handle when the client offered remote invalidation.
 * <p>
 * Reusable, one per call slot; the output (header in the slot's header area, Send SGEs, {@link WritePlan}) stays valid
 * until the next {@code marshal}. Runs on the thread that replies; allocates nothing when the reply sits in the slot.
 * <p>
 * Slot layout: {@code [0, headerArea)} header area, the header is written right-aligned so that it ends where the
 * message area begins; {@code [headerArea, headerArea + inline)} message area.
 */
final class ReplyMarshaler {

    /** How a reply went out. */
    enum Kind { INLINE, REPLY_CHUNK, ERR_CHUNK, ERR_VERS }

    private final RpcRdmaHeader reply;
    private final DataItemCut cut = new DataItemCut();
    private final SgeList itemSges = new SgeList();
    private final SgeList messageSges = new SgeList();
    private final SgeList sendSges = new SgeList();
    private final WritePlan writes = new WritePlan();
    private final ByteBuf slot;
    private final int slotLkey;
    private final long slotIova;
    private final int headerArea;
    private final int maxSge;

    private Kind kind;
    private Opcode opcode;
    private int invalidateStag;
    private long writeChunkBytes;
    private long replyChunkBytes;
    private String error;

    ReplyMarshaler(RpcRdmaHeader reply, ByteBuf slot, int slotLkey, long slotIova, int headerArea, int maxSge) {
        this.reply = reply;
        this.slot = slot;
        this.slotLkey = slotLkey;
        this.slotIova = slotIova;
        this.headerArea = headerArea;
        this.maxSge = maxSge;
    }

    /**
     * Marshals the reply held by {@code bytes} to the call {@code call}.
     *
     * @param binding       the program's binding, or null
     * @param inlineSend    the connection's inline send threshold (at most the header area)
     * @param credits       the grant to put in the header
     * @param sendWithInv   whether the client offered remote invalidation and the device can send it
     * @return how the reply goes out ({@link #error()} says why for ERR_CHUNK)
     * @throws VerbsException       when registered memory for a copy could not be had
     * @throws InterruptedException while waiting for it
     */
    Kind marshal(RpcRdmaHeader call, ReplyBytes bytes, UpperLayerBinding binding, int version, int procedure,
                 int inlineSend, int credits, boolean sendWithInv) throws VerbsException, InterruptedException {
        writes.clear();
        sendSges.clear();
        itemSges.clear();
        messageSges.clear();
        writeChunkBytes = 0;
        replyChunkBytes = 0;
        error = null;
        int length = bytes.length();
        reply.clear().xid(call.xid()).credits(credits).proc(RpcRdmaProc.RDMA_MSG);
        if (call.writeChunkCount() > 0) {
            reply.copyWriteListFrom(call);
            // only the first write chunk can carry this reply's one DDP-eligible result: the others stay unused
            for (int c = 1; c < call.writeChunkCount(); c++) {
                reply.setWriteChunkBytesWritten(c, 0);
            }
        }
        // the DDP-eligible result, if any, into write chunk 0
        int itemStart = 0;
        int itemEnd = 0;
        boolean ddp = false;
        if (binding != null && call.writeChunkCount() > 0 && locate(bytes, binding, version, procedure)) {
            if (cut.itemLength() > call.writeChunkLength(0)) {
                return errChunk(call, credits, "the " + cut.itemLength() + "-byte result exceeds the "
                        + call.writeChunkLength(0) + "-byte write chunk");
            }
            ddp = true;
            itemStart = cut.itemOffset();
            itemEnd = cut.tailOffset();
            bytes.sges(itemStart, cut.itemLength(), itemSges, true);
            writes.add(itemSges, call, 0, maxSge);
            reply.setWriteChunkBytesWritten(0, cut.itemLength());
            writeChunkBytes = cut.itemLength();
        }
        if (call.writeChunkCount() > 0 && !ddp) {
            reply.setWriteChunkBytesWritten(0, 0);
        }
        int headLength = ddp ? itemStart : length;
        int tailLength = ddp ? length - itemEnd : 0;
        int message = headLength + tailLength;
        int header = RpcRdmaEncoder.encodedLength(reply);
        if (header + message <= inlineSend) {
            int at = headerArea - header;
            RpcRdmaEncoder.encodeAt(slot, at, reply);
            sendSges.add(slotLkey, slotIova + at, header);
            if (bytes.inSlot()) {
                bytes.sges(0, headLength, sendSges, false);
                bytes.sges(itemEnd, tailLength, sendSges, false);
            } else {
                bytes.copyToSlot(0, headLength, headerArea);
                bytes.copyToSlot(itemEnd, tailLength, headerArea + headLength);
                sendSges.add(slotLkey, slotIova + headerArea, message);
            }
            kind = Kind.INLINE;
        } else if (call.hasReplyChunk() && message <= call.replyChunkLength()) {
            reply.proc(RpcRdmaProc.RDMA_NOMSG).copyReplyChunkFrom(call).setReplyChunkBytesWritten(message);
            header = RpcRdmaEncoder.encodedLength(reply);
            if (header > inlineSend) {
                return errChunk(call, credits, "a " + header + "-byte reply header exceeds the inline threshold");
            }
            bytes.sges(0, headLength, messageSges, true);
            bytes.sges(itemEnd, tailLength, messageSges, true);
            writes.add(messageSges, call, WritePlan.REPLY_CHUNK, maxSge);
            int at = headerArea - header;
            RpcRdmaEncoder.encodeAt(slot, at, reply);
            sendSges.add(slotLkey, slotIova + at, header);
            replyChunkBytes = message;
            kind = Kind.REPLY_CHUNK;
        } else {
            return errChunk(call, credits, call.hasReplyChunk()
                    ? "the " + message + "-byte reply exceeds the " + call.replyChunkLength() + "-byte reply chunk"
                    : "the " + message + "-byte reply exceeds the inline threshold and the call has no reply chunk");
        }
        long sole = call.soleHandle();
        if (sendWithInv && sole != -1) {
            opcode = Opcode.SEND_WITH_INV;
            invalidateStag = (int) sole;
        } else {
            opcode = Opcode.SEND;
            invalidateStag = 0;
        }
        return kind;
    }

    /**
     * Cuts the reply around its DDP-eligible result; a reply the binding cannot walk, or whose item it places outside
     * the reply, is sent whole.
     */
    private boolean locate(ReplyBytes bytes, UpperLayerBinding binding, int version, int procedure) {
        int base = bytes.viewBase();
        try {
            return cut.cutReply(binding, version, procedure, bytes.view(), base, base + bytes.length());
        } catch (XdrFormatException | RuntimeException e) {
            return false;
        }
    }

    /** Replaces the reply by RDMA_ERROR / ERR_CHUNK (never sent with invalidation). */
    Kind errChunk(RpcRdmaHeader call, int credits, String why) {
        return error(call.xid(), credits, Kind.ERR_CHUNK, why);
    }

    /**
     * Prepares an RDMA_ERROR (ERR_CHUNK or ERR_VERS 1..1) for {@code xid}: the header alone, in the header area.
     */
    Kind error(int xid, int credits, Kind errorKind, String why) {
        writes.clear();
        sendSges.clear();
        writeChunkBytes = 0;
        replyChunkBytes = 0;
        int length = errorKind == Kind.ERR_VERS ? RpcRdmaLayout.ERR_VERS_LENGTH : RpcRdmaLayout.ERR_CHUNK_LENGTH;
        int at = headerArea - length;
        int saved = slot.writerIndex();
        int savedReader = slot.readerIndex();
        slot.setIndex(0, at);
        if (errorKind == Kind.ERR_VERS) {
            RpcRdmaEncoder.encodeErrVers(slot, xid, credits);
        } else {
            RpcRdmaEncoder.encodeErrChunk(slot, xid, credits);
        }
        slot.setIndex(savedReader, saved);
        sendSges.add(slotLkey, slotIova + at, length);
        opcode = Opcode.SEND;
        invalidateStag = 0;
        error = why;
        return kind = errorKind;
    }

    Kind kind() {
        return kind;
    }

    Opcode opcode() {
        return opcode;
    }

    int invalidateStag() {
        return invalidateStag;
    }

    SgeList sendSges() {
        return sendSges;
    }

    WritePlan writes() {
        return writes;
    }

    long writeChunkBytes() {
        return writeChunkBytes;
    }

    long replyChunkBytes() {
        return replyChunkBytes;
    }

    /** Why the reply became ERR_CHUNK, or null. */
    String error() {
        return error;
    }
}
