package org.rpcrdma4j.it.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.rpcrdma4j.it.fault.FaultProxy.Direction;
import org.rpcrdma4j.it.fault.LeakWatch;
import org.rpcrdma4j.it.fault.PostFault;
import org.rpcrdma4j.mount.check.RandomIo;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.DirEntry;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.client.NfsMount;
import org.rpcrdma4j.nfs.client.ReadReply;
import org.rpcrdma4j.nfs.client.RpcCallException;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.registration.RegistrationMode;
import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.xprt.XprtCounter;
import org.rpcrdma4j.xprt.client.RdmaClientStats;
import org.rpcrdma4j.xprt.server.ServerCounter;

/**
 * Campaign 3, the disconnect storm: {@code reliability.storm.ops} (default 50,000) mixed NFS operations — WRITE
 * (FILE_SYNC or UNSTABLE) and READ checked against a model of every file, CREATE (GUARDED) and REMOVE, directory
 * listings compared with the model — from the nfs module's NFSv3 client, and from its NFSv4.1 client, over
 * RPC-over-RDMA to the embedded NFS server (MemoryVfs; for NFSv3 the duplicate request cache on, as a server should
 * run; NFSv4.1's session answers a retransmission from its slot), with a connection fault every ~500 operations at a
 * random point, drawn from:
 * <ul>
 * <li>the proxy: reset both ways; cut mid-FPDU towards the server; cut mid-FPDU towards the client;</li>
 * <li>the client's device: drop before a call's Send; right after it; after a reply, before the Local Invalidate;</li>
 * <li>the server's device: drop between the RDMA WRITEs of a reply and its Send; before a reply's Send (the call ran,
 * its reply is lost: the retransmission must be answered from the duplicate request cache); right after an RDMA
 * READ of a Read chunk is posted.</li>
 * </ul>
 * Asserted: every operation completes (after the transport's reconnect and retransmission) or fails with a typed
 * {@link RpcCallException} within its timeout, never with a wrong result; no call waits out its timeout (a fault
 * breaks the connection, and what it caught is sent again on the next one); at the end every file reads back byte for
 * byte as the model says and the directory lists exactly the model's names; the client's request slots are all free;
 * after close the client's registered pages and device, and the server's connections, registered pages and device,
 * are back to empty; Netty's leak detector reports nothing.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class DisconnectStormCampaignTest {
    private static final int OPS = Integer.getInteger("reliability.storm.ops", 50_000);
    private static final int EVERY = 500;
    private static final long SEED = Long.getLong("reliability.storm.seed", 20261129L);
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(15);
    private static final int FILES = 8;
    private static final int MAX_FILE = 256 * 1024;
    private static final int MAX_IO = 64 * 1024;
    private static final String[] FAULTS = {"proxy-reset", "proxy-cut-mid-fpdu-to-server",
        "proxy-cut-mid-fpdu-to-client", "client-drop-before-send", "client-drop-after-send",
        "client-drop-before-local-inv", "server-drop-between-write-and-reply", "server-drop-before-reply",
        "server-drop-after-rdma-read"};

    private NfsRdmaRig rig;
    private final MemoryVfs vfs = new MemoryVfs(64L << 20);

    @AfterEach
    void close() throws Exception {
        if (rig != null) {
            rig.close();
        }
        vfs.close();
    }

    /**
     * NFSv3 with FRWR (what AUTO picks here) runs the whole campaign; FMR and REG_MR, whose handles are mapped on the
     * caller's thread by the device itself and so meet a reset in other places, a fifth of it each; NFSv4.1, whose
     * sessions and open state come through the faults on their own terms, half of it.
     */
    @ParameterizedTest(name = "NFSv{1} {0}")
    @CsvSource({"AUTO, 3", "FMR, 3", "REG_MR, 3", "AUTO, 4.1"})
    void everyOperationCompletesOrFailsClearlyAndEveryByteIsRight(RegistrationMode mode, String version)
            throws Exception {
        boolean v3 = version.equals("3");
        int ops = !v3 ? OPS / 2 : mode == RegistrationMode.AUTO ? OPS : OPS / 5;
        LeakWatch.start();
        Figures figures = new Figures("disconnect-storm" + (v3 ? "" : "-v" + version)
                + (mode == RegistrationMode.AUTO ? "" : "-" + mode));
        Random rnd = new Random(SEED);
        // the client does not offer remote invalidation here, so that every call's handles are invalidated with
        // Local Invalidate and a fault can fall between a reply and its invalidation (campaign 1 covers both paths)
        rig = new NfsRdmaRig(vfs, true, Map.of("capabilities", "FAST_REG,FMR,LOCAL_INV,SEND_WITH_INV,READ_WITH_INV"),
                b -> b.credits(32));
        NfsMount client = rig.mount(version, NfsClientConfig.defaults().withCallTimeout(CALL_TIMEOUT),
                b -> b.maxCredits(32).registrationMode(mode));
        FileHandle[] files = new FileHandle[FILES];
        byte[][] model = new byte[FILES][];
        for (int i = 0; i < FILES; i++) {
            files[i] = client.createFile("/f" + i);
            model[i] = new byte[0];
        }
        FileHandle dir = client.mkdir("/d");
        TreeSet<String> names = new TreeSet<>();
        int nextName = 0;

        Map<String, Integer> opCounts = new TreeMap<>();
        Map<String, Integer> clearFailures = new TreeMap<>();
        Map<String, Integer> armed = new TreeMap<>();
        long maxOpNanos = 0;
        int faultAt = rnd.nextInt(EVERY);
        for (int op = 0; op < ops; op++) {
            if (op % EVERY == faultAt) {
                String kind = FAULTS[rnd.nextInt(FAULTS.length)];
                inject(kind);
                armed.merge(kind, 1, Integer::sum);
            }
            if (op % EVERY == EVERY - 1) {
                faultAt = rnd.nextInt(EVERY);
            }
            double r = rnd.nextDouble();
            long started = System.nanoTime();
            String name;
            if (r < 0.30) {
                name = "write";
                int f = rnd.nextInt(FILES);
                int off = rnd.nextInt(MAX_FILE - MAX_IO);
                int len = 1 + rnd.nextInt(MAX_IO);
                byte[] data = new byte[len];
                rnd.nextBytes(data);
                StableHow how = rnd.nextBoolean() ? StableHow.FILE_SYNC : StableHow.UNSTABLE;
                // a write that fails clearly is sent again: the model must stay certain
                while (!attempt(clearFailures, name, () -> client.write(files[f], off, Unpooled.wrappedBuffer(data),
                        how))) {
                    // retried
                }
                if (off + len > model[f].length) {
                    model[f] = Arrays.copyOf(model[f], off + len);
                }
                System.arraycopy(data, 0, model[f], off, len);
            } else if (r < 0.55) {
                name = "read";
                int f = rnd.nextInt(FILES);
                int off = rnd.nextInt(MAX_FILE - MAX_IO);
                int len = 1 + rnd.nextInt(MAX_IO);
                ByteBuf dst = Unpooled.buffer(len);
                ReadReply[] reply = new ReadReply[1];
                while (!attempt(clearFailures, name, () -> {
                    dst.clear();
                    reply[0] = client.read(files[f], off, dst);
                })) {
                    // retried
                }
                int expected = Math.max(0, Math.min(len, model[f].length - off));
                assertThat(reply[0].count()).as("READ count of /f%d at %d", f, off).isEqualTo(expected);
                byte[] got = new byte[dst.readableBytes()];
                dst.getBytes(dst.readerIndex(), got);
                assertThat(got).as("READ of /f%d at %d", f, off)
                        .isEqualTo(expected == 0 ? new byte[0] : Arrays.copyOfRange(model[f], off, off + expected));
            } else if (r < 0.70) {
                name = "create";
                String n = "n" + nextName++;
                if (!attempt(clearFailures, name, () -> client.create(dir, n, CreateMode.GUARDED,
                        SetAttributes.NONE))) {
                    // whether it was created is not known: look
                    if (!exists(client, dir, n, clearFailures)) {
                        continue;
                    }
                }
                names.add(n);
            } else if (r < 0.85) {
                name = "remove";
                if (names.isEmpty()) {
                    continue;
                }
                String n = new ArrayList<>(names).get(rnd.nextInt(names.size()));
                if (!attempt(clearFailures, name, () -> client.remove(dir, n))
                        && exists(client, dir, n, clearFailures)) {
                    continue;
                }
                names.remove(n);
            } else {
                name = "readdir";
                List<DirEntry>[] listing = new List[1];
                while (!attempt(clearFailures, name, () -> listing[0] = client.list("/d"))) {
                    // retried
                }
                Set<String> listed = listing[0].stream().map(DirEntry::name).collect(Collectors.toCollection(
                        TreeSet::new));
                assertThat(listed).as("listing of /d after op %d", op).isEqualTo(names);
            }
            long took = System.nanoTime() - started;
            maxOpNanos = Math.max(maxOpNanos, took);
            opCounts.merge(name, 1, Integer::sum);
        }

        for (int i = 0; i < FILES; i++) {
            byte[] back = RandomIo.readBack(client, "/f" + i);
            assertThat(back).as("/f%d read back whole", i).isEqualTo(model[i]);
        }
        Set<String> finalListing = new TreeSet<>();
        client.list("/d").forEach(e -> finalListing.add(e.name()));
        assertThat(finalListing).isEqualTo(names);

        RdmaClientStats stats = rig.transport.transport().stats();
        Map<ServerCounter, Long> server = rig.rdma.counters();
        Map<String, Long> fired = new TreeMap<>();
        fired.put("proxy", rig.proxy.injected(Direction.TO_SERVER) + rig.proxy.injected(Direction.TO_CLIENT));
        for (PostFault f : PostFault.values()) {
            if (f != PostFault.NONE) {
                fired.put("client-" + f, rig.clientPlan.injected(f));
                fired.put("server-" + f, rig.serverPlan.injected(f));
            }
        }
        figures.put("ops", opCounts.values().stream().mapToInt(Integer::intValue).sum()).put("mix", opCounts)
                .put("faultsArmed", armed).put("oneShotFaultsFired", fired)
                .put("clearFailures", clearFailures)
                .put("reconnects", stats.get(XprtCounter.RECONNECTS))
                .put("retransmits", stats.get(XprtCounter.RETRANSMITS))
                .put("timeouts", stats.get(XprtCounter.TIMEOUTS))
                .put("serverConnectionsAccepted", server.get(ServerCounter.CONNECTIONS_ACCEPTED))
                .put("maxOpMillis", maxOpNanos / 1_000_000)
                .put("seed", SEED)
                .put("registration", mode.name())
                .put("version", version)
                .put("sessionReplays", v3 ? 0 : rig.nfs.nfs4().replays())
                .put("hardwayRegistrations", stats.get(XprtCounter.HARDWAY_REGISTER_COUNT))
                .report();
        assertThat(maxOpNanos).as("the slowest operation, retries included, within twice its timeout")
                .isLessThan(2 * CALL_TIMEOUT.toNanos() + TimeUnit.SECONDS.toNanos(5));
        // every fault ends the connection or is answered: each call it catches is sent again on the next connection
        assertThat(stats.get(XprtCounter.TIMEOUTS)).as("calls that waited out their timeout").isZero();
        long firedTotal = fired.values().stream().mapToLong(Long::longValue).sum()
                + armed.getOrDefault("proxy-reset", 0);
        assertThat(firedTotal).as("faults that struck").isGreaterThanOrEqualTo(ops / EVERY / 2);
        assertThat(stats.get(XprtCounter.RECONNECTS)).as("the storm did break connections").isGreaterThanOrEqualTo(
                ops / EVERY / 2);
        assertThat(stats.get(XprtCounter.HARDWAY_REGISTER_COUNT) > 0).as("registered the hard way: REG_MR")
                .isEqualTo(mode == RegistrationMode.REG_MR);
        if (!v3) {
            // a fault after the server ran a call and before its reply went out: the call sent again on the next
            // connection is answered from its session slot, not run a second time (a GUARDED CREATE or a REMOVE run
            // twice would fail the campaign)
            assertThat(rig.nfs.nfs4().replays()).as("retransmissions answered from the session's slot")
                    .isPositive();
        }
        assertThat(stats.callsInFlight()).isZero();
        assertThat(stats.freeSlots()).as("every request slot free").isEqualTo(32);
        rig.closeAndCheck();
        assertThat(LeakWatch.leaks()).as("Netty leak reports (level %s)", LeakWatch.level()).isEmpty();
    }

    private void inject(String kind) {
        switch (kind) {
            case "proxy-reset" -> rig.proxy.dropAll();
            case "proxy-cut-mid-fpdu-to-server" -> rig.proxy.cutMidFpdu(Direction.TO_SERVER);
            case "proxy-cut-mid-fpdu-to-client" -> rig.proxy.cutMidFpdu(Direction.TO_CLIENT);
            case "client-drop-before-send" -> rig.clientPlan.armOnce(PostFault.DROP_BEFORE, Opcode.SEND);
            case "client-drop-after-send" -> rig.clientPlan.armOnce(PostFault.DROP_AFTER, Opcode.SEND);
            case "client-drop-before-local-inv" -> rig.clientPlan.armOnce(PostFault.DROP_BEFORE, Opcode.LOCAL_INV);
            case "server-drop-between-write-and-reply" ->
                    rig.serverPlan.armOnce(PostFault.DROP_BETWEEN_WRITE_AND_SEND, Opcode.RDMA_WRITE);
            case "server-drop-before-reply" ->
                    rig.serverPlan.armOnce(PostFault.DROP_BEFORE, Opcode.SEND, Opcode.SEND_WITH_INV);
            case "server-drop-after-rdma-read" -> rig.serverPlan.armOnce(PostFault.DROP_AFTER, Opcode.RDMA_READ,
                    Opcode.RDMA_READ_WITH_INV);
            default -> throw new IllegalArgumentException(kind);
        }
    }

    /** An NFS operation. */
    private interface Op {
        void run() throws Exception;
    }

    /**
     * Runs {@code op}: true when it completed; false when it failed with a typed RPC failure (counted by class); any
     * other failure (an NFS error status, a wrong result) fails the campaign.
     */
    private static boolean attempt(Map<String, Integer> clearFailures, String name, Op op) throws Exception {
        try {
            op.run();
            return true;
        } catch (RpcCallException e) {
            clearFailures.merge(name + ":" + e.getClass().getSimpleName(), 1, Integer::sum);
            return false;
        } catch (NfsException e) {
            throw new AssertionError(name + " failed with an NFS status no retransmission should cause: " + e, e);
        }
    }

    private static boolean exists(NfsMount client, FileHandle dir, String n, Map<String, Integer> clearFailures)
            throws Exception {
        for (;;) {
            try {
                client.lookup(dir, n);
                return true;
            } catch (NfsException e) {
                return false;
            } catch (RpcCallException e) {
                clearFailures.merge("lookup:" + e.getClass().getSimpleName(), 1, Integer::sum);
            }
        }
    }
}
