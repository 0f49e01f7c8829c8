package org.rpcrdma4j.nfs.server.v4;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;

/**
 * NFSv4's {@code change_info4} on the wire: atomic for every operation that changes a directory (OPEN with create,
 * CREATE, LINK, RENAME's two directories, REMOVE), with the change attribute before and after; and operations of
 * several clients at once on one directory are ordered so that each one's value before is the one the operation
 * before it left.
 */
@Timeout(120)
class DirectoryChangeInfoTest {
    private static final int FATTR4_CHANGE = 3;
    private static final int NF4DIR = 2;

    private final MemoryVfs vfs = new MemoryVfs();
    private NfsServer server;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    private V4Script connect() throws Exception {
        if (server == null) {
            server = NfsServer.builder().export("/export", vfs).bindAddress("127.0.0.1").port(0)
                    .nfs4(Nfs41ServerTest.noGrace(Duration.ofSeconds(60))).build();
            server.start();
        }
        return new V4Script(server.address());
    }

    /** One change_info4, read: atomic, before, after. */
    private record Info(boolean atomic, long before, long after) {
        static Info read(V4Script.Res r) {
            int atomic = r.word();
            assertThat(atomic).as("a boolean").isIn(0, 1);
            return new Info(atomic == 1, r.hyper(), r.hyper());
        }
    }

    /** The directory's change attribute now. */
    private static long change(Nfs41ServerTest.Client c, byte[] dir) throws Exception {
        V4Script.Res r = c.script.call(c.compound().putfh(dir).op(Nfs4.OP_GETATTR).bitmap(FATTR4_CHANGE));
        r.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_GETATTR);
        r.bitmap();
        assertThat(r.word()).as("attrlist4 length").isEqualTo(8);
        return r.hyper();
    }

    /** OPEN with create of {@code name} in {@code dir}, then CLOSE: the OPEN's change_info4. */
    private static Info openCreate(Nfs41ServerTest.Client c, byte[] dir, String name) throws Exception {
        V4Script.Res r = Nfs41ServerTest.openCreate(c, dir, name);
        byte[] stateid = r.fixed(16);
        Info info = Info.read(r);
        r.word(); // rflags
        r.bitmap();
        r.word(); // no delegation
        r.ok(Nfs4.OP_GETFH);
        byte[] fh = r.opaque();
        c.script.call(c.compound().putfh(fh).op(Nfs4.OP_CLOSE).word(0).stateid(stateid)).sequenceOk()
                .ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_CLOSE);
        return info;
    }

    private static Info remove(Nfs41ServerTest.Client c, byte[] dir, String name) throws Exception {
        V4Script.Res r = c.script.call(c.compound().putfh(dir).op(Nfs4.OP_REMOVE).string(name));
        assertThat(r.status).as(Nfs4Status.name(r.status)).isZero();
        r.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_REMOVE);
        return Info.read(r);
    }

    private static void assertSpans(Info info, long before, long after, String what) {
        assertThat(info.atomic()).as("%s: atomic", what).isTrue();
        assertThat(info.before()).as("%s: before", what).isEqualTo(before);
        assertThat(info.after()).as("%s: after", what).isEqualTo(after).isNotEqualTo(before);
    }

    @Test
    void everyChangeOfADirectoryIsAtomic() throws Exception {
        try (V4Script s = connect()) {
            Nfs41ServerTest.Client c = Nfs41ServerTest.session(s, "client-cinfo");
            byte[] root = Nfs41ServerTest.exportRoot(c);

            long before = change(c, root);
            assertSpans(openCreate(c, root, "f"), before, change(c, root), "OPEN with create");

            before = change(c, root);
            V4Script.Res made = s.call(c.compound().putfh(root).op(Nfs4.OP_CREATE).word(NF4DIR).string("d")
                    .bitmap().word(0).op(Nfs4.OP_GETFH));
            assertThat(made.status).as(Nfs4Status.name(made.status)).isZero();
            made.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_CREATE);
            Info created = Info.read(made);
            made.bitmap();
            made.ok(Nfs4.OP_GETFH);
            byte[] d = made.opaque();
            assertSpans(created, before, change(c, root), "CREATE");

            V4Script.Res file = s.call(c.compound().putfh(root).op(Nfs4.OP_LOOKUP).string("f").op(Nfs4.OP_GETFH));
            file.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_LOOKUP).ok(Nfs4.OP_GETFH);
            byte[] f = file.opaque();
            before = change(c, d);
            V4Script.Res linked = s.call(c.compound().putfh(f).op(Nfs4.OP_SAVEFH).putfh(d).op(Nfs4.OP_LINK)
                    .string("g"));
            linked.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_SAVEFH).ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_LINK);
            assertSpans(Info.read(linked), before, change(c, d), "LINK");

            long fromBefore = change(c, d);
            long toBefore = change(c, root);
            V4Script.Res renamed = s.call(c.compound().putfh(d).op(Nfs4.OP_SAVEFH).putfh(root).op(Nfs4.OP_RENAME)
                    .string("g").string("h"));
            renamed.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_SAVEFH).ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_RENAME);
            Info source = Info.read(renamed);
            Info target = Info.read(renamed);
            assertSpans(source, fromBefore, change(c, d), "RENAME's source");
            assertSpans(target, toBefore, change(c, root), "RENAME's target");

            before = change(c, root);
            assertSpans(remove(c, root, "h"), before, change(c, root), "REMOVE");
        }
    }

    /**
     * Three clients create and remove names in one directory at once: ordered by their change before, each
     * operation's change before is the one the operation before it left (without the directory's hold, two would
     * both see the change before either ran).
     */
    @Test
    void changesAtOnceOfOneDirectoryAreOrderedByTheirChangeInfo() throws Exception {
        int clients = 3;
        int names = 60;
        byte[] root;
        try (V4Script s = connect()) {
            root = Nfs41ServerTest.exportRoot(Nfs41ServerTest.session(s, "client-root"));
        }
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            List<Future<List<Info>>> done = new ArrayList<>();
            for (int t = 0; t < clients; t++) {
                int client = t;
                done.add(pool.submit(() -> {
                    List<Info> infos = new ArrayList<>();
                    try (V4Script s = connect()) {
                        Nfs41ServerTest.Client c = Nfs41ServerTest.session(s, "client-" + client);
                        for (int i = 0; i < names; i++) {
                            String name = "c" + client + "-" + i;
                            infos.add(openCreate(c, root, name));
                            if (i % 2 == 1) {
                                infos.add(remove(c, root, name));
                            }
                        }
                    }
                    return infos;
                }));
            }
            List<Info> all = new ArrayList<>();
            for (Future<List<Info>> f : done) {
                all.addAll(f.get());
            }
            assertThat(all).hasSize(clients * names * 3 / 2).allMatch(Info::atomic);
            all.sort(Comparator.comparingLong(Info::before).thenComparingLong(Info::after));
            for (int i = 1; i < all.size(); i++) {
                assertThat(all.get(i).before()).as("operation %d of %d begins where the one before ended: %s after %s",
                        i, all.size(), all.get(i), all.get(i - 1)).isEqualTo(all.get(i - 1).after());
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
