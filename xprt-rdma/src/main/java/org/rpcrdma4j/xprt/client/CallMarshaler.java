package org.rpcrdma4j.xprt.client;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.rpcrdma4j.codec.RpcRdmaEncoder;
import org.rpcrdma4j.codec.RpcRdmaHeader;
import org.rpcrdma4j.codec.RpcRdmaLayout;
import org.rpcrdma4j.codec.RpcRdmaProc;
import org.rpcrdma4j.registration.BufferPoolExhaustedException;
import org.rpcrdma4j.registration.ChunkRole;
import org.rpcrdma4j.registration.RegisteredBuffer;
import org.rpcrdma4j.registration.RegisteredBufferPool;
import org.rpcrdma4j.registration.Registration;
import org.rpcrdma4j.registration.RegistrationPool;
import org.rpcrdma4j.registration.RegistrationPoolExhaustedException;
import org.rpcrdma4j.registration.RegistrationResetException;
import org.rpcrdma4j.registration.ScatterList;
import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.verbs.Sge;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.util.EnumCounters;
import org.rpcrdma4j.xprt.UpperLayerBinding;
import org.rpcrdma4j.xprt.XdrFormatException;
import org.rpcrdma4j.xprt.XprtCounter;
import org.rpcrdma4j.xprt.internal.Copies;
import org.rpcrdma4j.xprt.internal.DataItemCut;
import org.rpcrdma4j.xprt.internal.InlineThresholds;
import org.rpcrdma4j.xprt.internal.RpcHeader;

/**
 * Puts calls on the wire the way Linux's {@code rpcrdma_marshal_req} does, on the caller's thread (registration may
 * wait for free handles there, no longer than the call's deadline).
 * <p>
 * <b>Reply</b> (decided first, it may add chunks to the header): a Write chunk over the caller's sink (DDP API), or,
 * for a program with a binding, inline when the largest possible reply fits the inline receive threshold, else a Write
 * chunk for a DDP-eligible result (sized by {@link UpperLayerBinding#maxReplyItemLength}) when the rest of the reply
 * fits inline, else a Reply chunk for the whole reply. Programs without a binding get an inline reply when the
 * configured default maximum reply fits, else a Reply chunk of that size. Never a Write list and a Reply chunk together.
 * <p>
 * <b>Call</b>: RDMA_MSG inline when header + call fit the inline send threshold; else RDMA_MSG with a Read chunk for
 * the DDP-eligible argument at its position (the inline stream reduced: the length word stays, the bytes and pad move);
 * else RDMA_NOMSG with a position-zero Read chunk holding the whole (padded) call.
 */
final class CallMarshaler {
    /** Times a call is marshaled again after the connection was reset under it, before its failure is final. */
    static final int RESET_RETRIES = 3;

    private final ClientAgent agent;
    private final EnumCounters<XprtCounter> counters;
    private final RegisteredBufferPool buffers;
    private final int maxCredits;
    private final int defaultMaxReplySize;
    private final int maxCallSize;

    CallMarshaler(ClientAgent agent, RdmaClientConfig config) {
        this.agent = agent;
        this.counters = agent.counters();
        this.buffers = agent.buffers();
        this.maxCredits = config.maxCredits();
        this.defaultMaxReplySize = config.defaultMaxReplySize();
        this.maxCallSize = config.maxPayloadSize() + config.inlineSendSize();
    }

    // ------------------------------------------------------------------ preparing a DDP call

    /** Copies a DDP call's message (and trailer) into registered memory and plans its reply. Caller's thread. */
    void prepare(RequestSlot slot, RdmaCall call) throws RdmaTransportException, InterruptedException {
        layOut(slot, call.message(), call.payload(), call.payloadIndex(), call.payloadLength(), call.trailer());
        if (call.sink() != null) {
            if (!call.sink().registeredWith(agent.protectionDomain())) {
                throw new IllegalArgumentException("the sink must come from this transport's buffer pool");
            }
            slot.replyPlan = RequestSlot.ReplyPlan.WRITE_CHUNK;
            slot.callerSink = true;
            slot.sinkBuf = call.sink();
            slot.sinkIndex = call.sinkIndex();
            slot.sinkLength = call.sinkLength();
            slot.plannedWith = agent.thresholds();
        } else {
            planReply(slot, slot.headBuf, slot.headIndex, call.maxReplySizeOverride(), agent.thresholds());
        }
    }

