package org.rpcrdma4j.nfs.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.NfsTime;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.client.NfsClient;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.client.v4.Nfs41Client;
import org.rpcrdma4j.nfs.client.v4.Nfs41Options;
import org.rpcrdma4j.nfs.client.v4.Nfs4StatusException;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.vfs.LocalVfs;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.nfs.vfs.Vfs;

/**
 * Callers of different AUTH_SYS identities against one server, as Linux's server treats them: what they make is
 * theirs, the mode bits decide what others may do (the owner of a file may always read and write its data), the
 * sticky bit keeps others from removing what is not theirs, only the owner changes a mode, and root is squashed where
 * the host's spec says so. NFSv3 and NFSv4.1, over TCP.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PermissionsEndToEndTest {
    private static final int ALICE = 1000;
    private static final int BOB = 1001;
    private static final int STAFF = 50;

    @TempDir
    Path temp;

    private final MemoryVfs vfs = new MemoryVfs(16L << 20);
    private NfsServer server;

    @AfterEach
    void stop() throws IOException {
        if (server != null) {
            server.close();
        }
        vfs.close();
    }

    private void serve(Vfs v, ExportClients clients) throws IOException {
        server = NfsServer.builder().bindAddress("127.0.0.1").port(0).export("/e", v, false, clients).build().start();
    }

    private NfsClient v3(int uid, int gid, int... gids) throws IOException {
        return NfsClient.mount("tcp://127.0.0.1:" + server.port() + "/e?vers=3",
                NfsClientConfig.defaults().withIdentity(uid, gid, gids));
    }

    private Nfs41Client v41(int uid, int gid, int... gids) throws IOException {
        return Nfs41Client.mount("tcp://127.0.0.1:" + server.port() + "/e",
                NfsClientConfig.defaults().withIdentity(uid, gid, gids), Nfs41Options.defaults());
    }

    private static void assertStatus(ThrowingRunnable r, Nfs3Status status) {
        assertThatThrownBy(r::run).isInstanceOfSatisfying(NfsException.class,
                e -> assertThat(e.status()).as(e.getMessage()).isEqualTo(status));
    }

    private static void assertNfs4(ThrowingRunnable r, int status) {
        assertThatThrownBy(r::run).isInstanceOfSatisfying(Nfs4StatusException.class,
                e -> assertThat(e.nfs4Status()).as(e.getMessage()).isEqualTo(status));
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static FileHandle put(NfsClient c, FileHandle dir, String name, int mode, String text) throws IOException {
        FileHandle f = c.create(dir, name, CreateMode.GUARDED, SetAttributes.NONE.withMode(mode)).handle();
        c.write(f, 0, Unpooled.wrappedBuffer(bytes(text)), StableHow.FILE_SYNC);
        return f;
    }

    private static FileHandle mkdir(NfsClient c, String name, int mode) throws IOException {
        return c.mkdir(c.root(), name, SetAttributes.NONE.withMode(mode)).handle();
    }

    @Test
    void nfs3CallersGetWhatTheModesGiveThem() throws Exception {
        serve(vfs, ExportClients.everyHost());
        try (NfsClient root = v3(0, 0); NfsClient alice = v3(ALICE, ALICE, STAFF); NfsClient bob = v3(BOB, BOB)) {
            FileHandle shared = mkdir(root, "shared", 0777);
            FileHandle sticky = mkdir(root, "sticky", 01777);
            FileHandle aliceFile = put(alice, shared, "a.txt", 0644, "alice's");
            FileAttributes a = alice.getattr(aliceFile);
            assertThat(a.uid()).as("a file is its maker's").isEqualTo(ALICE);
            assertThat(a.gid()).isEqualTo(ALICE);

            // others read, only the owner writes; the owner writes through a mode without write (as knfsd lets it)
            assertThat(bob.readAll("/shared/a.txt")).isEqualTo(bytes("alice's"));
            assertStatus(() -> bob.write(aliceFile, 0, Unpooled.wrappedBuffer(bytes("bob")), StableHow.FILE_SYNC),
                    Nfs3Status.NFS3ERR_ACCES);
            assertStatus(() -> bob.setattr(aliceFile, SetAttributes.NONE.withSize(0)), Nfs3Status.NFS3ERR_ACCES);
            assertStatus(() -> bob.setattr(aliceFile, SetAttributes.NONE.withMode(0666)), Nfs3Status.NFS3ERR_PERM);
            assertStatus(() -> alice.setattr(aliceFile, SetAttributes.NONE.withOwner(BOB, BOB)),
                    Nfs3Status.NFS3ERR_PERM);
            alice.setattr(aliceFile, SetAttributes.NONE.withMode(0400));
            alice.write(aliceFile, 0, Unpooled.wrappedBuffer(bytes("ALICE'S")), StableHow.FILE_SYNC);
            assertThat(alice.readAll("/shared/a.txt")).isEqualTo(bytes("ALICE'S"));
            assertStatus(() -> bob.readAll("/shared/a.txt"), Nfs3Status.NFS3ERR_ACCES);

            // a group of the caller's, primary or not
            alice.setattr(aliceFile, SetAttributes.NONE.withOwner(ALICE, STAFF).withMode(0640));
            try (NfsClient staff = v3(BOB, BOB, STAFF)) {
                assertThat(staff.readAll("/shared/a.txt")).isEqualTo(bytes("ALICE'S"));
            }
            assertStatus(() -> bob.readAll("/shared/a.txt"), Nfs3Status.NFS3ERR_ACCES);

            // a private directory: no lookup, no listing, no new names
            FileHandle own = alice.mkdir(shared, "own", SetAttributes.NONE.withMode(0700)).handle();
            put(alice, own, "x", 0644, "x");
            assertStatus(() -> bob.lookup(own, "x"), Nfs3Status.NFS3ERR_ACCES);
            assertStatus(() -> bob.readdir(own, 0, 0, 4096), Nfs3Status.NFS3ERR_ACCES);
            assertStatus(() -> bob.create(own, "y", CreateMode.UNCHECKED, SetAttributes.NONE),
                    Nfs3Status.NFS3ERR_ACCES);
            assertStatus(() -> bob.remove(own, "x"), Nfs3Status.NFS3ERR_ACCES);

            // the sticky bit: bob may not remove or rename alice's file, alice may, and bob his own
            put(alice, sticky, "alice", 0666, "a");
            put(bob, sticky, "bob", 0600, "b");
            assertStatus(() -> bob.remove(sticky, "alice"), Nfs3Status.NFS3ERR_PERM);
            assertStatus(() -> bob.rename(sticky, "alice", sticky, "mine"), Nfs3Status.NFS3ERR_PERM);
            assertStatus(() -> bob.rename(sticky, "bob", sticky, "alice"), Nfs3Status.NFS3ERR_PERM);
            bob.remove(sticky, "bob");
            alice.rename(sticky, "alice", shared, "moved");
            // without the sticky bit, write permission on the directory is enough
            bob.remove(shared, "moved");
            // root may do anything
            root.remove(own, "x");
            assertThat(vfs.readdir(vfs.lookup(vfs.root(), "sticky").handle(), 0, 0, 10).entries())
                    .noneMatch(e -> e.name().equals("bob") || e.name().equals("alice"));
        }
    }

    @Test
    void rootIsSquashedWhereTheSpecSaysAndAllSquashMakesEveryoneTheAnonymousUser() throws Exception {
        MemoryVfs squashed = new MemoryVfs(16L << 20);
        try (squashed) {
            FileHandle dir = squashed.mkdir(squashed.root(), "d", SetAttributes.NONE.withMode(0777)).handle();
            squashed.create(dir, "roots", CreateMode.UNCHECKED, SetAttributes.NONE.withMode(0644), 0);
            serve(squashed, ExportClients.parse("127.0.0.1(rw)"));
            try (NfsClient root = v3(0, 0)) {
                FileHandle d = root.resolve("/d");
                FileHandle made = root.create(d, "new", CreateMode.UNCHECKED, SetAttributes.NONE).handle();
                assertThat(root.getattr(made).uid()).as("root acts as nobody").isEqualTo(65534);
                assertThat(root.getattr(made).gid()).isEqualTo(65534);
                FileHandle roots = root.lookup(d, "roots").handle();
                assertStatus(() -> root.write(roots, 0, Unpooled.wrappedBuffer(bytes("x")), StableHow.FILE_SYNC),
                        Nfs3Status.NFS3ERR_ACCES);
                assertStatus(() -> root.mkdir(root.root(), "top", SetAttributes.NONE), Nfs3Status.NFS3ERR_ACCES);
            }
            server.close();
            serve(squashed, ExportClients.parse("127.0.0.1(rw,all_squash,anonuid=1234,anongid=99)"));
            try (NfsClient alice = v3(ALICE, ALICE)) {
                FileHandle made = alice.create(alice.resolve("/d"), "anon", CreateMode.UNCHECKED, SetAttributes.NONE)
                        .handle();
                assertThat(alice.getattr(made).uid()).isEqualTo(1234);
                assertThat(alice.getattr(made).gid()).isEqualTo(99);
            }
        }
    }

    @Test
    void nfs41CallersGetWhatTheModesGiveThem() throws Exception {
        serve(vfs, ExportClients.everyHost());
        try (NfsClient root = v3(0, 0)) {
            mkdir(root, "sticky", 01777);
            mkdir(root, "private", 0700);
        }
        try (Nfs41Client alice = v41(ALICE, ALICE); Nfs41Client bob = v41(BOB, BOB)) {
            alice.writeAll("/sticky/a.txt", bytes("alice's"));
            FileHandle a = alice.resolve("/sticky/a.txt");
            assertThat(alice.getattr(a).uid()).isEqualTo(ALICE);
            alice.setattr(a, SetAttributes.NONE.withMode(0600));
            assertNfs4(() -> bob.readAll("/sticky/a.txt"), Nfs4Status.NFS4ERR_ACCESS);
            assertNfs4(() -> bob.setattr(a, SetAttributes.NONE.withMode(0666)), Nfs4Status.NFS4ERR_PERM);
            FileHandle sticky = bob.resolve("/sticky");
            assertNfs4(() -> bob.remove(sticky, "a.txt"), Nfs4Status.NFS4ERR_PERM);
            assertNfs4(() -> bob.resolve("/private/x"), Nfs4Status.NFS4ERR_ACCESS);
            assertNfs4(() -> bob.writeAll("/private/b.txt", bytes("b")), Nfs4Status.NFS4ERR_ACCESS);
            assertThat(alice.readAll("/sticky/a.txt")).isEqualTo(bytes("alice's"));
            alice.remove(sticky, "a.txt");
        }
    }

    /**
     * LINK asks what Linux's server asks: write and search permission on the directory that gets the name, and
     * nothing of the file, which keeps its owner and mode (another user links a file it cannot read). NFSv3 and
     * NFSv4.1.
     */
    @Test
    void linkNeedsWriteAndSearchOnTheDirectoryAndNothingOfTheFile() throws Exception {
        serve(vfs, ExportClients.everyHost());
        try (NfsClient root = v3(0, 0); NfsClient alice = v3(ALICE, ALICE); NfsClient bob = v3(BOB, BOB);
             Nfs41Client bob4 = v41(BOB, BOB)) {
            FileHandle shared = mkdir(root, "shared", 0777);
            FileHandle closed = mkdir(root, "closed", 0755);
            FileHandle secret = put(alice, shared, "secret", 0600, "alice's");
            assertStatus(() -> bob.link(secret, closed, "x"), Nfs3Status.NFS3ERR_ACCES);
            assertNfs4(() -> bob4.link(secret, closed, "x"), Nfs4Status.NFS4ERR_ACCESS);
            assertStatus(() -> bob.readAll("/shared/secret"), Nfs3Status.NFS3ERR_ACCES);

            bob.link(secret, shared, "bob3");
            bob4.link(secret, shared, "bob4");
            FileAttributes a = alice.getattr(secret);
            assertThat(a.nlink()).isEqualTo(3);
            assertThat(a.uid()).as("still alice's").isEqualTo(ALICE);
            assertThat(a.mode()).isEqualTo(0600);
            assertThat(alice.readAll("/shared/bob4")).isEqualTo(bytes("alice's"));
            assertStatus(() -> bob.readAll("/shared/bob3"), Nfs3Status.NFS3ERR_ACCES);
            root.link(secret, closed, "by-root");
            assertThat(root.readAll("/closed/by-root")).isEqualTo(bytes("alice's"));
        }
    }

    /**
     * What another user's calls must never do to a file they may not write: an UNCHECKED CREATE or OPEN of its name
     * with a size of 0 (a truncation), an EXCLUSIVE create whose verifier matches the file's times (taken for a
     * resend: the file is found, never given away or changed), a chown to the owner it has, a chmod.
     */
    @Test
    void anotherUsersCreatesNeverTruncateChangeOrTakeAFile() throws Exception {
        Path dir = Files.createDirectories(temp.resolve("victim"));
        try (LocalVfs local = LocalVfs.open(dir)) {
            Files.setAttribute(dir, "unix:mode", 0777);
            serve(local, ExportClients.everyHost());
            try (NfsClient alice = v3(ALICE, ALICE); NfsClient bob = v3(BOB, BOB); Nfs41Client bob4 = v41(BOB, BOB)) {
                FileHandle root = alice.root();
                FileHandle full = put(alice, root, "full", 0644, "alice's data");
                FileHandle empty = alice.create(root, "empty", CreateMode.GUARDED, SetAttributes.NONE.withMode(0600))
                        .handle();
                long verifier = 0x1234_5678_0000_4321L;
                NfsTime atime = new NfsTime(0x1234_5678L, 0);
                NfsTime mtime = new NfsTime(0x4321L, 0);
                alice.setattr(empty, SetAttributes.NONE.withAtime(SetAttributes.TimeSetting.client(atime))
                        .withMtime(SetAttributes.TimeSetting.client(mtime)));

                assertStatus(() -> bob.create(root, "full", CreateMode.UNCHECKED, SetAttributes.NONE.withSize(0)),
                        Nfs3Status.NFS3ERR_ACCES);
                assertNfs4(() -> bob4.create(bob4.root(), "full", CreateMode.UNCHECKED,
                        SetAttributes.NONE.withSize(0)), Nfs4Status.NFS4ERR_ACCESS);
                assertThat(Files.readString(dir.resolve("full"))).isEqualTo("alice's data");

                bob.createExclusive(root, "empty", verifier); // a "resend" as far as the protocol can tell
                assertThatThrownBy(() -> bob4.async().create(bob4.root(), "empty", CreateMode.EXCLUSIVE,
                        SetAttributes.NONE.withMode(0666), verifier).get(30, TimeUnit.SECONDS))
                        .isInstanceOfSatisfying(java.util.concurrent.ExecutionException.class,
                                x -> assertThat(((Nfs4StatusException) x.getCause()).nfs4Status())
                                        .isEqualTo(Nfs4Status.NFS4ERR_ACCESS));
                FileAttributes e = alice.getattr(empty);
                assertThat(e.uid()).as("never given away").isEqualTo(alice.getattr(full).uid());
                assertThat(e.mode()).isEqualTo(0600);

                assertStatus(() -> bob.setattr(full, SetAttributes.NONE.withOwner(alice.getattr(full).uid(),
                        alice.getattr(full).gid())), Nfs3Status.NFS3ERR_PERM);
                assertStatus(() -> bob.setattr(full, SetAttributes.NONE.withMode(0666)), Nfs3Status.NFS3ERR_PERM);
                assertThat(Files.readString(dir.resolve("full"))).isEqualTo("alice's data");
            }
        }
    }

    /** A write or truncation by a user that is not root clears setuid (and setgid with group execute). */
    @Test
    void aWriteByAnotherUserClearsSetuid() throws Exception {
        serve(vfs, ExportClients.everyHost());
        try (NfsClient root = v3(0, 0); NfsClient bob = v3(BOB, BOB); Nfs41Client bob4 = v41(BOB, BOB)) {
            FileHandle shared = mkdir(root, "shared", 0777);
            FileHandle prog = put(root, shared, "prog", 06777, "#!");
            root.setattr(prog, SetAttributes.NONE.withMode(06777));
            bob.write(prog, 0, Unpooled.wrappedBuffer(bytes("x")), StableHow.FILE_SYNC);
            assertThat(root.getattr(prog).mode()).isEqualTo(0777);
            root.setattr(prog, SetAttributes.NONE.withMode(04777));
            bob4.writeAll("/shared/prog", bytes("y"));
            assertThat(root.getattr(prog).mode()).isEqualTo(0777);
            root.setattr(prog, SetAttributes.NONE.withMode(04777));
            root.write(prog, 0, Unpooled.wrappedBuffer(bytes("z")), StableHow.FILE_SYNC);
            assertThat(root.getattr(prog).mode()).as("root's writes keep it").isEqualTo(04777);
        }
    }

    /**
     * A directory its caller may read but not search lists names only: NFSv3's READDIRPLUS without handles or
     * attributes, NFSv4's READDIR refused where it asks for more than names and file ids.
     */
    @Test
    void aDirectoryWithoutSearchPermissionListsNamesOnly() throws Exception {
        serve(vfs, ExportClients.everyHost());
        try (NfsClient root = v3(0, 0); NfsClient alice = v3(ALICE, ALICE); NfsClient bob = v3(BOB, BOB);
             Nfs41Client bob4 = v41(BOB, BOB)) {
            FileHandle shared = mkdir(root, "shared", 0777);
            FileHandle d = alice.mkdir(shared, "listable", SetAttributes.NONE.withMode(0755)).handle();
            put(alice, d, "x", 0644, "x");
            alice.setattr(d, SetAttributes.NONE.withMode(0744));
            assertThat(bob.readdir(d, 0, 0, 4096).entries()).extracting(org.rpcrdma4j.nfs.DirEntry::name)
                    .contains("x");
            assertThat(bob.readdirplus(d, 0, 0, 4096, 8192).entries()).filteredOn(e -> e.name().equals("x"))
                    .singleElement().satisfies(e -> {
                        assertThat(e.handle()).isNull();
                        assertThat(e.attributes()).isNull();
                    });
            assertNfs4(() -> bob4.list(d), Nfs4Status.NFS4ERR_ACCESS);
        }
    }

    /** What a user makes is theirs, symbolic links too; a directory made in a setgid directory is setgid. */
    @Test
    void symbolicLinksAndSetgidDirectoriesAreMadeAsLinuxMakesThem() throws Exception {
        serve(vfs, ExportClients.everyHost());
        try (NfsClient root = v3(0, 0); NfsClient alice = v3(ALICE, ALICE, STAFF)) {
            FileHandle group = root.mkdir(root.root(), "group", SetAttributes.NONE.withMode(02777)).handle();
            root.setattr(group, SetAttributes.NONE.withOwner(0, STAFF).withMode(02777));
            FileHandle link = alice.symlink(group, "l", "target").handle();
            assertThat(alice.getattr(link).uid()).isEqualTo(ALICE);
            assertThat(alice.getattr(link).gid()).as("the directory's group").isEqualTo(STAFF);
            FileHandle sub = alice.mkdir(group, "sub", SetAttributes.NONE.withMode(0755)).handle();
            assertThat(alice.getattr(sub).mode()).isEqualTo(02755);
            assertThat(alice.getattr(sub).gid()).isEqualTo(STAFF);
            try (NfsClient bob = v3(BOB, BOB)) {
                FileHandle f = bob.create(group, "f", CreateMode.GUARDED, SetAttributes.NONE.withMode(02775))
                        .handle();
                assertThat(bob.getattr(f).mode()).as("setgid of a group bob is not in").isEqualTo(0775);
            }
        }
    }

    /** NFSv4 checks a write against the file as it is now, through an open too: a mode taken away since holds. */
    @Test
    void nfs41WritesThroughAnOpenMeetTheModeAsItIsNow() throws Exception {
        serve(vfs, ExportClients.everyHost());
        try (NfsClient root = v3(0, 0); Nfs41Client alice = v41(ALICE, ALICE); Nfs41Client bob = v41(BOB, BOB)) {
            mkdir(root, "shared", 0777);
            alice.writeAll("/shared/f", bytes("alice's"));
            FileHandle f = alice.resolve("/shared/f");
            alice.setattr(f, SetAttributes.NONE.withMode(0666));
            FileHandle opened = bob.open(bob.resolve("/shared"), "f", true).handle();
            bob.write(opened, 0, Unpooled.wrappedBuffer(bytes("BOB")), StableHow.FILE_SYNC);
            alice.setattr(f, SetAttributes.NONE.withMode(0644));
            assertNfs4(() -> bob.write(opened, 0, Unpooled.wrappedBuffer(bytes("bob")), StableHow.FILE_SYNC),
                    Nfs4Status.NFS4ERR_ACCESS);
            assertThat(alice.readAll("/shared/f")).isEqualTo(bytes("BOBce's"));
        }
    }

    /** Over a directory, files made by a caller that is not root are the caller's when the server runs as root. */
    @Test
    void aLocalExportGivesNewFilesToTheirMakerWhenTheServerIsRoot() throws Exception {
        Path dir = Files.createDirectories(temp.resolve("local"));
        try (LocalVfs local = LocalVfs.open(dir)) {
            Assumptions.assumeTrue(local.givesOwnership(), "the server's user is not root: files stay its own");
            Files.setAttribute(dir, "unix:mode", 01777); // sticky, as /tmp
            serve(local, ExportClients.everyHost());
            try (NfsClient alice = v3(ALICE, ALICE); NfsClient bob = v3(BOB, BOB)) {
                put(alice, alice.root(), "a.txt", 0644, "alice's");
                Path made = dir.resolve("a.txt");
                assertThat(Files.getAttribute(made, "unix:uid", LinkOption.NOFOLLOW_LINKS)).isEqualTo(ALICE);
                assertThat(Files.getAttribute(made, "unix:gid", LinkOption.NOFOLLOW_LINKS)).isEqualTo(ALICE);
                assertStatus(() -> bob.remove(bob.root(), "a.txt"), Nfs3Status.NFS3ERR_PERM);
                assertThat(Files.readString(made)).isEqualTo("alice's");
            }
        }
    }
}
