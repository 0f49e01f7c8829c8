package org.rpcrdma4j.xprt.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.CompletionHandler;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.rpcrdma4j.codec.RpcRdmaHeader;
import org.rpcrdma4j.registration.BorrowedBuffer;
import org.rpcrdma4j.registration.ChunkRole;
import org.rpcrdma4j.registration.InvalidationListener;
import org.rpcrdma4j.registration.RegisteredBuffer;
import org.rpcrdma4j.registration.Registration;
import org.rpcrdma4j.registration.ScatterList;
import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.xprt.internal.CallScreen;
import org.rpcrdma4j.xprt.internal.CallStream;
import org.rpcrdma4j.xprt.internal.Mailbox;
import org.rpcrdma4j.xprt.internal.ProgramTable;
import org.rpcrdma4j.xprt.internal.RpcDispatch;
import org.rpcrdma4j.xprt.internal.RpcReplies;
import org.rpcrdma4j.xprt.internal.SlotQueue;
import org.rpcrdma4j.xprt.internal.StreamLayout;
import org.rpcrdma4j.xprt.internal.Xdrs;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One call in progress on a connection. A connection makes {@code credits + margin} slots when it is set up and reuses
 * them; nothing here is allocated per call except the {@link CallTransport} its {@link RpcCall} is bound to (which
 * ties a reply to the call it answers), what oncrpc4j allocates itself (the {@code RpcCall}, its {@code Xdr}, the
 * decoded arguments) and, when the program keeps some of a call's read-chunk data ({@link #keep}), the record of that
 * and one object per kept piece.
 *
 * <h2>Life of a call, and who owns the slot</h2>
 * <pre>
 *  FREE -(agent: message received, bytes copied out)-&gt; RECEIVED
 *  RECEIVED -(no read chunk)-&gt; DISPATCH_QUEUED
 *  RECEIVED -(read chunks)-&gt; PREPARING (io thread: sink buffer, sink registration, READ list)
 *           -&gt; READ_QUEUED (mailbox) -&gt; READING (agent: READs posted within ORD, completed, sink invalidated)
 *           -&gt; DISPATCH_QUEUED
 *  DISPATCH_QUEUED -(dispatch thread)-&gt; DISPATCHING (the program owns the call)
 *  DISPATCHING -(send(): the program's thread)-&gt; MARSHALING -&gt; REPLY_QUEUED (mailbox)
 *  REPLY_QUEUED -(agent: WRITEs + Send posted)-&gt; SENDING -(Send completion: handler called)-&gt; FREE
 *  DISPATCH_QUEUED, DISPATCHING -(connection closed)-&gt; DEAD: a later send() fails and frees the call's memory
 * </pre>
 * A reply is taken only through the transport of the call the slot carries, once: a program's second reply, or a
 * late one after the slot moved on to the next call, is dropped.
 * Each hand-over between threads goes through the connection's mailbox or an executor, both happens-before edges;
 * the state word says who may act. The agent never blocks: taking a sink buffer and mapping the sink (which may wait
 * for handles) happen on an io thread, marshaling a reply (which may wait for a staging buffer) on the program's.
 *
 * <h2>The reply</h2>
 * {@link #send} (the call's {@link CallTransport}) marshals the reply (inline, write chunk, reply chunk, or ERR_CHUNK)
 * and queues it; the handler is called on the connection's agent thread once the reply's Send completed (so every
 * RDMA WRITE before it is placed) or failed: it must be short and must not block, as with oncrpc4j's own transports.
 */
final class CallSlot implements InvalidationListener, Runnable, Mailbox.Linked<CallSlot>, SlotQueue.Entry<CallSlot> {
    private static final Logger LOG = LoggerFactory.getLogger(CallSlot.class);

    static final int FREE = 0;
    static final int RECEIVED = 1;
    static final int PREPARING = 2;
    static final int READ_QUEUED = 3;
    static final int READING = 4;
    static final int DISPATCH_QUEUED = 5;
    static final int DISPATCHING = 6;
    static final int MARSHALING = 7;
    static final int REPLY_QUEUED = 8;
    static final int SENDING = 9;
    static final int DEAD = 10;

    final int index;
    final Connection connection;
    final AtomicInteger state = new AtomicInteger(FREE);
    /**
     * The transport of the call the program holds, until its one reply (or drop) is taken: a reply through any other
     * transport (a second reply, or a late one for an earlier call of this slot) is refused.
     */
    private final AtomicReference<CallTransport> replyRight = new AtomicReference<>();
    /** Link in the connection's mailbox. */
    private CallSlot mailboxNext;
    /** Links in the agent's queues (reads waiting for ORD, replies waiting for send-queue room). */
    private final SlotQueue.Links<CallSlot> queueLinks = new SlotQueue.Links<>();

    // ---- the call (agent, then the preparing / dispatching thread)
    final RpcRdmaHeader call;
    final byte[] inline;
    private final ByteBuf inlineView;
    int inlineLength;
    final StreamLayout layout = new StreamLayout();
    final Registration sinkRegistration;
    RegisteredBuffer sink;
    /** Where the rebuilt call starts in {@link #sink}: its first READ lands on a page boundary. */
    int sinkBase;
    int callLength;
    final ReadOps reads = new ReadOps();
    /**
     * Why the preparation failed (no sink memory within the wait, a mapping refused, an interruption, an
     * {@link Error}), or null: the connection then goes, and the client sends the call again on its next one.
     */
    Throwable prepareFailure;
    /**
     * The program's decoding stream over the slot's memory (the sink, or {@link #inline}), from dispatch until the
     * reply is taken or the call dropped: detached then by the thread that took the reply right, before the slot can
     * move on.
     */
    private final CallStream callStream = new CallStream();
    /** Native address of the rebuilt call's first byte in the sink, 0 when unknown (set before dispatch). */
    private long callAddress;
    /** Whether a program kept pieces of this call's sink (charged to the server's kept-memory budget). */
    private boolean kept;
    private final CallScreen screen = new CallScreen();
    /** Program version and procedure, for the reply's binding lookup. */
    private int version;
    private int procedure;
    private ProgramTable.Entry entry;

    // ---- the reply (the replying thread, then the agent)
    final ReplyBytes replyBytes;
    final ReplyMarshaler marshaler;
    /** No reply goes out: the call was dropped. The agent frees the slot. */
    boolean noReply;
    private CompletionHandler<Integer, Object> handler;
    private Object attachment;
    private int replyLength;
    /** Why the reply did not reach the client as the program meant it (ERR_CHUNK, connection lost), or null. */
    private Throwable replyFailure;
    /**
     * The reply could not be made for want of resources ({@link #replyFailure} says which): nothing is sent and the
     * connection goes, so that the client sends the call again on its next one (set before the slot is queued).
     */
    boolean unsendable;
    /** Send-queue entries this reply holds until its Send completes (agent). */
    int postedWrs;

    final Runnable prepareTask = this::prepare;

    CallSlot(int index, Connection connection, RpcRdmaHeader call, RpcRdmaHeader reply, int inlineReceive,
             ByteBuf slotMemory, int slotLkey, long slotIova, int headerArea, Registration sinkRegistration) {
        this.index = index;
        this.connection = connection;
        this.call = call;
        this.inline = new byte[inlineReceive];
        this.inlineView = Unpooled.wrappedBuffer(inline);
        this.sinkRegistration = sinkRegistration;
        this.replyBytes = new ReplyBytes(slotMemory, slotLkey, slotIova, headerArea, headerArea,
                connection.server.memoryIndex, connection.server.bufferPool);
        this.marshaler = new ReplyMarshaler(reply, slotMemory, slotLkey, slotIova, headerArea,
                connection.maxSendSge);
    }

    /** Agent: a new call begins in this slot. */
    void begin() {
        replyRight.set(null);
        state.set(RECEIVED);
        inlineLength = 0;
        callLength = 0;
        sink = null;
        sinkBase = 0;
        prepareFailure = null;
        callStream.clear();
        callAddress = 0;
        kept = false;
        noReply = false;
        handler = null;
        attachment = null;
        replyFailure = null;
        unsendable = false;
        replyLength = 0;
        postedWrs = 0;
        entry = null;
        reads.clear();
    }

    // ------------------------------------------------------------------ read chunks (io thread)

    /**
     * Takes a sink buffer for the rebuilt call, copies the inline pieces into it, maps the bytes the READs fill
     * (role RDMA_READ_SINK: a per-I/O handle on iWARP) and lists the READs. Runs on an io thread because the buffer
     * pool and the handle pool may wait; then hands the slot to the agent.
     */
    private void prepare() {
        try {
            if (!connection.isClosing()) {
                prepareReads();
            }
        } catch (VerbsException e) {
            prepareFailure = e; // no memory now, a registration refused: the connection's log line says it
        } catch (RuntimeException e) {
            // the connection's drop says why, at most once per warning interval; the trace is for debugging
            LOG.debug("{}: preparing the RDMA READs of xid 0x{} failed", connection, Integer.toHexString(call.xid()),
                    e);
            prepareFailure = e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            prepareFailure = e;
        } catch (Error e) {
            LOG.error("{}: preparing the RDMA READs of xid 0x{} failed", connection, Integer.toHexString(call.xid()),
                    e);
            prepareFailure = e;
        }
        // whatever happened, the slot goes back to the agent: a closing connection waits for every PREPARING slot
        state.set(READ_QUEUED);
        connection.submit(this);
    }

    private void prepareReads() throws VerbsException, InterruptedException {
        callLength = layout.totalLength();
        // the call starts far enough into the sink that the first READ's bytes begin on a page: a 1 MiB data item
        // then spans 256 pages, one fast registration and one READ, not 257 pages in two (and two READs)
        int base = Math.floorMod(-firstRemoteOffset(), ServerConfig.PAGE);
        RegisteredBuffer buffer = connection.server.bufferPool.allocate(Math.max(1, base + callLength));
        sink = buffer;
        sinkBase = base;
        connection.server.memoryIndex.record(buffer);
        ScatterList remote = connection.server.sinkList();
        int at = base;
        for (int i = 0; i < layout.extentCount(); i++) {
            int length = layout.length(i);
            switch (layout.kind(i)) {
                case StreamLayout.INLINE -> buffer.setBytes(at, inline, layout.source(i), length);
                case StreamLayout.ZERO -> buffer.setZero(at, length);
                default -> remote.add(buffer, at, length);
            }
            at += length;
        }
        sinkRegistration.begin(call.xid());
        sinkRegistration.map(remote, ChunkRole.RDMA_READ_SINK);
        // pair remote extents with sink segments: one SGE per READ, no READ across a segment on either side
        int segment = 0;
        long segmentUsed = 0;
        for (int i = 0; i < layout.extentCount(); i++) {
            if (layout.kind(i) != StreamLayout.REMOTE) {
                continue;
            }
            int readSegment = layout.source(i);
            int rkey = call.readHandle(readSegment);
            long remoteAddress = call.readOffset(readSegment) + layout.segmentOffset(i);
            long left = layout.length(i);
            while (left > 0) {
                long room = sinkRegistration.length(segment) - segmentUsed;
                if (room == 0) {
                    segment++;
                    segmentUsed = 0;
                    continue;
                }
                int take = (int) Math.min(left, room);
                reads.add(rkey, remoteAddress, sinkRegistration.handle(segment),
                        sinkRegistration.offset(segment) + segmentUsed, take, segment);
                remoteAddress += take;
                segmentUsed += take;
                left -= take;
            }
        }
        if (connection.readWithInvalidate) {
            reads.invalidateWithLastRead(sinkRegistration);
        }
    }

    /** Offset in the rebuilt call of the first byte a READ fills. */
    private int firstRemoteOffset() {
        int at = 0;
        for (int i = 0; i < layout.extentCount(); i++) {
            if (layout.kind(i) == StreamLayout.REMOTE) {
                return at;
            }
            at += layout.length(i);
        }
        return at;
    }

    /** Agent: the sink's handles are invalid (LOCAL_INV completed); the call can be dispatched. */
    @Override
    public void onInvalidated(Registration registration) {
        connection.readsInvalidated(this);
    }

    // ------------------------------------------------------------------ dispatch (dispatch thread)

    /** Agent: hands the call to the dispatch executor. */
    void setDispatchQueued() {
        state.set(DISPATCH_QUEUED);
    }

    /** The dispatch task: screens the call, then hands it to its program as an oncrpc4j {@link RpcCall}. */
    @Override
    public void run() {
        connection.dispatchStarted();
        dispatchHere();
    }

    /**
     * Screens the call and runs its program on the calling thread: a dispatch executor's ({@link #run}), or the
     * connection agent's with {@code sameThreadDispatch}.
     */
    void dispatchHere() {
        if (!state.compareAndSet(DISPATCH_QUEUED, DISPATCHING)) {
            abandoned();
            return;
        }
        ByteBuf bytes = sink != null ? sink : inlineView;
        int from = sink != null ? sinkBase : 0;
        CallScreen.Verdict verdict = screen.screen(bytes, from, from + callLength, connection.server.programs);
        version = screen.version();
        procedure = screen.procedure();
        if (verdict != CallScreen.Verdict.DROP && verdict != CallScreen.Verdict.DROP_BACKCHANNEL_REPLY
                && screen.xid() != call.xid()) {
            refuseXidMismatch();
            return;
        }
        switch (verdict) {
            case DISPATCH -> {
                entry = screen.entry();
                Xdr stream;
                if (sink != null) {
                    ByteBuffer view = sink.nioBuffer(sinkBase, callLength);
                    callAddress = RegisteredMemoryIndex.addressOf(view);
                    stream = callStream.over(view);
                } else {
                    stream = callStream.over(inline, callLength);
                }
                CallTransport transport = new CallTransport(this, call.xid());
                replyRight.set(transport);
                try {
                    RpcDispatch.dispatch(entry, stream, transport, connection);
                } catch (RuntimeException | Error e) {
                    LOG.error("{}: no failure reply could be made for xid 0x{}", connection,
                            Integer.toHexString(call.xid()), e);
                    answerSystemErr(transport);
                }
            }
            case DROP, DROP_BACKCHANNEL_REPLY -> {
                connection.count(ServerCounter.MESSAGES_DROPPED);
                LOG.debug("{}: dropping a message that is not a call ({}), xid 0x{}", connection, verdict,
                        Integer.toHexString(call.xid()));
                dropCall();
            }
            default -> {
                connection.count(switch (verdict) {
                    case RPC_MISMATCH -> ServerCounter.RPC_MISMATCHES;
                    case AUTH_ERROR -> ServerCounter.AUTH_REJECTIONS;
                    case PROG_UNAVAIL -> ServerCounter.PROG_UNAVAIL;
                    default -> ServerCounter.PROG_MISMATCH;
                });
                if (verdict == CallScreen.Verdict.AUTH_ERROR) {
                    LOG.debug("{}: AUTH_ERROR {} for xid 0x{} (flavor {})", connection, screen.authStat(),
                            Integer.toHexString(screen.xid()), screen.credentialFlavor());
                }
                // the slot is taken for the reply before its memory is written: a connection that closes
                // meanwhile waits for a MARSHALING slot, while a DISPATCHING one it may mark dead and free
                if (!state.compareAndSet(DISPATCHING, MARSHALING)) {
                    abandoned();
                    return;
                }
                int length = screen.writeRefusal(connection.slotMemory(this), connection.headerArea);
                replyBytes.loadInSlot(length);
                marshal(null, length);
            }
        }
    }

    /**
     * The RPC call's xid differs from the transport header's (RFC 8166 section 4.2.1 requires them equal): the
     * message is malformed, so it is answered RDMA_ERROR / ERR_CHUNK and never reaches its program (any reply would
     * carry an xid the client did not send in the header). Logged at debug only: any client can send these.
     */
    private void refuseXidMismatch() {
        connection.count(ServerCounter.XID_MISMATCHES);
        if (LOG.isDebugEnabled()) {
            LOG.debug("{}: RPC xid 0x{} differs from the transport header's xid 0x{}: ERR_CHUNK", connection,
                    Integer.toHexString(screen.xid()), Integer.toHexString(call.xid()));
        }
        if (!state.compareAndSet(DISPATCHING, MARSHALING)) {
            abandoned();
            return;
        }
        replyFailure = new IOException("the RPC xid differs from the transport header's xid");
        marshaler.errChunk(call, connection.credits, "RPC xid differs from the transport xid");
        queueReply();
    }

    /**
     * The program's thread, after it decoded the call's arguments and before it replies: keeps {@code bytes}, a view
     * of this call's arguments in the sink its read chunks were pulled into, past the reply
     * ({@link RdmaBufferAllocator#keep}). The first piece charges the whole sink to the server's kept-memory budget;
     * the sink then stays allocated until the call is done and every kept piece is released. The reply is encoded
     * into the slot's inline buffer (no longer used by this call) instead of over the call's bytes, which oncrpc4j
     * would otherwise overwrite; the call's stream cannot be decoded any further.
     *
     * @return the kept bytes, or null: another call (or this slot's earlier call), not a sink call, not in the sink,
     *         already answered, keeping off, or the budget spent
     */
    ByteBuf keep(CallTransport transport, RpcCall rpc, ByteBuffer bytes) {
        RegisteredBuffer s = sink;
        if (replyRight.get() != transport || s == null || callStream.current() == null
                || rpc.getXdr() != callStream.current()
                || callAddress == 0 || state.get() != DISPATCHING || !connection.server.keeps()) {
            return null;
        }
        long at = RegisteredMemoryIndex.addressOf(bytes);
        int length = bytes.remaining();
        if (at == 0 || at < callAddress || at + length > callAddress + callLength) {
            return null;
        }
        if (!kept) {
            int pages = s.pageCount();
            if (!connection.server.chargeKept(pages)) {
                connection.count(ServerCounter.KEEPS_REFUSED);
                return null;
            }
            kept = true;
            RdmaRpcServer server = connection.server;
            s.whenFreed(() -> server.refundKept(pages)); // the sink lives as long as its last kept piece
            Xdrs.encodeElsewhere(callStream.current(), inline);
        }
        connection.count(ServerCounter.KEPT_CALL_BYTES, length);
        return BorrowedBuffer.of(bytes, s); // a count of its own: pieces of one call live apart
    }

    /** Whether the call of {@code transport} still awaits its reply (its program has not answered or dropped it). */
    boolean awaitsReply(CallTransport transport) {
        // DEAD too: the connection went while the program had the call, and the reply's send() gives back its memory
        int s = state.get();
        return replyRight.get() == transport && (s == DISPATCHING || s == DEAD);
    }

    /** A duplicate request cache drops the call of {@code transport}: no reply goes out; frees the slot. */
    void dropCall(CallTransport transport) {
        if (replyRight.compareAndSet(transport, null)) {
            dropCall();
        }
    }

    /** The call gets no reply (dropped as not a call, or by a duplicate request cache): frees the slot. */
    private void dropCall() {
        callStream.detach();
        if (state.compareAndSet(DISPATCHING, MARSHALING)) {
            noReply = true;
            queueReply();
        } else {
            abandoned();
        }
    }

    /** The connection went away while the program had the call: give back its memory. */
    private void abandoned() {
        releaseCallMemory();
    }

    /**
     * The program's thread, when the program failed and not even oncrpc4j's failure reply could be made (it allocates
     * for it): SYSTEM_ERR written in the slot's own memory, so that the call is answered and the slot comes back. When
     * the connection went meanwhile (DEAD), no reply can come any more: the call's memory goes back now.
     */
    private void answerSystemErr(CallTransport transport) {
        if (!replyRight.compareAndSet(transport, null)) {
            return; // answered or dropped after all
        }
        callStream.detach();
        if (state.compareAndSet(DISPATCHING, MARSHALING)) {
            int length = RpcReplies.accepted(connection.slotMemory(this), connection.headerArea, call.xid(),
                    RpcReplies.SYSTEM_ERR);
            replyBytes.loadInSlot(length);
            marshal(null, length);
        } else if (state.get() == DEAD) {
            releaseCallMemory();
        }
    }

    // ------------------------------------------------------------------ the reply (the program's thread)

    @Override
    public CallSlot mailboxNext() {
        return mailboxNext;
    }

    @Override
    public void mailboxNext(CallSlot next) {
        mailboxNext = next;
    }

    @Override
    public SlotQueue.Links<CallSlot> queueLinks() {
        return queueLinks;
    }

    /**
     * The reply to the call of {@code transport} (its {@code RpcCall}'s {@code send}): marshaled on this thread, then
     * queued for the agent. Taken once, and only while this slot still carries that call: a second reply, or one that
     * comes after the slot moved on to another call, is dropped (its handler fails) and logged.
     */
    @SuppressWarnings("unchecked")
    <A> void send(CallTransport transport, Xdr xdr, A attachment, CompletionHandler<Integer, ? super A> handler) {
        if (!replyRight.compareAndSet(transport, null)) {
            LOG.warn("{}: a second reply to xid 0x{} dropped: the call was answered already", connection,
                    Integer.toHexString(transport.xid));
            handler.failed(new IllegalStateException("xid 0x" + Integer.toHexString(transport.xid)
                    + " has been answered already"), attachment);
            return;
        }
        if (!state.compareAndSet(DISPATCHING, MARSHALING)) {
            // DEAD: the connection went while the program had the call; no reply can go, its memory goes back
            callStream.detach();
            releaseCallMemory();
            handler.failed(new IOException("connection " + connection.remoteAddress() + " is closed"), attachment);
            return;
        }
        this.handler = (CompletionHandler<Integer, Object>) handler;
        this.attachment = attachment;
        int length;
        try {
            replyBytes.load(xdr);
            length = replyBytes.length();
        } catch (RuntimeException | Error e) {
            callStream.detach();
            LOG.error("{}: cannot read the reply of xid 0x{}", connection, Integer.toHexString(call.xid()), e);
            replyFailure = e;
            marshaler.errChunk(call, connection.credits, "unreadable reply");
            queueReply();
            return;
        }
        callStream.detach(); // before the reply is queued: the slot may take its next call once it is
        if (length >= 4 && replyXid() != call.xid()) {
            replyFailure = new IllegalStateException("reply xid 0x" + Integer.toHexString(replyXid())
                    + " does not answer call xid 0x" + Integer.toHexString(call.xid()));
            LOG.error("{}: {}", connection, replyFailure.getMessage());
            replyBytes.release();
            marshaler.errChunk(call, connection.credits, replyFailure.getMessage());
            queueReply();
            return;
        }
        marshal(entry == null ? null : entry.binding(), length);
    }

    private int replyXid() {
        return replyBytes.view().getInt(replyBytes.viewBase());
    }

    private void marshal(org.rpcrdma4j.xprt.UpperLayerBinding binding, int length) {
        replyLength = length;
        unsendable = false;
        try {
            ReplyMarshaler.Kind kind = marshaler.marshal(call, replyBytes, binding, version, procedure,
                    connection.inlineSend, connection.credits, connection.sendWithInvalidate);
            if (kind == ReplyMarshaler.Kind.ERR_CHUNK) {
                LOG.debug("{}: ERR_CHUNK for xid 0x{}: {}", connection, Integer.toHexString(call.xid()),
                        marshaler.error());
                replyFailure = new IOException("reply not sent, the client's chunks cannot hold it: "
                        + marshaler.error());
            }
        } catch (VerbsException e) {
            // no registered memory for a copy now: the connection goes, and the client sends the call again
            replyFailure = e;
            unsendable = true;
        } catch (RuntimeException e) {
            LOG.warn("{}: cannot marshal the reply of xid 0x{}: {}", connection, Integer.toHexString(call.xid()),
                    e.toString());
            replyFailure = e;
            marshaler.errChunk(call, connection.credits, e.toString());
        } catch (Error e) {
            // the slot must still reach the agent: a closing connection waits for every MARSHALING slot
            LOG.error("{}: cannot marshal the reply of xid 0x{}", connection, Integer.toHexString(call.xid()), e);
            replyFailure = e;
            marshaler.errChunk(call, connection.credits, "the reply could not be marshaled");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            replyFailure = e;
            unsendable = true;
        }
        queueReply();
    }

    /**
     * Replaces the marshaled reply by RDMA_ERROR / ERR_CHUNK (agent or replying thread); the program's completion
     * handler will be told the reply failed.
     */
    void replaceWithErrChunk(String why) {
        replyFailure = new IOException("reply not sent: " + why);
        marshaler.errChunk(call, connection.credits, why);
    }

    /** Why the reply did not go out as the program meant it, or null. */
    Throwable replyFailure() {
        return replyFailure;
    }

    private void queueReply() {
        state.set(REPLY_QUEUED);
        connection.submit(this);
    }

    // ------------------------------------------------------------------ completion (agent)

    /** Agent: the reply's Send completed, or the reply was not sent. Calls the handler, frees the memory. */
    void replyDone(boolean sent, Throwable failure) {
        CompletionHandler<Integer, Object> h = handler;
        Object a = attachment;
        Throwable why = replyFailure != null ? replyFailure : failure;
        boolean ok = sent && why == null;
        handler = null;
        attachment = null;
        replyBytes.release();
        releaseCallMemory();
        if (h != null) {
            try {
                if (ok) {
                    h.completed(replyLength, a);
                } else {
                    h.failed(why != null ? why : new IOException("reply not sent"), a);
                }
            } catch (RuntimeException e) {
                LOG.warn("{}: a send completion handler failed", connection, e);
            } catch (Error e) {
                LOG.error("{}: a send completion handler failed", connection, e);
            }
        }
    }

    /**
     * Lets go of the sink (the call's bytes when they came through read chunks); kept pieces hold references of their
     * own, and the last release returns it.
     */
    void releaseCallMemory() {
        RegisteredBuffer s = sink;
        sink = null;
        kept = false;
        if (s != null) {
            s.release();
        }
    }

    /** Agent: counts the marshaled reply as it is posted. */
    void countReply() {
        ReplyMarshaler m = marshaler;
        switch (m.kind()) {
            case INLINE -> {
                connection.count(ServerCounter.REPLIES);
                connection.count(ServerCounter.INLINE_REPLIES);
            }
            case REPLY_CHUNK -> {
                connection.count(ServerCounter.REPLIES);
                connection.count(ServerCounter.REPLY_CHUNKS);
                connection.count(ServerCounter.REPLY_CHUNK_BYTES, m.replyChunkBytes());
            }
            case ERR_CHUNK -> connection.count(ServerCounter.ERR_CHUNK_SENT);
            case ERR_VERS -> connection.count(ServerCounter.ERR_VERS_SENT);
            default -> throw new IllegalStateException("kind " + m.kind());
        }
        if (m.writeChunkBytes() > 0) {
            connection.count(ServerCounter.WRITE_CHUNKS);
            connection.count(ServerCounter.WRITE_CHUNK_BYTES, m.writeChunkBytes());
        }
        connection.count(ServerCounter.RDMA_WRITES, m.writes().count());
        connection.count(ServerCounter.ZERO_COPY_BYTES, replyBytes.zeroCopyBytes());
        connection.count(ServerCounter.COPIED_REPLY_BYTES, replyBytes.copiedBytes());
        if (m.opcode() == Opcode.SEND_WITH_INV) {
            connection.count(ServerCounter.REMOTE_INVALIDATIONS);
        }
    }

    /** The call's program version and procedure (after the screen). */
    int version() {
        return version;
    }

    int procedure() {
        return procedure;
    }

    @Override
    public String toString() {
        return "CallSlot[" + index + " state " + state.get() + " xid 0x" + Integer.toHexString(call.xid()) + "]";
    }
}
