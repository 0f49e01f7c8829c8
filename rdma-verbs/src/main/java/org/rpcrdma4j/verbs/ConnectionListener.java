package org.rpcrdma4j.verbs;

/** Receives the connection events of one queue pair, on a device thread; must not block. */
@FunctionalInterface
public interface ConnectionListener {
    void onEvent(ConnectionEvent event);
}
