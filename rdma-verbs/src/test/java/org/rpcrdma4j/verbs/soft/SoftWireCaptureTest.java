package org.rpcrdma4j.verbs.soft;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.testsupport.RequiredPeer;
import org.rpcrdma4j.verbs.AcceptParameters;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.ConnectParameters;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionInfo;
import org.rpcrdma4j.verbs.ConnectionRequest;
import org.rpcrdma4j.verbs.FastRegMemoryRegion;
import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaListener;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.Stag;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.conformance.VerbsFixture;

/**
 * Captures a connection that uses every RDMAP opcode on loopback and lets Wireshark's own dissectors judge it: every
 * frame decodes (no malformed packet), every CRC is good, and the opcode counts are exactly what the connection sent.
 * Skipped, with the reason, where tshark is missing or may not capture; in CI that fails instead ({@link RequiredPeer}).
 */
@Timeout(180)
class SoftWireCaptureTest extends VerbsFixture {
    private static final int REMOTE = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;

    /** The capture stays in the build directory for inspection. */
    private final Path tmp = Path.of("target", "wire-capture");

    /** CRC on; completions without placement probes, so that the frame count is exact. */
    @Override
    protected RdmaDevice newDevice() throws Exception {
        return RdmaProviders.select("soft").open(Map.of("crc", "true", "confirmPlacement", "false"));
    }

    @Test
    void everyOpcodeDecodesWithGoodCrcs() throws Exception {
        String unavailable = Tshark.availability();
        RequiredPeer.require("the wire capture test (tshark)", unavailable);

        Endpoint client = endpoint(device, Sizes.defaults());
        Endpoint server = endpoint(peerDevice, Sizes.defaults());
        CompletableFuture<ConnectionRequest> requested = new CompletableFuture<>();
        RdmaListener listener = own(peerDevice.connectionManager().listen(listenAddress(), requested::complete));
        java.nio.file.Files.createDirectories(tmp);
        Path file = tmp.resolve("every-opcode.pcapng").toAbsolutePath();
        java.nio.file.Files.deleteIfExists(file);
        Tshark capture;
        try {
            capture = Tshark.capture(listener.localAddress().getPort(), file);
        } catch (IOException e) {
            RequiredPeer.require("the wire capture test (tshark)", "tshark cannot capture: " + e.getMessage());
            return;
        }
        try (capture) {
            CompletableFuture<ConnectionInfo> connected = device.connectionManager().connect(client.qp,
                    listener.localAddress(), new ConnectParameters(new byte[] {1, 2, 3}, 4, 4), client.events);
            requested.get(WAIT.toSeconds(), TimeUnit.SECONDS).accept(server.qp,
                    new AcceptParameters(new byte[] {4, 5}, 4, 4), server.events);
            connected.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            server.events.await(ConnectionEventType.ESTABLISHED);
            exchangeEveryOpcode(new Connection(client, server));
        }

        List<String> malformed = capture.summary("_ws.malformed || _ws.expert.severity >= 0x00800000");
        assertThat(malformed).as("malformed frames or errors: " + malformed).isEmpty();
        assertThat(capture.summary("iwarp_mpa.req")).hasSize(1);
        assertThat(capture.summary("iwarp_mpa.rep && iwarp_mpa.rej_flag == 0")).hasSize(1);

        Map<Integer, Integer> opcodes = new TreeMap<>();
        for (String line : capture.fields("iwarp_mpa.fpdu && tcp", "iwarp_rdma.opcode")) {
            for (String op : line.split(",")) {
                if (!op.isEmpty()) {
                    opcodes.merge(Integer.decode(op), 1, Integer::sum);
                }
            }
        }
        assertThat(opcodes).as("opcode counts").isEqualTo(Map.of(
                0, 4,    // Write: ready-to-receive, two segments, the refused one
                1, 1,    // Read Request
                2, 2,    // Read Response, two segments
                3, 2,    // Send (two)
                4, 1, 5, 1, 6, 1,
                7, 1));  // Terminate
        int fpdus = opcodes.values().stream().mapToInt(Integer::intValue).sum();
        List<String> verbose = capture.verbose("iwarp_mpa.fpdu");
        assertThat(verbose.stream().filter(l -> l.contains("(Good CRC32)")).count()).as("good CRCs")
                .isEqualTo(fpdus);
        assertThat(verbose).noneMatch(l -> l.contains("Bad CRC32"));
        List<String> terminate = capture.verbose("iwarp_rdma.opcode == 7");
        assertThat(terminate).anyMatch(l -> l.contains("Layer: DDP (0x1)"))
                .anyMatch(l -> l.contains("Tagged Buffer Error (0x1)"))
                .anyMatch(l -> l.contains("Invalid STag (0x00)"));
    }

    /** Send, Send-SE, Send-Inv, Send-SE-Inv, a two-segment Write, a two-segment Read, a refused Write. */
    private void exchangeEveryOpcode(Connection c) throws Exception {
        RegisteredMemory out = register(c.client().pd, 1 << 18, REMOTE);
        RegisteredMemory in = register(c.server().pd, 1 << 18, REMOTE);
        fill(out.buffer(), 71);
        fill(in.buffer(), 72);
        for (int i = 0; i < 4; i++) {
            c.server().qp.postRecv(recv(i, in, i * 1024L, 1024));
        }
        c.client().qp.postSend(send(1, out, 0, 100));
        SendWorkRequest se = send(2, out, 0, 200);
        se.flags |= SendWorkRequest.SOLICITED;
        c.client().qp.postSend(se);
        FastRegMemoryRegion mr = own(c.server().pd.allocFastRegMr(1));
        ByteBuffer page = pages(1);
        for (int i = 0; i < 2; i++) {
            c.server().qp.postSend(fastRegister(10 + i, mr, pageList(page, 0, 4096, 0x7000), REMOTE));
            assertThat(await(c.server().sendCq).status).isEqualTo(WcStatus.SUCCESS);
            SendWorkRequest inv = send(3 + i, out, 0, 300);
            inv.opcode = Opcode.SEND_WITH_INV;
            inv.invalidateStag = mr.rkey();
            if (i == 1) {
                inv.flags |= SendWorkRequest.SOLICITED;
            }
            c.client().qp.postSend(inv);
            awaitWrId(c.server().recvCq, 2 + i);
        }
        awaitAll(c.client().sendCq, 4);
        c.server().qp.postRecv(recv(9, in, 8192, 64));
        int twoSegments = org.rpcrdma4j.verbs.soft.SoftIwarpOptions.DEFAULT_MAX_ULPDU + 1000;
        c.client().qp.postSend(chain(write(5, out, 0, twoSegments, in.rkey(), in.address(65536)),
                send(6, out, 0, 16)));
        awaitWrId(c.server().recvCq, 9);
        assertThat(bytes(in.buffer(), 65536, twoSegments)).isEqualTo(bytes(out.buffer(), 0, twoSegments));
        c.client().qp.postSend(read(7, out, 100_000, twoSegments, in.rkey(), in.address(0)));
        assertThat(awaitWrId(c.client().sendCq, 7).status).isEqualTo(WcStatus.SUCCESS);
        c.client().qp.postSend(write(8, out, 0, 64, Stag.nextKey(in.rkey()), in.address(0)));
        c.server().events.await(ConnectionEventType.DISCONNECTED);
        c.client().events.await(ConnectionEventType.DISCONNECTED);
    }
}