    /**
     * Copies {@code message}, the payload's pad and {@code trailer} into registered memory and sets the slot's head,
     * item and tail: the payload (registered memory of this transport, borrowed) stays where it is, as the Read chunk;
     * without one, a binding may cut the copied message around its DDP-eligible argument.
     */
    private void layOut(RequestSlot slot, ByteBuf message, RegisteredBuffer payload, int payloadIndex,
                        int payloadLength, ByteBuf trailer) throws RdmaTransportException, InterruptedException {
        int messageLength = message.readableBytes();
        int pad = payload == null ? 0 : pad(payloadLength);
        int trailerLength = trailer == null ? 0 : trailer.readableBytes();
        long total = (long) messageLength + pad + trailerLength;
        RegisteredBuffer base = messageBuffer(slot, total);
        int at = messageOffset(slot, base);
        Copies.into(message, message.readerIndex(), base, at, messageLength);
        for (int i = 0; i < pad; i++) {
            base.setByte(at + messageLength + i, 0);
        }
        if (trailerLength > 0) {
            Copies.into(trailer, trailer.readerIndex(), base, at + messageLength + pad, trailerLength);
        }
        counters.add(XprtCounter.PULLUP_COPY_COUNT, total);
        parseCall(slot, base, at, messageLength);
        slot.headBuf = base;
        slot.headIndex = at;
        slot.headLength = messageLength;
        slot.tailBuf = base;
        slot.tailIndex = at + messageLength;
        slot.padLength = pad;
        slot.tailLength = trailerLength;
        if (payload != null) {
            if (!payload.registeredWith(agent.protectionDomain())) {
                throw new IllegalArgumentException("the payload must come from this transport's buffer pool");
            }
            if ((messageLength & 3) != 0) {
                throw new RdmaMarshalException("a payload must follow an XDR-aligned message; message is "
                        + messageLength + " bytes");
            }
            slot.itemBuf = payload;
            slot.itemIndex = payloadIndex;
            slot.itemLength = payloadLength;
            slot.hasItem = true;
        } else if (trailerLength == 0) {
            locateCallItem(slot, base, at, messageLength);
        }
    }

    // ------------------------------------------------------------------ preparing an oncrpc4j call

    /**
     * Lays out an oncrpc4j call read in place: with its DDP-eligible argument sent as a Read chunk straight from the
     * caller's memory when that argument was encoded by reference and lies in a live buffer of this transport's pool
     * (which the call then holds until it is done), else copied into registered memory with the rest of the call, once.
     * Plans its reply. Caller's thread.
     */
    void prepare(RequestSlot slot, EncodedCall call) throws RdmaTransportException, InterruptedException {
        ByteBuf message = call.message();
        if (!call.hasDirectPiece() || !prepareInPlace(slot, call, message)) {
            prepare(slot, message); // checks the call's size
        }
    }

    /** The zero-copy case of {@link #prepare(RequestSlot, EncodedCall)}: false when it does not apply. */
    private boolean prepareInPlace(RequestSlot slot, EncodedCall call, ByteBuf message)
            throws RdmaTransportException, InterruptedException {
        checkCallSize(message.readableBytes());
        int from = message.readerIndex();
        int to = message.writerIndex();
        RpcHeader h = slot.callHeader;
        UpperLayerBinding binding;
        DataItemCut cut = slot.callCut;
        try {
            h.parse(message, from, to);
            binding = h.isCall() ? agent.bindings().find(h.program(), h.version()) : null;
            if (binding == null || !cut.cutCall(binding, h, message.duplicate(), from, to)) {
                return false;
            }
        } catch (XdrFormatException e) {
            return false; // the copying path reports it
        }
        ByteBuffer item = call.directRange(cut.itemOffset(), cut.itemLength());
        RegisteredBuffer owner = item == null ? null : buffers.retainOwner(item);
        if (owner == null) {
            return false;
        }
        try {
            int tailFrom = cut.itemOffset() + cut.itemLength() + cut.padLength();
            layOut(slot, message.slice(from, cut.headLength()), owner, owner.indexOf(item), cut.itemLength(),
                    cut.tailLength() == 0 ? null : message.slice(from + tailFrom, cut.tailLength()));
        } catch (RdmaMarshalException | InterruptedException | RuntimeException e) {
            owner.release();
            throw e;
        }
        slot.pinPayload(owner); // released when the call is done and its handles are invalid
        planReply(slot, slot.headBuf, slot.headIndex, -1, agent.thresholds());
        return true;
    }

