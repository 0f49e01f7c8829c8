package org.rpcrdma4j.nfs.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.dcache.oncrpc4j.rpc.RpcAuth;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.NfsTime;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.WccAttr;
import org.rpcrdma4j.nfs.WccData;
import org.rpcrdma4j.nfs.testing.XdrBytes;
import org.rpcrdma4j.nfs.vfs.LocalVfs;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.nfs.vfs.Vfs;
import org.rpcrdma4j.nfs.xdr.CreateArgs;
import org.rpcrdma4j.nfs.xdr.DirOpArgs;
import org.rpcrdma4j.nfs.xdr.LinkArgs;
import org.rpcrdma4j.nfs.xdr.LinkRes;
import org.rpcrdma4j.nfs.xdr.MkdirArgs;
import org.rpcrdma4j.nfs.xdr.NewObjectRes;
import org.rpcrdma4j.nfs.xdr.Nfs3;
import org.rpcrdma4j.nfs.xdr.Nfs3Result;
import org.rpcrdma4j.nfs.xdr.RenameArgs;
import org.rpcrdma4j.nfs.xdr.RenameRes;
import org.rpcrdma4j.nfs.xdr.SetattrArgs;
import org.rpcrdma4j.nfs.xdr.SymlinkArgs;
import org.rpcrdma4j.nfs.xdr.WccRes;
import org.rpcrdma4j.xprt.drc.Calls;
import org.rpcrdma4j.xprt.drc.RpcTcpClient;

/**
 * NFSv3's {@code wcc_data} of directories over the wire: every call that changes a directory answers with its
 * attributes just before the change and just after it, and calls at once on one directory are ordered so that each
 * one's attributes before are the ones the call before it left (what lets a client keep its cache of the directory).
 */
@Timeout(120)
class DirectoryChangesEndToEndTest {
    private static final RpcAuth ROOT = Calls.unix(0);

    @TempDir
    Path dir;

    private Vfs vfs;
    private NfsServer nfs;
    private InetSocketAddress address;
    private final java.util.concurrent.atomic.AtomicInteger xid = new java.util.concurrent.atomic.AtomicInteger(0x3300);

    @AfterEach
    void stop() throws IOException {
        if (nfs != null) {
            nfs.close();
        }
    }

    private FileHandle start(String kind) throws IOException {
        vfs = kind.equals("memory") ? new MemoryVfs() : LocalVfs.open(dir);
        nfs = NfsServer.builder().bindAddress("127.0.0.1").port(0).export("/export", vfs).workerThreads(4).build()
                .start();
        address = new InetSocketAddress("127.0.0.1", nfs.port());
        return NfsDuplicateRequestCacheTest.mountOverTcp(address);
    }

    private <R extends Nfs3Result> R call(RpcTcpClient c, int procedure, XdrAble args, R result) throws IOException {
        byte[] reply = c.call(Calls.call(xid.incrementAndGet(), Nfs3.PROGRAM, Nfs3.VERSION, procedure, ROOT, args));
        assertThat(Calls.intAt(reply, 20)).as("accept_stat").isZero();
        R r = XdrBytes.decode(Arrays.copyOfRange(reply, Calls.REPLY_HEADER, reply.length), result);
        assertThat(r.isOk()).as("%s status %d", Nfs3.procedureName(procedure), r.status).isTrue();
        return r;
    }

    private FileAttributes attributes(String... path) throws Exception {
        FileHandle fh = vfs.root();
        for (String name : path) {
            fh = vfs.lookup(fh, name).handle();
        }
        return vfs.getattr(fh);
    }

