package org.rpcrdma4j.xprt.server;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

import org.rpcrdma4j.registration.RegisteredBuffer;

/**
 * A call's sink (the buffer its read chunks were pulled into) once a program keeps pieces of it past the reply: one
 * reference to the sink and one charge on the server's kept-memory budget, held by the call's slot until the call is
 * done and by every kept piece until it is released. The last of them gives both back.
 */
final class KeptSink {
    private final RegisteredBuffer sink;
    private final RdmaRpcServer server;
    /** The slot's hold (while the call is in progress) plus one per kept piece not yet released. */
    private final AtomicInteger holders = new AtomicInteger(1);

    /** Takes a reference to {@code sink}; the caller has charged its pages with {@link RdmaRpcServer#chargeKept}. */
    KeptSink(RegisteredBuffer sink, RdmaRpcServer server) {
        sink.retain();
        this.sink = sink;
        this.server = server;
    }

    /** A kept view of the sink ({@code view} lies in it), holding the sink until released. */
    KeptCallData piece(ByteBuffer view) {
        holders.incrementAndGet();
        return new Piece(this, view);
    }

    /** One holder lets go; the last gives the sink and its charge back. */
    void release() {
        if (holders.decrementAndGet() == 0) {
            int pages = sink.pageCount();
            sink.release();
            server.refundKept(pages);
        }
    }

    private static final class Piece implements KeptCallData {
        private static final AtomicIntegerFieldUpdater<Piece> RELEASED =
                AtomicIntegerFieldUpdater.newUpdater(Piece.class, "released");
        private final KeptSink owner;
        private final ByteBuffer view;
        private volatile int released;

        Piece(KeptSink owner, ByteBuffer view) {
            this.owner = owner;
            this.view = view;
        }

        @Override
        public ByteBuffer buffer() {
            return view;
        }

        @Override
        public void release() {
            if (RELEASED.compareAndSet(this, 0, 1)) {
                owner.release();
            }
        }
    }
}
