package org.rpcrdma4j.verbs;

import java.net.InetSocketAddress;

/** A listening endpoint. Closing it stops new connections; established ones live on. */
public interface RdmaListener extends AutoCloseable {

    /** The bound address (with the real port when 0 was asked). */
    InetSocketAddress localAddress();

    @Override
    void close();
}
