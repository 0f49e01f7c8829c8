package org.rpcrdma4j.xprt.client;

import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.netty.buffer.ByteBuf;
import org.rpcrdma4j.registration.RegisteredBuffer;

/**
 * One DDP-aware RPC (RFC 8166 direct data placement), reusable: a caller keeps one per call it has in flight and fills
 * it again for the next call. Nothing is allocated per call.
 * <p>
 * <b>What the caller sets</b> (all borrowed until the call is done):
 * <ul>
 * <li>{@link #message(ByteBuf)}: the encoded ONC RPC call (RFC 5531: xid, CALL, rpcvers, program, version, procedure,
 * credential, verifier, arguments). With a payload it ends with the payload's XDR length word. The xid comes from
 * {@link RdmaClientTransport#nextXid()}.</li>
 * <li>{@link #payload}: the DDP-eligible argument's bytes (e.g. NFS WRITE data) in registered memory of the transport
 * ({@link RdmaClientTransport#bufferPool()}); they belong right after the message's bytes. Sent as a Read chunk
 * straight from this memory, or gathered into the Send when the call fits inline. The transport adds the XDR pad.</li>
 * <li>{@link #trailer(ByteBuf)}: arguments that follow the payload, if any.</li>
 * <li>{@link #sink}: where the DDP-eligible result (e.g. NFS READ data) should land: registered as a Write chunk, so
 * the server places the bytes there with RDMA WRITE.</li>
 * <li>{@link #reply(ByteBuf)}: where the reply's RPC message is written (at its writer index). When the server used
 * the Write chunk ({@link #writeChunkReturned()}), the message is <em>reduced</em>: the result's length word is in it,
 * its bytes are in the sink ({@link #placedBytes()} of them, no pad).</li>
 * <li>{@link #timeout}: 0 takes the transport's default.</li>
 * </ul>
 * The payload and the sink are registered memory the server reads and writes with RDMA: from submission until the
 * call is done, the transport holds a reference on each (a {@link RegisteredBuffer} is reference counted), so a caller
 * that releases its own reference early, say after an interrupted {@link RdmaClientTransport#call}, cannot hand memory
 * the server may still write into back to the pool; it returns once the call is done and every handle over it is
 * invalid.
 * <p>
 * <b>Outcome</b> (valid once {@link #isDone()}): {@link #failure()} is null when a reply arrived (whatever the
 * program's accept status: that is in the reply message), else one of the {@link RdmaTransportException} subclasses.
 * Every memory registration the call exposed is invalid before the call is done.
 * <p>
 * Threads: the caller owns the object until it submits it; then the transport does, until done. {@link #isDone()}
 * publishes the outcome.
 */
public final class RdmaCall {
    private static final int IDLE = 0;
    private static final int PENDING = 1;
    private static final int DONE = 2;

    private ByteBuf message;
    private RegisteredBuffer payload;
    private int payloadIndex;
    private int payloadLength;
    private ByteBuf trailer;
    private RegisteredBuffer sink;
    private int sinkIndex;
    private int sinkLength;
    private ByteBuf reply;
    private long timeoutNanos;
    private int maxReplySize = -1;

    private volatile int state = IDLE;
    private Throwable failure;
    private long placedBytes = -1;
    private int replyLength;
    private int xid;
    private volatile Thread waiter;
    private RdmaCallListener listener;

    /** Clears every setting and outcome for the next call. The call must not be in flight. */
    public RdmaCall reset() {
        checkNotPending();
        message = null;
        payload = null;
        payloadIndex = payloadLength = 0;
        trailer = null;
        sink = null;
        sinkIndex = sinkLength = 0;
        reply = null;
        timeoutNanos = 0;
        maxReplySize = -1;
        failure = null;
        placedBytes = -1;
        replyLength = 0;
        xid = 0;
        listener = null;
        state = IDLE;
        return this;
    }

    /** The encoded RPC call: its readable bytes (borrowed until done; copied when submitted). */
    public RdmaCall message(ByteBuf encodedCall) {
        checkNotPending();
        this.message = Objects.requireNonNull(encodedCall, "message");
        return this;
    }

    /** The DDP-eligible argument: {@code length} bytes at {@code index} of {@code buffer} (borrowed until done). */
    public RdmaCall payload(RegisteredBuffer buffer, int index, int length) {
        checkNotPending();
        Objects.requireNonNull(buffer, "payload");
        Objects.checkFromIndexSize(index, length, buffer.capacity());
        this.payload = buffer;
        this.payloadIndex = index;
        this.payloadLength = length;
        return this;
    }

    /** Arguments after the payload: its readable bytes (borrowed until done; copied when submitted). */
    public RdmaCall trailer(ByteBuf rest) {
        checkNotPending();
        this.trailer = rest;
        return this;
    }