    private void checkCallSize(int length) throws RdmaMarshalException {
        if (length > maxCallSize) {
            throw new RdmaMarshalException("a call of " + length + " bytes exceeds the largest this transport sends ("
                    + maxCallSize + ": maxPayloadSize + the inline send size; RdmaClientConfig.Builder.maxPayloadSize "
                    + "raises it)");
        }
    }

    /** Copies an encoded call (a flat XDR message) into registered memory and plans its reply. Caller's thread. */
    void prepare(RequestSlot slot, ByteBuf message) throws RdmaTransportException, InterruptedException {
        int length = message.readableBytes();
        checkCallSize(length);
        RegisteredBuffer base = messageBuffer(slot, length);
        int at = messageOffset(slot, base);
        Copies.into(message, message.readerIndex(), base, at, length);
        counters.add(XprtCounter.PULLUP_COPY_COUNT, length);
        parseCall(slot, base, at, length);
        slot.headBuf = base;
        slot.headIndex = at;
        slot.headLength = length;
        slot.tailBuf = base;
        slot.tailIndex = at + length;
        locateCallItem(slot, base, at, length);
        planReply(slot, base, at, -1, agent.thresholds());
    }

    private void parseCall(RequestSlot slot, RegisteredBuffer base, int at, int length) throws RdmaMarshalException {
        RpcHeader h = slot.callHeader;
        try {
            h.parse(base, at, at + length);
        } catch (XdrFormatException e) {
            throw new RdmaMarshalException("not an ONC RPC call: " + e.getMessage(), e);
        }
        if (!h.isCall()) {
            throw new RdmaMarshalException("not an ONC RPC call: message type is a reply");
        }
        slot.xid = h.xid();
        slot.program = h.program();
        slot.version = h.version();
        slot.procedure = h.procedure();
        slot.binding = agent.bindings().find(h.program(), h.version());
    }

    /** With a binding and no payload: cuts the copied message around its DDP-eligible argument, if it has one. */
    private void locateCallItem(RequestSlot slot, RegisteredBuffer base, int at, int length)
            throws RdmaMarshalException {
        UpperLayerBinding binding = slot.binding;
        if (binding == null) {
            return;
        }
        DataItemCut cut = slot.callCut;
        try {
            if (!cut.cutCall(binding, slot.callHeader, view(slot, base, at, at + length), at, at + length)) {
                return;
            }
        } catch (XdrFormatException e) {
            throw new RdmaMarshalException("the arguments do not decode for the program's binding: "
                    + e.getMessage(), e);
        }
        slot.headLength = cut.headLength();
        slot.itemBuf = base;
        slot.itemIndex = at + cut.itemOffset();
        slot.itemLength = cut.itemLength();
        slot.hasItem = true;
        slot.tailIndex = slot.itemIndex + slot.itemLength;
        slot.padLength = cut.padLength();
        slot.tailLength = cut.tailLength();
    }

    private static ByteBuf view(RequestSlot slot, RegisteredBuffer base, int from, int to) {
        ByteBuf v = base == slot.sendBuffer ? slot.argsView : base.duplicate();
        return v.setIndex(from, to);
    }

