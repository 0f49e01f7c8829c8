package org.rpcrdma4j.xprt.internal;

import java.nio.ByteBuffer;

import org.dcache.oncrpc4j.xdr.Xdr;

/**
 * The oncrpc4j stream a dispatched call is decoded from, over its slot's memory, from dispatch until the call's one
 * reply is taken or none is to come ({@link #detach}). oncrpc4j encodes every reply of a call into the call's stream:
 * a program that replied again, or late, would otherwise write over the reply in flight or over the next call its slot
 * carries by then. The server's call slots and the client's reverse-direction slots each hold one; it is handed from
 * the thread that dispatches to the one that replies with the call itself.
 */
public final class CallStream {
    private Xdr xdr;

    /** A stream over {@code array[0, length)} for the slot's next call ({@link Xdrs#over(byte[], int)}). */
    public Xdr over(byte[] array, int length) {
        xdr = Xdrs.over(array, length);
        return xdr;
    }

    /** A stream over {@code buffer}'s position..limit for the slot's next call ({@link Xdrs#over(ByteBuffer)}). */
    public Xdr over(ByteBuffer buffer) {
        xdr = Xdrs.over(buffer);
        return xdr;
    }

    /** The call's stream, or null once detached (or before the first call). */
    public Xdr current() {
        return xdr;
    }

    /** The stream lets go of the slot's memory; a later encode grows on the heap ({@link Xdrs#detach}). */
    public void detach() {
        Xdr x = xdr;
        if (x != null) {
            xdr = null;
            Xdrs.detach(x);
        }
    }

    /** Forgets the stream without detaching it (a new call begins; the old one was detached or never dispatched). */
    public void clear() {
        xdr = null;
    }
}