    /** Where the DDP-eligible result lands: {@code length} bytes at {@code index} of {@code buffer} (borrowed). */
    public RdmaCall sink(RegisteredBuffer buffer, int index, int length) {
        checkNotPending();
        Objects.requireNonNull(buffer, "sink");
        Objects.checkFromIndexSize(index, length, buffer.capacity());
        if (length == 0) {
            throw new IllegalArgumentException("a sink needs at least one byte");
        }
        this.sink = buffer;
        this.sinkIndex = index;
        this.sinkLength = length;
        return this;
    }

    /** Where the reply's RPC message is written, at its writer index (borrowed; grown if it must). */
    public RdmaCall reply(ByteBuf replyBuffer) {
        checkNotPending();
        this.reply = Objects.requireNonNull(replyBuffer, "reply");
        return this;
    }

    /** How long to wait for the reply; 0 for the transport's default. */
    public RdmaCall timeout(long duration, TimeUnit unit) {
        checkNotPending();
        if (duration < 0) {
            throw new IllegalArgumentException("negative timeout");
        }
        this.timeoutNanos = unit.toNanos(duration);
        return this;
    }

    /**
     * The largest reply (RPC message, including any DDP-eligible result sent inline) this call can get; overrides the
     * program's binding and the transport's default when deciding between an inline reply and a Reply chunk.
     */
    public RdmaCall maxReplySize(int bytes) {
        checkNotPending();
        if (bytes < 0) {
            throw new IllegalArgumentException("negative size");
        }
        this.maxReplySize = bytes;
        return this;
    }

    // ------------------------------------------------------------------ outcome

    public boolean isDone() {
        return state == DONE;
    }

    /** Null after a reply; the reason otherwise. Valid once done. */
    public Throwable failure() {
        return failure;
    }

    /** Whether the reply's Write list reported the sink's Write chunk (so {@link #reply(ByteBuf)} got a reduced message). */
    public boolean writeChunkReturned() {
        return placedBytes >= 0;
    }

    /** Bytes the server placed into the sink, or -1 when it returned no Write chunk. */
    public long placedBytes() {
        return placedBytes;
    }

    /** Bytes written into the reply buffer. */
    public int replyLength() {
        return replyLength;
    }

    /** The call's xid (read from the message when submitted). */
    public int xid() {
        return xid;
    }

    /**
     * Waits until the call is done, at most {@code timeoutNanos} (a guard: the transport itself fails the call at its
     * deadline).
     *
     * @return whether it is done
     */
    public boolean awaitDone(long timeoutNanos) throws InterruptedException {
        if (state == DONE) {
            return true;
        }
        waiter = Thread.currentThread();
        try {
            long deadline = System.nanoTime() + timeoutNanos;
            while (state != DONE) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                LockSupport.parkNanos(this, left);
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            }
            return true;
        } finally {
            waiter = null;
        }
    }

    // ------------------------------------------------------------------ for the transport

    ByteBuf message() {
        return message;
    }

    RegisteredBuffer payload() {
        return payload;
    }

    int payloadIndex() {
        return payloadIndex;
    }

    int payloadLength() {
        return payloadLength;
    }

    ByteBuf trailer() {
        return trailer;
    }

    RegisteredBuffer sink() {
        return sink;
    }

    int sinkIndex() {
        return sinkIndex;
    }

    int sinkLength() {
        return sinkLength;
    }

    ByteBuf replyBuffer() {
        return reply;
    }

    long timeoutNanos() {
        return timeoutNanos;
    }

    int maxReplySizeOverride() {
        return maxReplySize;
    }

    void start(int callXid, RdmaCallListener l) {
        if (state == PENDING) {
            throw new IllegalStateException("call xid 0x" + Integer.toHexString(xid) + " is still in flight");
        }
        if (message == null || reply == null) {
            throw new IllegalStateException("a call needs a message and a reply buffer");
        }
        this.xid = callXid;
        this.listener = l;
        this.failure = null;
        this.placedBytes = -1;
        this.replyLength = 0;
        state = PENDING;
    }

    void replied(int length, long placed) {
        this.replyLength = length;
        this.placedBytes = placed;
    }

    void complete(Throwable why) {
        this.failure = why;
        RdmaCallListener l = listener;
        listener = null;
        state = DONE;
        Thread w = waiter;
        if (w != null) {
            LockSupport.unpark(w);
        }
        if (l != null) {
            l.onComplete(this);
        }
    }

    private void checkNotPending() {
        if (state == PENDING) {
            throw new IllegalStateException("call xid 0x" + Integer.toHexString(xid) + " is in flight");
        }
    }

    @Override
    public String toString() {
        return "RdmaCall[xid=0x" + Integer.toHexString(xid) + ", " + (state == DONE ? "done" : state == PENDING
                ? "pending" : "idle") + (failure != null ? ", failed: " + failure : "") + "]";
    }
}