    /** {@code wcc} carries {@code before} as its attributes before and the directory as it is now after. */
    private void assertWcc(WccData wcc, FileAttributes before, String what, String... path) throws Exception {
        assertThat(wcc.before()).as("%s: the directory before", what).isEqualTo(WccAttr.of(before));
        assertThat(wcc.after()).as("%s: the directory after", what).isEqualTo(attributes(path));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"memory", "local"})
    void everyChangeOfADirectoryCarriesItsAttributesBeforeAndAfter(String kind) throws Exception {
        FileHandle root = start(kind);
        try (RpcTcpClient c = RpcTcpClient.connect(address)) {
            FileAttributes before = attributes();
            NewObjectRes made = call(c, Nfs3.MKDIR, new MkdirArgs(root, "d", SetAttributes.NONE), new NewObjectRes());
            assertWcc(made.dirWcc, before, "MKDIR");
            FileHandle d = made.object;

            before = attributes("d");
            NewObjectRes file = call(c, Nfs3.CREATE, new CreateArgs(d, "f", CreateMode.GUARDED, SetAttributes.NONE, 0),
                    new NewObjectRes());
            assertWcc(file.dirWcc, before, "CREATE", "d");

            before = attributes("d");
            assertWcc(call(c, Nfs3.SYMLINK, new SymlinkArgs(d, "s", SetAttributes.NONE, "f"), new NewObjectRes())
                    .dirWcc, before, "SYMLINK", "d");

            before = attributes();
            assertWcc(call(c, Nfs3.LINK, new LinkArgs(file.object, root, "g"), new LinkRes()).linkDirWcc, before,
                    "LINK");

            FileAttributes fromBefore = attributes("d");
            FileAttributes toBefore = attributes();
            RenameRes renamed = call(c, Nfs3.RENAME, new RenameArgs(d, "s", root, "s2"), new RenameRes());
            assertWcc(renamed.fromDirWcc, fromBefore, "RENAME from", "d");
            assertWcc(renamed.toDirWcc, toBefore, "RENAME to");

            before = attributes("d");
            assertWcc(call(c, Nfs3.REMOVE, new DirOpArgs(d, "f"), new WccRes()).wcc, before, "REMOVE", "d");

            before = attributes("d");
            assertWcc(call(c, Nfs3.SETATTR, new SetattrArgs(d, SetAttributes.NONE.withMode(0700), null),
                    new WccRes()).wcc, before, "SETATTR of a directory", "d");

            before = attributes();
            assertWcc(call(c, Nfs3.RMDIR, new DirOpArgs(root, "d"), new WccRes()).wcc, before, "RMDIR");
        }
    }

    /** Its times before and after, in nanoseconds of ctime. */
    private record Span(long before, long after) {
        static Span of(WccData wcc) {
            assertThat(wcc.before()).as("attributes before").isNotNull();
            return new Span(nanos(wcc.before().ctime()), nanos(wcc.after().ctime()));
        }

        private static long nanos(NfsTime t) {
            return t.seconds() * 1_000_000_000L + t.nseconds();
        }
    }

    /**
     * Four clients create and remove names in one directory at once: ordered by their ctime before, each call's ctime
     * before is the one the call before it left, so no two calls' spans overlap (without the directory's hold, two
     * calls would both see the ctime before either ran).
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"memory", "local"})
    void changesAtOnceOfOneDirectoryAreOrderedByTheirAttributes(String kind) throws Exception {
        FileHandle root = start(kind);
        int clients = 4;
        int names = 60;
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            List<Future<List<Span>>> done = new ArrayList<>();
            for (int t = 0; t < clients; t++) {
                int client = t;
                done.add(pool.submit(() -> {
                    List<Span> spans = new ArrayList<>();
                    try (RpcTcpClient c = RpcTcpClient.connect(address)) {
                        for (int i = 0; i < names; i++) {
                            String name = "c" + client + "-" + i;
                            spans.add(Span.of(call(c, Nfs3.CREATE, new CreateArgs(root, name, CreateMode.GUARDED,
                                    SetAttributes.NONE, 0), new NewObjectRes()).dirWcc));
                            if (i % 2 == 1) {
                                spans.add(Span.of(call(c, Nfs3.REMOVE, new DirOpArgs(root, name), new WccRes()).wcc));
                            }
                        }
                    }
                    return spans;
                }));
            }
            List<Span> all = new ArrayList<>();
            for (Future<List<Span>> f : done) {
                all.addAll(f.get());
            }
            all.sort(Comparator.comparingLong(Span::before).thenComparingLong(Span::after));
            assertThat(all).hasSize(clients * names * 3 / 2);
            for (int i = 1; i < all.size(); i++) {
                assertThat(all.get(i).before()).as("call %d of %d begins where the one before ended: %s after %s", i,
                        all.size(), all.get(i), all.get(i - 1)).isEqualTo(all.get(i - 1).after());
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
