package org.rpcrdma4j.it.capture;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rpcrdma4j.codec.RpcRdmaEncoder;
import org.rpcrdma4j.codec.RpcRdmaHeader;
import org.rpcrdma4j.codec.RpcRdmaPrivateData;
import org.rpcrdma4j.codec.RpcRdmaProc;

/**
 * Real Linux traffic through our codec: every RPC-over-RDMA header the Linux 6.1 client and knfsd exchanged over siw
 * decodes, and encodes back to the very same bytes. The counts per procedure and chunk type are printed so that the
 * coverage can be read off the build log, and the kinds the captures are known to contain are required.
 */
class LinuxCaptureHeadersTest {

    @ParameterizedTest
    @ValueSource(strings = {LinuxCaptures.NFSV3, LinuxCaptures.NFSV41})
    void everyHeaderDecodesAndEncodesToTheSameBytes(String capture) {
        RpcRdmaTrace trace = LinuxCaptures.trace(capture);
        Map<String, Integer> counts = new TreeMap<>();
        ByteBuf out = Unpooled.buffer(1024);
        for (RpcRdmaMessage m : trace.messages()) {
            assertThat(m.decodeError()).as("%s", m).isNull();
            RpcRdmaHeader h = m.header();
            out.clear();
            int written = RpcRdmaEncoder.encode(out, h);
            assertThat(written).as("%s", m).isEqualTo(m.headerLength());
            assertThat(ByteBufUtil.getBytes(out)).as("%s re-encoded", m)
                    .isEqualTo(Arrays.copyOf(m.payload(), m.headerLength()));
            count(counts, m);
        }
        System.out.println(capture + ": " + trace.messages().size() + " RPC-over-RDMA messages " + counts);
        assertThat(trace.messages()).isNotEmpty();
    }

    private static void count(Map<String, Integer> counts, RpcRdmaMessage m) {
        RpcRdmaHeader h = m.header();
        String role = m.isCall() ? "call" : "reply";
        counts.merge(h.proc() + " " + role, 1, Integer::sum);
        for (int c = 0; c < h.readChunkCount(); c++) {
            counts.merge(h.readChunkPosition(c) == 0 ? "position-zero read chunk" : "read chunk (data item)", 1,
                    Integer::sum);
        }
        for (int c = 0; c < h.writeChunkCount(); c++) {
            counts.merge("write chunk in " + role, 1, Integer::sum);
        }
        if (h.hasReplyChunk()) {
            counts.merge("reply chunk in " + role, 1, Integer::sum);
        }
        if (m.send().invalidates()) {
            counts.merge("sent with invalidate", 1, Integer::sum);
        }
    }

    /** The kinds of header the captures are known to hold (captures/README.md) are all there and all decode. */
    @Test
    void theCapturesHoldEveryKindOfHeaderLinuxUses() {
        Map<String, Integer> counts = new TreeMap<>();
        for (String capture : new String[] {LinuxCaptures.NFSV3, LinuxCaptures.NFSV41}) {
            for (RpcRdmaMessage m : LinuxCaptures.trace(capture).messages()) {
                count(counts, m);
            }
        }
        assertThat(counts).containsKeys(RpcRdmaProc.RDMA_MSG + " call", RpcRdmaProc.RDMA_MSG + " reply",
                RpcRdmaProc.RDMA_NOMSG + " reply", "read chunk (data item)", "write chunk in call",
                "write chunk in reply", "reply chunk in call", "reply chunk in reply", "sent with invalidate");
    }

    /**
     * The MPA handshake as PROTOCOLS.md B.7 describes it: revision 2, enhanced, no CRC, no markers, the initiator
     * offering IRD 128 / ORD 0 and the responder answering the mirror; RFC 8797 private data on both sides (the
     * client offers remote invalidation, knfsd does not), read with our codec.
     */
    @ParameterizedTest
    @ValueSource(strings = {LinuxCaptures.NFSV3, LinuxCaptures.NFSV41})
    void theMpaHandshakeCarriesRfc8797PrivateData(String capture) throws Exception {
        IwarpConnection c = LinuxCaptures.trace(capture).connection();
        assertThat(c.request().revision()).isEqualTo(2);
        assertThat(c.request().flags()).isEqualTo(MpaFrame.ENHANCED);
        assertThat(c.reply().flags()).isEqualTo(MpaFrame.ENHANCED);
        assertThat(c.crc()).isFalse();
        assertThat(c.request().ird()).isEqualTo(128);
        assertThat(c.request().ord()).isZero();
        assertThat(c.reply().ird()).isZero();
        assertThat(c.reply().ord()).isEqualTo(128);
        RpcRdmaPrivateData client = RpcRdmaPrivateData.decode(c.request().ulpPrivateData()).orElseThrow();
        RpcRdmaPrivateData server = RpcRdmaPrivateData.decode(c.reply().ulpPrivateData()).orElseThrow();
        assertThat(client.remoteInvalidation()).isTrue();
        assertThat(server.remoteInvalidation()).isFalse();
        assertThat(server.inlineSendSize()).isEqualTo(4096);
        assertThat(server.inlineReceiveSize()).isEqualTo(4096);
        System.out.println(capture + ": MPA request " + c.request().privateData().length + " bytes of private data, "
                + "client " + client + ", server " + server + "; FPDUs " + c.fpdusFromClient() + " from the client, "
                + c.fpdusFromServer() + " from the server; RDMAP messages " + c.fromClient().size() + " / "
                + c.fromServer().size() + "; " + c.tcp());
    }
}
