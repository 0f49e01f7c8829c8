package org.rpcrdma4j.it.capture;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the iWARP connections of a capture file: pcap/pcapng (gzip or not) -> TCP streams per direction -> MPA
 * handshake -> FPDUs -> DDP segments -> RDMAP messages. See the package documentation for the whole pipeline.
 * <p>
 * A TCP connection is taken as iWARP when one side's stream starts with an MPA Request; the other side must then
 * start with an MPA Reply (unless the capture ended before it). Other TCP connections are ignored.
 */
public final class IwarpCapture {

    private IwarpCapture() {
    }

    /** @return every iWARP connection of the file, in order of their first frame */
    public static List<IwarpConnection> read(Path file) throws IOException {
        return connections(TcpReassembler.reassemble(PcapFile.read(file)));
    }

    /** @return the iWARP connections among the given TCP connections */
    public static List<IwarpConnection> connections(List<TcpConnection> tcp) throws CaptureFormatException {
        List<IwarpConnection> out = new ArrayList<>();
        for (TcpConnection c : tcp) {
            if (MpaFrame.startsWith(c.serverToClient(), MpaFrame.REQUEST_KEY)) {
                c = c.reversed();
            }
            if (MpaFrame.startsWith(c.clientToServer(), MpaFrame.REQUEST_KEY)) {
                out.add(connection(c));
            }
        }
        return out;
    }

    /**
     * The RDMAP opcodes of the FPDUs that the responder listening on {@code responderPort} sent, by the capture frame
     * after which the receiver had each whole FPDU, CRC field included (the frame tshark shows it in), over every
     * iWARP connection of the file to that port.
     */
    public static Map<Integer, List<Integer>> responderOpcodesByFrame(Path file, int responderPort) throws IOException {
        Map<Integer, List<Integer>> byFrame = new HashMap<>();
        for (IwarpConnection c : read(file)) {
            if (c.tcp().server().getPort() != responderPort || c.reply() == null || c.rejected()) {
                continue;
            }
            TcpStream stream = c.tcp().serverToClient();
            for (DdpSegment s : FpduParser.parse(stream, c.reply().wireLength(), c.crc())) {
                // the frame with the FPDU's last byte, its CRC field included (DdpSegment.frame() is the one with its
                // last ULPDU byte)
                byFrame.computeIfAbsent(stream.deliveredBy(s.streamOffset() + s.wireLength() - 1L),
                        f -> new ArrayList<>()).add(s.opcode());
            }
        }
        return byFrame;
    }

    /** Parses one TCP connection whose client stream starts with an MPA Request. */
    public static IwarpConnection connection(TcpConnection c) throws CaptureFormatException {
        MpaFrame request = MpaFrame.parse(c.clientToServer(), true);
        MpaFrame reply = c.serverToClient().length() == 0 ? null : MpaFrame.parse(c.serverToClient(), false);
        if (reply == null || reply.has(MpaFrame.REJECT)) {
            if (c.clientToServer().length() > request.wireLength()) {
                throw new CaptureFormatException(c.clientToServer() + ": data after an MPA Request that was "
                        + (reply == null ? "never answered" : "rejected"));
            }
            return new IwarpConnection(c, request, reply, false, List.of(), List.of(), 0, 0);
        }
        if (request.has(MpaFrame.MARKERS) || reply.has(MpaFrame.MARKERS)) {
            throw new CaptureFormatException(c.clientToServer() + ": MPA markers were negotiated; not supported");
        }
        boolean crc = request.has(MpaFrame.CRC) || reply.has(MpaFrame.CRC);
        List<DdpSegment> up = FpduParser.parse(c.clientToServer(), request.wireLength(), crc);
        List<DdpSegment> down = FpduParser.parse(c.serverToClient(), reply.wireLength(), crc);
        String client = "initiator " + c.client();
        String server = "responder " + c.server();
        return new IwarpConnection(c, request, reply, crc, RdmapAssembler.assemble(client, up),
                RdmapAssembler.assemble(server, down), up.size(), down.size());
    }
}
