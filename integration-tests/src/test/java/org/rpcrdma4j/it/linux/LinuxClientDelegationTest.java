package org.rpcrdma4j.it.linux;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.client.NfsClient;
import org.rpcrdma4j.nfs.client.NfsMount;
import org.rpcrdma4j.nfs.client.NfsMounts;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.xprt.server.RdmaRpcServer;
import org.rpcrdma4j.xprt.server.ServerCounter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Linux client holds a read delegation of our in-memory export and gives it back when asked: it opens and rereads
 * a file it holds one of without OPENs, and when the file is changed over NFSv3 from this host (a WRITE, then a
 * REMOVE) the server recalls it with CB_SEQUENCE and CB_RECALL over the RPC-over-RDMA back channel (RFC 8167), the
 * client claims the open a process holds under the delegation (CLAIM_DELEG_CUR_FH), answers and sends DELEGRETURN,
 * the change goes through, and the guest reads what it made, through the held open too. A file recalled lately is not
 * delegated again at once. An NFSv4.1 client of ours writing a delegated file waits for the recall the same way.
 */
@ExtendWith(LinuxPeerExtension.class)
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class LinuxClientDelegationTest {
    private static final Logger LOG = LoggerFactory.getLogger(LinuxClientDelegationTest.class);
    private static final Duration GUEST_COMMAND = Duration.ofMinutes(1);
    private static final String MNT = "/mnt/deleg";

    @Test
    void theGuestHoldsAReadDelegationAndGivesItBackOverTheRdmaBackChannel(LinuxPeer peer) throws Exception {
        MemoryVfs mem = new MemoryVfs(16L << 20);
        NfsServer nfs = NfsServer.builder().export("/mem", mem).bindAddress("127.0.0.1").port(0)
                .nfs4(OurServers.freshState()).build();
        RdmaRpcServer rdma = OurServers.rdma(nfs, "linux-delegation-server").build();
        nfs.start();
        try {
            rdma.start();
            String mount = "mkdir -p " + MNT + " && mount.nfs " + LinuxPeer.HOST_FROM_GUEST + ":/mem " + MNT
                    + " -o proto=rdma,vers=4.2,port=" + rdma.boundAddress().getPort();
            String first = peer.execOk(mount + " && printf first > " + MNT + "/f && cat " + MNT + "/f " + MNT + "/f",
                    GUEST_COMMAND);
            assertThat(first).contains("firstfirst");
            Map<String, Long> d = nfs.nfs4().delegationCounts();
            assertThat(d.get("granted")).as("a read delegation for the guest's read: %s", d).isPositive();
            assertThat(d.get("held")).isEqualTo(1);

            // while it holds the delegation the client opens and rereads the file without asking
            long opens = nfs.nfs4().operationCounts().getOrDefault("OPEN", 0L);
            peer.execOk("for i in $(seq 20); do cat " + MNT + "/f > /dev/null; done", GUEST_COMMAND);
            assertThat(nfs.nfs4().operationCounts().getOrDefault("OPEN", 0L)).as("OPENs of 20 rereads")
                    .isEqualTo(opens);

            // a process holds f open across the recall: the client opened it locally, under the delegation, and must
            // claim that open from the server (OPEN with CLAIM_DELEG_CUR_FH) before it gives the delegation back
            peer.execOk("rm -f /tmp/deleg-go /tmp/deleg-held; (exec 3< " + MNT + "/f; while [ ! -e /tmp/deleg-go ];"
                    + " do sleep 0.1; done; cat <&3 > /tmp/deleg-held) > /dev/null 2>&1 &", GUEST_COMMAND);
            long opensHeld = nfs.nfs4().operationCounts().getOrDefault("OPEN", 0L);
            long reverse = rdma.counters().get(ServerCounter.REVERSE_REPLIES);
            byte[] second = "SECOND".getBytes(StandardCharsets.UTF_8);
            try (NfsClient v3 = NfsClient.mount("tcp://127.0.0.1:" + nfs.port() + "/mem")) {
                FileHandle f = v3.resolve("/f");
                long t0 = System.nanoTime();
                // (the client sends a WRITE answered NFS3ERR_JUKEBOX again until it goes through)
                v3.write(f, 0, Unpooled.wrappedBuffer(second), StableHow.FILE_SYNC);
                d = nfs.nfs4().delegationCounts();
                LOG.info("an NFSv3 WRITE of a file the Linux client held a delegation of took {} ms; delegations {}",
                        (System.nanoTime() - t0) / 1_000_000, d);
                assertThat(d).containsEntry("recalled", 1L).containsEntry("returned", 1L)
                        .containsEntry("revoked", 0L).containsEntry("held", 0L).containsEntry("recalls_answered", 1L);
                assertThat(rdma.counters().get(ServerCounter.REVERSE_REPLIES)).as("CB_RECALL answered over RDMA")
                        .isGreaterThan(reverse);
                assertThat(peer.execOk("cat " + MNT + "/f", GUEST_COMMAND).strip()).as("the guest reads the new bytes")
                        .isEqualTo("SECOND");
                assertThat(nfs.nfs4().operationCounts().getOrDefault("OPEN", 0L)).as("the held open claimed")
                        .isGreaterThan(opensHeld);
                String held = peer.execOk("touch /tmp/deleg-go; for i in $(seq 100); do [ -s /tmp/deleg-held ] && break;"
                        + " sleep 0.1; done; cat /tmp/deleg-held", GUEST_COMMAND);
                assertThat(held.strip()).as("read through the open held across the recall").isEqualTo("SECOND");

                // a file recalled lately is not delegated again for a while (nor is one another client just
                // changed): the guest's next read of f gets none, while a file of its own does
                peer.execOk("cat " + MNT + "/f > /dev/null && printf gee > " + MNT + "/g && cat " + MNT
                        + "/g > /dev/null", GUEST_COMMAND);
                assertThat(nfs.nfs4().delegationCounts().get("granted")).isEqualTo(2);
                // and a REMOVE of that file over NFSv3 recalls its delegation
                FileHandle root = v3.root();
                v3.remove(root, "g");
                assertThat(nfs.nfs4().delegationCounts()).containsEntry("recalled", 2L)
                        .containsEntry("returned", 2L).containsEntry("revoked", 0L);
                assertThat(peer.exec("cat " + MNT + "/g", GUEST_COMMAND).output()).contains("No such file");
            }
            // an NFSv4.1 client of ours on this host writes a file the guest holds a delegation of: its OPEN for
            // writing is answered DELAY until the recall's return, and it asks again
            peer.execOk("printf kay > " + MNT + "/k && cat " + MNT + "/k > /dev/null", GUEST_COMMAND);
            assertThat(nfs.nfs4().delegationCounts().get("held")).isEqualTo(1);
            try (NfsMount v41 = NfsMounts.mount("tcp://127.0.0.1:" + nfs.port() + "/mem?vers=4.1")) {
                v41.write(v41.resolve("/k"), 0, Unpooled.wrappedBuffer("KAY".getBytes(StandardCharsets.UTF_8)),
                        StableHow.FILE_SYNC);
            }
            assertThat(nfs.nfs4().delegationCounts()).containsEntry("recalled", 3L).containsEntry("returned", 3L)
                    .containsEntry("revoked", 0L);
            assertThat(peer.execOk("cat " + MNT + "/k", GUEST_COMMAND).strip()).isEqualTo("KAY");
            peer.execOk("umount " + MNT, GUEST_COMMAND);
            for (ServerCounter bad : new ServerCounter[] {ServerCounter.ERR_CHUNK_SENT,
                    ServerCounter.DROPPED_GARBAGE, ServerCounter.DROPPED_INTERNAL_ERROR,
                    ServerCounter.DROPPED_REVERSE_TIMEOUT, ServerCounter.REVERSE_CALLS_FAILED}) {
                assertThat(rdma.counters().get(bad)).as(bad.name()).isZero();
            }
        } catch (Throwable t) {
            LOG.error("the delegation test failed; guest kernel log:\n{}", peer.dmesgTail(40));
            peer.exec("umount -f " + MNT, Duration.ofSeconds(30));
            throw t;
        } finally {
            rdma.stop();
            nfs.close();
        }
    }
}