    /**
     * Decides how the reply comes back on a connection with {@code limits}; allocates a reply or write chunk sink
     * when it does not come inline. {@code at}: where the message starts in {@code base}.
     */
    private void planReply(RequestSlot slot, RegisteredBuffer base, int at, int maxReplyOverride,
                           InlineThresholds limits) throws RdmaTransportException, InterruptedException {
        slot.plannedWith = limits;
        int inlineReceive = limits.receive();
        long maxItem = -1;
        long maxInline;
        UpperLayerBinding binding = slot.binding;
        if (maxReplyOverride >= 0) {
            maxInline = maxReplyOverride;
        } else if (binding != null && slot.hasItem && slot.itemBuf != base
                && slot.padLength > 0 && slot.tailLength > 0) {
            // the reduced arguments are not contiguous here (the pad sits between head and tail): no bound
            maxInline = -1;
        } else if (binding != null) {
            boolean reduced = slot.hasItem && slot.itemBuf != base; // a payload given apart from the message
            ByteBuf args = view(slot, base, at + slot.callHeader.bodyOffset(), at + slot.headLength
                    + (reduced ? slot.tailLength : slot.hasItem ? slot.itemLength + slot.padLength + slot.tailLength
                    : 0));
            try {
                if (reduced) {
                    maxItem = binding.maxReplyItemLengthReduced(slot.version, slot.procedure, args);
                    maxInline = binding.maxInlineReplySizeReduced(slot.version, slot.procedure, args);
                } else {
                    maxItem = binding.maxReplyItemLength(slot.version, slot.procedure, args);
                    maxInline = binding.maxInlineReplySize(slot.version, slot.procedure, args);
                }
            } catch (XdrFormatException e) {
                throw new RdmaMarshalException("the arguments do not decode for the program's binding: "
                        + e.getMessage(), e);
            }
        } else {
            maxInline = defaultMaxReplySize;
        }
        long itemSpace = maxItem > 0 ? (maxItem + 3) & ~3L : 0;
        if (maxInline >= 0 && maxInline + itemSpace + RpcRdmaLayout.MIN_HEADER_LENGTH <= inlineReceive) {
            slot.replyPlan = RequestSlot.ReplyPlan.INLINE;
            return;
        }
        // header of a reply echoing a one-segment Write chunk, with some room for a second segment
        int writeEcho = RpcRdmaLayout.MIN_HEADER_LENGTH + RpcRdmaLayout.CHUNK_PREFIX_LENGTH
                + 2 * RpcRdmaLayout.SEGMENT_LENGTH;
        if (maxItem > 0 && maxInline >= 0 && maxInline + writeEcho <= inlineReceive) {
            checkMappable(slot, maxItem, "write chunk");
            RegisteredBuffer sink = allocate(slot, maxItem, "write chunk");
            slot.ownedReply = sink;
            slot.replyPlan = RequestSlot.ReplyPlan.WRITE_CHUNK;
            slot.sinkBuf = sink;
            slot.sinkIndex = 0;
            slot.sinkLength = (int) maxItem;
            return;
        }
        long size = maxInline >= 0 ? maxInline + itemSpace : defaultMaxReplySize;
        size = (size + 3) & ~3L;
        checkMappable(slot, size, "reply chunk");
        RegisteredBuffer sink = allocate(slot, size, "reply chunk");
        slot.ownedReply = sink;
        slot.replyPlan = RequestSlot.ReplyPlan.REPLY_CHUNK;
        slot.sinkBuf = sink;
        slot.sinkIndex = 0;
        slot.sinkLength = (int) size;
    }

    /**
     * Where a call's message is laid out: the slot's own send buffer when it fits there, else a buffer allocated for
     * this call (owned by the slot until the call completes).
     */
    private RegisteredBuffer messageBuffer(RequestSlot slot, long length)
            throws RdmaTransportException, InterruptedException {
        if (length <= slot.room()) {
            return slot.sendBuffer;
        }
        RegisteredBuffer owned = allocate(slot, length, "message");
        slot.ownedCall = owned;
        return owned;
    }

    /** The message's offset in {@code base}: after the header reserve in the slot's send buffer, 0 elsewhere. */
    private static int messageOffset(RequestSlot slot, RegisteredBuffer base) {
        return base == slot.sendBuffer ? RequestSlot.RESERVE : 0;
    }

    /**
     * Refuses a reply sink the slot cannot map for one call (its scatter list holds the pages of
     * {@link RdmaClientConfig#maxPayloadSize} or {@link RdmaClientConfig#defaultMaxReplySize}, the larger): before
     * anything is registered or sent, with the sizes and the setting to change.
     */
    private static void checkMappable(RequestSlot slot, long size, String what) throws RdmaMarshalException {
        long worst = size / 4096 + 2;
        if (worst > slot.sinkList.maxPieces()) {
            long mappable = (long) (slot.sinkList.maxPieces() - 2) * 4096;
            throw new RdmaMarshalException("the reply of xid 0x" + Integer.toHexString(slot.xid) + " may be " + size
                    + " bytes (a " + what + "), more than this transport maps for one call (" + mappable
                    + " bytes): raise RdmaClientConfig maxPayloadSize (or defaultMaxReplySize) to at least " + size);
        }
    }

