package org.rpcrdma4j.mount;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.mount.server.EmbeddedServer;
import org.rpcrdma4j.xprt.drc.DrcCounter;
import org.rpcrdma4j.xprt.drc.DuplicateRequestCache;

/**
 * The embedded server's duplicate request cache fronts NFS on both transports: changes made over RDMA and over TCP are
 * recorded in the one cache, reads pass by it, and without the setting there is none.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReplyCacheTest {
    @TempDir
    Path temp;

    @Test
    void changesOverRdmaAndOverTcpGoThroughTheOneCache() throws IOException {
        Path exported = Files.createDirectories(temp.resolve("exported"));
        Path src = Files.writeString(temp.resolve("src.txt"), "cached\n");
        try (EmbeddedServer server = EmbeddedServer.start(
                EmbeddedServer.Settings.local(exported, "/export", "soft", Map.of()))) {
            // the duplicate request cache is NFSv3's (an NFSv4.1 session has its own reply cache)
            DuplicateRequestCache drc = server.replyCache().orElseThrow();
            long before = drc.counter(DrcCounter.MISSES);

            Cli.Result overRdma = Cli.run("put", server.rdmaUrl("127.0.0.1") + "&vers=3", src.toString(), "/over-rdma.txt");
            assertThat(overRdma.code()).as(overRdma.toString()).isZero();
            long afterRdma = drc.counter(DrcCounter.MISSES);
            assertThat(afterRdma - before).as("CREATE, WRITE, RENAME over RDMA").isGreaterThanOrEqualTo(3);

            Cli.Result overTcp = Cli.run("put", server.tcpUrl("127.0.0.1") + "?vers=3", src.toString(), "/over-tcp.txt");
            assertThat(overTcp.code()).as(overTcp.toString()).isZero();
            long afterTcp = drc.counter(DrcCounter.MISSES);
            assertThat(afterTcp - afterRdma).as("CREATE, WRITE, RENAME over TCP").isGreaterThanOrEqualTo(3);

            long notCached = drc.counter(DrcCounter.NOT_CACHED);
            Cli.Result ls = Cli.run("ls", server.rdmaUrl("127.0.0.1") + "&vers=3");
            assertThat(ls.out()).as(ls.toString()).isEqualTo("over-rdma.txt\nover-tcp.txt\n");
            assertThat(drc.counter(DrcCounter.MISSES)).as("a listing changes nothing").isEqualTo(afterTcp);
            assertThat(drc.counter(DrcCounter.NOT_CACHED)).as("its calls pass by").isGreaterThan(notCached);
            assertThat(drc.counter(DrcCounter.HITS)).as("no retransmissions here").isZero();
        }
        assertThat(Files.readString(exported.resolve("over-rdma.txt"))).isEqualTo("cached\n");
        assertThat(Files.readString(exported.resolve("over-tcp.txt"))).isEqualTo("cached\n");
    }

    @Test
    void withoutTheSettingThereIsNoCache() {
        EmbeddedServer.Settings local = EmbeddedServer.Settings.local(temp, "/export", "soft", Map.of());
        EmbeddedServer.Settings plain = new EmbeddedServer.Settings(local.dir(), local.exportPath(),
                local.bindAddress(), 0, 0, "soft", Map.of(), false, local.credits(), local.inlineSend(),
                local.inlineRecv(), local.registration(), false, false, local.gracePeriod(), false, 0, null, true);
        try (EmbeddedServer server = EmbeddedServer.start(plain)) {
            assertThat(server.replyCache()).isEmpty();
        }
    }
}
