package org.rpcrdma4j.nfs.client.v4;

/**
 * What the arguments of an NFSv4 COMPOUND call tell whoever sees them pass through a
 * {@link org.rpcrdma4j.nfs.client.DataTransport} (a wrapper counting calls, a trace): the operation the client sent
 * the COMPOUND for. Every COMPOUND this client sends has arguments of this type.
 */
public interface CompoundCall {
    /**
     * The operation the COMPOUND was sent for, in upper case: READ, WRITE, OPEN, CLOSE, GETATTR, LOOKUP, READDIR,
     * EXCHANGE_ID, SEQUENCE (a lease renewal)... The same name for every attempt of one COMPOUND.
     */
    String operation();
}