    /**
     * A registered buffer for the call, waiting for room as long as the pool lets a caller wait, and no longer than
     * the call's deadline: a call that times out waiting fails with {@link RdmaCallTimeoutException}.
     */
    private RegisteredBuffer allocate(RequestSlot slot, long size, String what)
            throws RdmaTransportException, InterruptedException {
        if (size > buffers.config().arenaSize()) {
            throw new RdmaMarshalException("a " + what + " of " + size + " bytes exceeds the largest registered "
                    + "buffer (" + buffers.config().arenaSize() + " bytes)");
        }
        long wait = buffers.config().allocateTimeout().toNanos();
        long left = slot.deadlineNanos == 0 ? Long.MAX_VALUE : slot.deadlineNanos - System.nanoTime();
        boolean untilDeadline = left < wait;
        if (untilDeadline) {
            wait = Math.max(0, left);
        }
        try {
            return buffers.allocate((int) size, wait, TimeUnit.NANOSECONDS);
        } catch (BufferPoolExhaustedException e) {
            if (untilDeadline) {
                throw new RdmaCallTimeoutException("xid 0x" + Integer.toHexString(slot.xid) + " timed out waiting "
                        + "for registered memory for a " + what + " of " + size + " bytes: " + e.getMessage());
            }
            throw new RdmaMarshalException("no registered memory for a " + what + " of " + size + " bytes (xid 0x"
                    + Integer.toHexString(slot.xid) + "): " + e.getMessage(), e);
        } catch (VerbsException e) {
            throw new RdmaMarshalException("no registered memory for a " + what + " of " + size + " bytes (xid 0x"
                    + Integer.toHexString(slot.xid) + "): " + e.getMessage(), e);
        }
    }

    /**
     * Maps a chunk of the call, waiting for free registration handles no longer than the call's deadline: a call that
     * times out waiting fails with {@link RdmaCallTimeoutException}.
     */
    private void map(RequestSlot slot, ScatterList list, ChunkRole role, String what)
            throws RdmaTransportException, VerbsException, InterruptedException {
        long left = slot.deadlineNanos == 0 ? Long.MAX_VALUE : slot.deadlineNanos - System.nanoTime();
        try {
            slot.registration.map(list, role, Math.max(0, left), TimeUnit.NANOSECONDS);
        } catch (RegistrationPoolExhaustedException e) {
            RegistrationPool pool = agent.registrationPool();
            throw new RdmaCallTimeoutException("xid 0x" + Integer.toHexString(slot.xid) + " timed out waiting for "
                    + "registration handles for a " + what + ": " + e.getMessage() + "; RdmaClientConfig.Builder"
                    + ".maxCredits (" + maxCredits + ") sizes the pool (" + pool.targetHandles() + " handles, "
                    + pool.handlesPerRpc() + " per call)");
        }
    }

    // ------------------------------------------------------------------ marshaling

    /**
     * {@link #marshal}, again when the connection was reset while mapping: the registration layer says so with
     * {@link RegistrationResetException} (the pool's epoch moved since {@code begin}, whether the reset met the
     * mapping waiting for handles, on a handle it closed, or registering a region). At most {@value #RESET_RETRIES}
     * more times, and not once the transport is closing: the last failure is thrown. Other failures are thrown at
     * once. A reset after the mapping is the agent's to see (the slot's stamp) when it takes the slot.
     */
    void marshalAcrossResets(RequestSlot slot) throws RdmaTransportException, VerbsException, InterruptedException {
        for (int attempt = 0; ; attempt++) {
            try {
                marshal(slot);
                return;
            } catch (VerbsException e) {
                if (!(e instanceof RegistrationResetException) || attempt >= RESET_RETRIES
                        || agent.closeRequested()) {
                    throw e;
                }
            }
        }
    }

