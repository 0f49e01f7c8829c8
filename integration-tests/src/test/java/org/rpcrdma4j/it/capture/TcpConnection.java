package org.rpcrdma4j.it.capture;

import java.net.InetSocketAddress;

/**
 * One TCP connection of a capture: the side that opened it (the client: sender of the SYN, or when the handshake is
 * not in the capture, the first side seen) and both reassembled directions.
 *
 * @param client         the active opener
 * @param server         the passive opener
 * @param clientToServer what the client sent
 * @param serverToClient what the server sent
 */
public record TcpConnection(InetSocketAddress client, InetSocketAddress server, TcpStream clientToServer,
                            TcpStream serverToClient) {

    /** @return the same connection seen from the other side (client and server swapped) */
    public TcpConnection reversed() {
        return new TcpConnection(server, client, serverToClient, clientToServer);
    }
}
