package org.rpcrdma4j.nfs.client.v4;

/** Where an I/O operation gets its stateid from, at the start of every attempt (the open may be reclaimed between). */
@FunctionalInterface
interface StateidSource {
    /** The special stateid for I/O without an open. */
    StateidSource ANONYMOUS = () -> Stateid4.ANONYMOUS;

    Stateid4 stateid();
}