    /**
     * Registers the call's chunks, builds and writes its transport header and its Send. Runs on the caller's thread or
     * the recovery thread; re-run after every reconnect (the parts stay, the handles do not).
     *
     * @throws RdmaMarshalException    a limit was exceeded or registration failed (nothing may be sent)
     * @throws RdmaCallTimeoutException the call's deadline passed while it waited for registration handles
     * @throws VerbsException          the connection was reset while mapping: marshal again
     */
    void marshal(RequestSlot slot) throws RdmaTransportException, VerbsException, InterruptedException {
        InlineThresholds limits = agent.thresholds();
        if (slot.plannedWith != null && !slot.plannedWith.equals(limits)) {
            replan(slot, limits);
        }
        slot.plannedWith = limits;
        Registration r = slot.registration;
        slot.resetStamp = agent.resetCount();
        r.begin(slot.xid);
        RpcRdmaHeader h = slot.header.clear().xid(slot.xid).credits(maxCredits).proc(RpcRdmaProc.RDMA_MSG);
        try {
            if (slot.replyPlan == RequestSlot.ReplyPlan.WRITE_CHUNK) {
                slot.writeSegFrom = r.segmentCount();
                slot.sinkList.clear().add(slot.sinkBuf, slot.sinkIndex, slot.sinkLength);
                map(slot, slot.sinkList, ChunkRole.WRITE_CHUNK_SINK, "write chunk");
                slot.writeSegTo = r.segmentCount();
                h.beginWriteChunk();
                for (int i = slot.writeSegFrom; i < slot.writeSegTo; i++) {
                    h.addWriteSegment(r.handle(i), r.length(i), r.offset(i));
                }
                counters.increment(XprtCounter.WRITE_CHUNK_COUNT);
            } else if (slot.replyPlan == RequestSlot.ReplyPlan.REPLY_CHUNK) {
                slot.replySegFrom = r.segmentCount();
                slot.sinkList.clear().add(slot.sinkBuf, slot.sinkIndex, slot.sinkLength);
                map(slot, slot.sinkList, ChunkRole.REPLY_CHUNK_SINK, "reply chunk");
                slot.replySegTo = r.segmentCount();
                h.beginReplyChunk();
                for (int i = slot.replySegFrom; i < slot.replySegTo; i++) {
                    h.addReplySegment(r.handle(i), r.length(i), r.offset(i));
                }
                counters.increment(XprtCounter.REPLY_CHUNK_COUNT);
            }
            int itemSpace = slot.hasItem ? slot.itemLength + slot.padLength : 0;
            slot.rpcLength = slot.headLength + itemSpace + slot.tailLength;
            int base = RpcRdmaEncoder.encodedLength(h);
            SendWorkRequest wr = slot.sendWr.reset();
            wr.opcode = Opcode.SEND; // signaled or not: ClientAgent.post decides
            if (base + slot.rpcLength <= limits.send()) {
                writeHeader(slot, h);
                addSge(wr, slot.headBuf, slot.headIndex, slot.headLength);
                if (slot.hasItem) {
                    addSge(wr, slot.itemBuf, slot.itemIndex, slot.itemLength);
                }
                addSge(wr, slot.tailBuf, slot.tailIndex, slot.padLength + slot.tailLength);
                return;
            }
            if (slot.hasItem && base + readSegmentEstimate(slot) * RpcRdmaLayout.READ_LIST_ENTRY_LENGTH
                    + slot.headLength + slot.tailLength <= limits.send()) {
                slot.readSegFrom = r.segmentCount();
                slot.itemList.clear().add(slot.itemBuf, slot.itemIndex, slot.itemLength);
                map(slot, slot.itemList, ChunkRole.READ_CHUNK_SOURCE, "read chunk");
                slot.readSegTo = r.segmentCount();
                for (int i = slot.readSegFrom; i < slot.readSegTo; i++) {
                    h.addReadSegment(slot.headLength, r.handle(i), r.length(i), r.offset(i));
                }
                counters.increment(XprtCounter.READ_CHUNK_COUNT);
                if (RpcRdmaEncoder.encodedLength(h) + slot.headLength + slot.tailLength > limits.send()) {
                    throw new RdmaMarshalException("the read chunk took more segments than estimated");
                }
                writeHeader(slot, h);
                addSge(wr, slot.headBuf, slot.headIndex, slot.headLength);
                addSge(wr, slot.tailBuf, slot.tailIndex + slot.padLength, slot.tailLength);
                return;
            }
            // the whole call in a position-zero Read chunk
            ScatterList body = slot.bodyList.clear();
            body.add(slot.headBuf, slot.headIndex, slot.headLength);
            if (slot.hasItem) {
                body.add(slot.itemBuf, slot.itemIndex, slot.itemLength);
            }
            body.add(slot.tailBuf, slot.tailIndex, slot.padLength + slot.tailLength);
            slot.readSegFrom = r.segmentCount();
            map(slot, body, ChunkRole.READ_CHUNK_SOURCE, "read chunk");
            slot.readSegTo = r.segmentCount();
            for (int i = slot.readSegFrom; i < slot.readSegTo; i++) {
                h.addReadSegment(0, r.handle(i), r.length(i), r.offset(i));
            }
            h.proc(RpcRdmaProc.RDMA_NOMSG);
            if (RpcRdmaEncoder.encodedLength(h) > limits.send()) {
                throw new RdmaMarshalException("the transport header of an RDMA_NOMSG call needs "
                        + RpcRdmaEncoder.encodedLength(h) + " bytes, above the inline send threshold "
                        + limits.send());
            }
            counters.increment(XprtCounter.READ_CHUNK_COUNT);
            counters.increment(XprtCounter.NOMSG_CALL_COUNT);
            writeHeader(slot, h);
        } catch (IllegalStateException e) {
            // a limit of the header or the registration: too many segments for one RPC. No cause: oncrpc4j's RpcCall
            // throws a failure's root cause to its caller, who must see this typed exception, not the state's
            throw new RdmaMarshalException("xid 0x" + Integer.toHexString(slot.xid) + " cannot be marshaled: "
                    + e.getMessage());
        }
    }

