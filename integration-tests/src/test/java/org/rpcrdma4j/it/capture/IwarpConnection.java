package org.rpcrdma4j.it.capture;

import java.util.List;

/**
 * One iWARP connection of a capture: the TCP connection, the MPA handshake, and the RDMAP messages each side sent.
 *
 * @param tcp         the TCP connection (client = the MPA initiator)
 * @param request     the initiator's MPA Request
 * @param reply       the responder's MPA Reply, or null when the capture ends before it
 * @param crc         whether FPDUs carry a CRC-32C (either frame set the C flag)
 * @param fromClient  what the initiator sent, in order
 * @param fromServer  what the responder sent, in order
 * @param fpdusFromClient how many FPDUs the initiator sent
 * @param fpdusFromServer how many FPDUs the responder sent
 */
public record IwarpConnection(TcpConnection tcp, MpaFrame request, MpaFrame reply, boolean crc,
                              List<RdmapMessage> fromClient, List<RdmapMessage> fromServer, int fpdusFromClient,
                              int fpdusFromServer) {

    /** @return whether the responder refused the connection */
    public boolean rejected() {
        return reply != null && reply.has(MpaFrame.REJECT);
    }
}