    /**
     * Plans the reply of a prepared call again for a connection with other inline thresholds (a server that came back
     * with other settings, or sent no private data): a reply planned inline may no longer fit, a chunk may no longer
     * be needed. A caller's sink stays the plan. The slot's handles must be invalid (nothing is mapped yet).
     */
    private void replan(RequestSlot slot, InlineThresholds limits) throws RdmaTransportException, InterruptedException {
        if (slot.callerSink) {
            return;
        }
        if (slot.ownedReply != null) {
            slot.ownedReply.release();
            slot.ownedReply = null;
        }
        slot.sinkBuf = null;
        slot.sinkIndex = 0;
        slot.sinkLength = 0;
        agent.ownCounters().increment(ClientCounter.REPLIES_PLANNED_AGAIN);
        planReply(slot, slot.headBuf, slot.headIndex,
                slot.ddpCall != null ? slot.ddpCall.maxReplySizeOverride() : -1, limits);
    }

    /** An upper bound of the segments a contiguous item takes. */
    private int readSegmentEstimate(RequestSlot slot) {
        int firstOffset = (slot.itemBuf.arenaOffset() + slot.itemIndex) & 4095;
        int pages = (firstOffset + slot.itemLength + 4095) / 4096;
        int perHandle = agent.registrationPool().maxPagesPerHandle();
        return Math.max(1, (pages + perHandle - 1) / perHandle);
    }

    private static void writeHeader(RequestSlot slot, RpcRdmaHeader h) throws RdmaMarshalException {
        int length = RpcRdmaEncoder.encodedLength(h);
        if (length > RequestSlot.RESERVE) {
            throw new RdmaMarshalException("a transport header of " + length + " bytes exceeds the " + RequestSlot.RESERVE
                    + " reserved for it");
        }
        int at = RequestSlot.RESERVE - length;
        RpcRdmaEncoder.encodeAt(slot.sendBuffer, at, h);
        addSge(slot.sendWr, slot.sendBuffer, at, length);
    }

    /** Adds an SGE, or extends the last one when the bytes follow it in the same region. */
    private static void addSge(SendWorkRequest wr, RegisteredBuffer buf, int index, int length) {
        if (length == 0) {
            return;
        }
        long address = buf.address(index);
        int lkey = buf.lkey();
        int n = wr.numSge();
        if (n > 0) {
            Sge last = wr.sge(n - 1);
            if (last.lkey == lkey && last.address + last.length == address) {
                last.length += length;
                return;
            }
        }
        wr.addSge().set(address, length, lkey);
    }

    static int pad(int length) {
        return (4 - (length & 3)) & 3;
    }
}
