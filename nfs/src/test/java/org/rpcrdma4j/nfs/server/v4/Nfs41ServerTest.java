package org.rpcrdma4j.nfs.server.v4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.v4.state.StateConfig;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;

/**
 * The NFSv4.1 server over TCP, driven by a scripted client ({@link V4Script}) that writes RFC 8881's XDR by hand:
 * sessions, the name space, OPEN / WRITE / READ / CLOSE with the bytes compared on both sides, the session's reply
 * cache, two clients, and what bad input gets.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class Nfs41ServerTest {
    static final int FATTR4_TYPE = 1;
    static final int FATTR4_SIZE = 4;
    static final int FATTR4_FILEID = 20;

    private final MemoryVfs vfs = new MemoryVfs();
    private NfsServer server;

    private V4Script connect(StateConfig state) throws Exception {
        if (server == null) {
            server = NfsServer.builder().export("/export", vfs).bindAddress("127.0.0.1").port(0).nfs4(state).build();
            server.start();
        }
        return new V4Script(server.address());
    }

    private V4Script connect() throws Exception {
        return connect(noGrace(Duration.ofSeconds(60)));
    }

    static StateConfig noGrace(Duration lease) {
        StateConfig d = StateConfig.defaults();
        return new StateConfig(lease, Duration.ZERO, d.foreLimits(), d.backLimits(), d.maxSessionsPerClient());
    }

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    /** A client with a session (and RECLAIM_COMPLETE sent): its id, and the next sequence id of slot 0. */
    static final class Client {
        final V4Script script;
        final long clientId;
        final byte[] session;
        int seq;

        Client(V4Script script, long clientId, byte[] session) {
            this.script = script;
            this.clientId = clientId;
            this.session = session;
        }

        /** A COMPOUND that starts with SEQUENCE on slot 0 and the next sequence id. */
        V4Script.Args compound() {
            return new V4Script.Args(1).sequence(session, ++seq, 0, false);
        }

        /** The same of minor version 2 (NFSv4.2). */
        V4Script.Args compound42() {
            return new V4Script.Args(2).sequence(session, ++seq, 0, false);
        }
    }

    static Client session(V4Script s, String owner) throws Exception {
        return session(s, owner, (1 << 20) + 4096, (1 << 20) + 4096, 8192); // 1 MiB and its headers
    }

    /** A client with a session whose fore channel asks for these request, reply and cached reply sizes. */
    static Client session(V4Script s, String owner, int maxRequest, int maxResponse, int maxCached) throws Exception {
        byte[] verifier = Arrays.copyOf(owner.getBytes(StandardCharsets.UTF_8), 8);
        V4Script.Res r = s.call(new V4Script.Args(1).op(Nfs4.OP_EXCHANGE_ID).fixed(verifier)
                .string(owner).word(0).word(0).word(0));
        assertThat(r.status).isZero();
        r.ok(Nfs4.OP_EXCHANGE_ID);
        long clientId = r.hyper();
        int seq = r.word();
        V4Script.Res c = s.call(new V4Script.Args(1).op(Nfs4.OP_CREATE_SESSION).hyper(clientId).word(seq).word(0)
                .word(0).word(maxRequest).word(maxResponse).word(maxCached).word(16).word(8).word(0)
                .word(0).word(4096).word(4096).word(0).word(8).word(1).word(0)
                .word(0x40000000).word(1).word(0));
        assertThat(c.status).as(Nfs4Status.name(c.status)).isZero();
        c.ok(Nfs4.OP_CREATE_SESSION);
        Client client = new Client(s, clientId, c.fixed(Nfs4.SESSIONID_SIZE));
        // nothing to reclaim: a client says so before it opens anything (RFC 8881 section 18.51.3)
        V4Script.Res done = s.call(client.compound().op(Nfs4.OP_RECLAIM_COMPLETE).word(0));
        assertThat(done.status).as(Nfs4Status.name(done.status)).isZero();
        return client;
    }

    /**
     * OPEN UNCHECKED4 with a size of 0 (a truncating open) of a file another client opened denying writes: refused,
     * and the file keeps its bytes. The truncation used to run before the share reservations were checked.
     */
    @Test
    void aTruncatingOpenThatIsShareDeniedLeavesTheFileAlone() throws Exception {
        try (V4Script a = connect(); V4Script b = connect()) {
            Client ca = session(a, "truncate-a");
            Client cb = session(b, "truncate-b");
            byte[] root = exportRoot(ca);
            // A: OPEN4_CREATE UNCHECKED4 of f, access BOTH, deny WRITE; then 10 bytes written
            V4Script.Res r = a.call(ca.compound().putfh(root).op(Nfs4.OP_OPEN).word(0).word(3).word(2)
                    .hyper(ca.clientId).string("owner-a").word(1).word(0).bitmap().word(0)
                    .word(0).string("f").op(Nfs4.OP_GETFH));
            assertThat(r.status).as(Nfs4Status.name(r.status)).isZero();
            r.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_OPEN);
            byte[] stateid = r.fixed(16);
            r.word();
            r.hyper();
            r.hyper();
            r.word();
            r.bitmap();
            r.word();
            r.ok(Nfs4.OP_GETFH);
            byte[] fh = r.opaque();
            a.call(ca.compound().putfh(fh).op(Nfs4.OP_WRITE).stateid(stateid).hyper(0).word(2)
                    .opaque(new byte[10])).sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_WRITE);

            // B: OPEN4_CREATE UNCHECKED4 of f with a size of 0, access BOTH
            V4Script.Res t = b.call(cb.compound().putfh(root).op(Nfs4.OP_OPEN).word(0).word(3).word(0)
                    .hyper(cb.clientId).string("owner-b").word(1).word(0).bitmap(FATTR4_SIZE)
                    .opaque(new byte[8]).word(0).string("f"));
            t.sequenceOk().ok(Nfs4.OP_PUTFH);
            assertThat(Nfs4Status.name(t.next(Nfs4.OP_OPEN))).isEqualTo("NFS4ERR_SHARE_DENIED");

            V4Script.Res g = a.call(ca.compound().putfh(fh).op(Nfs4.OP_GETATTR).bitmap(FATTR4_SIZE));
            g.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_GETATTR);
            g.bitmap();
            g.word();
            assertThat(g.hyper()).as("the size of the file opened denying writes").isEqualTo(10);
        }
    }

    /** A lent buffer whose release fails, as one a file system releases twice. */
    private static final class FailingRelease extends io.netty.buffer.UnpooledHeapByteBuf {
        FailingRelease(byte[] bytes) {
            super(io.netty.buffer.ByteBufAllocator.DEFAULT, bytes, bytes.length);
            writerIndex(bytes.length);
        }

        @Override
        public boolean release() {
            throw new IllegalStateException("a lent buffer whose release fails");
        }
    }

    /**
     * A READ whose reply is cached, from a file system whose lent buffer cannot be released: the session's slot still
     * finishes, so a retry is answered from the cache and the next request goes through. It used to stay in use for
     * good (every request on it NFS4ERR_DELAY), and the client never expired.
     */
    @Test
    void aLentBufferWhoseReleaseFailsDoesNotKeepTheSlot() throws Exception {
        java.util.concurrent.atomic.AtomicBoolean failNextLend = new java.util.concurrent.atomic.AtomicBoolean();
        org.rpcrdma4j.nfs.vfs.Vfs lending = (org.rpcrdma4j.nfs.vfs.Vfs) java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {org.rpcrdma4j.nfs.vfs.Vfs.class}, (proxy, m, args) -> {
                    if (m.getName().equals("lend") && failNextLend.getAndSet(false)) {
                        return new org.rpcrdma4j.nfs.vfs.LentRange(
                                new FailingRelease("hello".getBytes(StandardCharsets.US_ASCII)), true);
                    }
                    try {
                        return m.invoke(vfs, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        server = NfsServer.builder().export("/export", lending).bindAddress("127.0.0.1").port(0)
                .nfs4(noGrace(Duration.ofSeconds(60))).build();
        server.start();
        try (V4Script s = new V4Script(server.address())) {
            Client c = session(s, "release-fails");
            byte[][] open = create(c, exportRoot(c), "f");
            failNextLend.set(true);
            int seq = ++c.seq;
            V4Script.Res read = s.call(new V4Script.Args(1).sequence(c.session, seq, 0, true).putfh(open[1])
                    .op(Nfs4.OP_READ).stateid(open[0]).hyper(0).word(5));
            assertThat(read.status).as(Nfs4Status.name(read.status)).isZero();

            V4Script.Res retry = s.call(new V4Script.Args(1).sequence(c.session, seq, 0, true).putfh(open[1])
                    .op(Nfs4.OP_READ).stateid(open[0]).hyper(0).word(5));
            assertThat(Nfs4Status.name(retry.status)).as("the retry, answered from the slot's cache").isEqualTo("NFS4_OK");
            c.seq = seq;
            V4Script.Res next = s.call(c.compound().putfh(open[1]));
            assertThat(Nfs4Status.name(next.status)).isEqualTo("NFS4_OK");
            assertThat(server.nfs4().clients().session(c.session).slots().inProgress()).isZero();
        }
    }

    /**
     * READDIR of the pseudo file system's root with a cookie far past its listing (as a hostile or confused client
     * may send): an empty listing that ends, not NFS4ERR_SERVERFAULT (the cookie was cut to a negative int index).
     */
    @Test
    void aPseudoDirectoryReadFromACookiePastItsEndListsNothing() throws Exception {
        try (V4Script s = connect()) {
            Client c = session(s, "far-cookie");
            for (long cookie : new long[] {0x1_0000_0005L, 0x8000_0000L + 2, 1000}) {
                V4Script.Res r = s.call(c.compound().op(Nfs4.OP_PUTROOTFH).op(Nfs4.OP_READDIR).hyper(cookie)
                        .fixed(new byte[8]).word(4096).word(4096).bitmap(FATTR4_TYPE));
                r.sequenceOk().ok(Nfs4.OP_PUTROOTFH);
                assertThat(Nfs4Status.name(r.next(Nfs4.OP_READDIR))).as("cookie %x", cookie).isEqualTo("NFS4_OK");
                r.fixed(8);
                assertThat(r.word()).as("entries from cookie %x", cookie).isZero();
                assertThat(r.word()).as("eof").isEqualTo(1);
            }
        }
    }

    /**
     * A LOCK denied by another client's lock, whose owner's name the denial carries, on a session that allows replies
     * of 300 bytes: NFS4ERR_REP_TOO_BIG instead of a reply larger than the session allows (the denial's size was
     * never checked against it).
     */
    @Test
    void aLockDenialLargerThanTheSessionsRepliesIsRepTooBig() throws Exception {
        try (V4Script a = connect(); V4Script b = connect()) {
            Client holder = session(a, "long-owner");
            Client asker = session(b, "small-replies", 4096, 300, 300);
            byte[] root = exportRoot(holder);
            byte[][] held = create(holder, root, "locked");
            byte[][] wanted = create(asker, root, "locked");
            V4Script.Res l = a.call(lockNew(holder, held, 2, 0, 100, "o".repeat(1000)));
            l.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_LOCK);

            byte[] body = b.callRaw(lockNew(asker, wanted, 2, 0, 100, "pid-b").bytes(), b.nextXid());
            V4Script.Res d = new V4Script.Res(body);
            d.sequenceOk().ok(Nfs4.OP_PUTFH);
            assertThat(Nfs4Status.name(d.next(Nfs4.OP_LOCK))).isEqualTo("NFS4ERR_REP_TOO_BIG");
            assertThat(body.length + 24).as("the reply, with its RPC header").isLessThanOrEqualTo(300);
        }
    }

    /** PUTROOTFH, LOOKUP export, GETFH: the export's root handle. */
    static byte[] exportRoot(Client c) throws Exception {
        V4Script.Res r = c.script.call(c.compound().op(Nfs4.OP_PUTROOTFH).op(Nfs4.OP_LOOKUP).string("export")
                .op(Nfs4.OP_GETFH));
        assertThat(r.status).as(Nfs4Status.name(r.status)).isZero();
        r.sequenceOk().ok(Nfs4.OP_PUTROOTFH).ok(Nfs4.OP_LOOKUP).ok(Nfs4.OP_GETFH);
        return r.opaque();
    }

    /**
     * OPEN (create, unchecked, read and write) of {@code name} in {@code dir}, then GETFH: the reply, read up to the
     * OPEN's result.
     */
    static V4Script.Res openCreate(Client c, byte[] dir, String name) throws Exception {
        V4Script.Res r = c.script.call(c.compound().putfh(dir).op(Nfs4.OP_OPEN).word(0).word(3).word(0)
                .hyper(c.clientId).string("owner-" + name).word(1).word(0).bitmap().word(0)
                .word(0).string(name).op(Nfs4.OP_GETFH));
        assertThat(r.status).as(Nfs4Status.name(r.status)).isZero();
        return r.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_OPEN);
    }

    /** OPEN (create, unchecked, read and write) of {@code name} in {@code dir}: its stateid and handle. */
    static byte[][] create(Client c, byte[] dir, String name) throws Exception {
        V4Script.Res r = openCreate(c, dir, name);
        byte[] stateid = r.fixed(16);
        r.word();
        r.hyper();
        r.hyper(); // change_info4
        assertThat(r.word()).as("rflags: OPEN4_RESULT_LOCKTYPE_POSIX").isEqualTo(4);
        r.bitmap();
        assertThat(r.word()).as("no delegation").isZero();
        r.ok(Nfs4.OP_GETFH);
        return new byte[][] {stateid, r.opaque()};
    }

    /**
     * The change attribute is the ctime, and says so (change_attr_type, RFC 7862 section 12.2.3): a Linux client that
     * is told nothing (UNDEFINED) takes the attributes of the last of several WRITE replies that crossed as stale,
     * then the next GETATTR's change as a change by someone else, and drops its cache of a file it just wrote.
     */
    @Test
    void theChangeAttributeIsDeclaredTheCtime() throws Exception {
        try (V4Script s = connect()) {
            Client c = session(s, "client-change-type");
            byte[] root = exportRoot(c);
            byte[] file = create(c, root, "typed")[1];
            for (byte[] fh : new byte[][] {root, file}) {
                V4Script.Res r = s.call(c.compound42().putfh(fh).op(Nfs4.OP_GETATTR).bitmap(79)); // a 4.2 attribute
                r.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_GETATTR);
                assertThat(r.bitmap()).containsExactly(0, 0, 1 << (79 - 64));
                assertThat(r.word()).as("attribute bytes").isEqualTo(4);
                assertThat(r.word()).as("NFS4_CHANGE_TYPE_IS_TIME_METADATA").isEqualTo(3);
            }
        }
    }

    @Test
    void openTakesTheWantFlagsOfShareAccessAndUsesOnlyItsAccessBits() throws Exception {
        try (V4Script s = connect()) {
            Client c = session(s, "client-want");
            byte[] root = exportRoot(c);
            byte[][] created = create(c, root, "wanted");
            s.call(c.compound().putfh(created[1]).op(Nfs4.OP_CLOSE).word(0).stateid(created[0])).sequenceOk()
                    .ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_CLOSE);
            // OPEN4_SHARE_ACCESS_READ with OPEN4_SHARE_ACCESS_WANT_NO_DELEG (0x0400), by handle, as our client sends
            V4Script.Res r = s.call(c.compound().putfh(created[1]).op(Nfs4.OP_OPEN).word(0).word(0x0401).word(0)
                    .hyper(c.clientId).string("reader").word(0).word(4));
            assertThat(r.status).as(Nfs4Status.name(r.status)).isZero();
            r.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_OPEN);
            byte[] reader = r.fixed(16);
            r.word();
            r.hyper();
            r.hyper(); // change_info4
            r.word(); // rflags
            r.bitmap();
            assertThat(r.word()).as("no delegation: OPEN_DELEGATE_NONE_EXT").isEqualTo(3);
            assertThat(r.word()).as("WND4_NOT_WANTED").isZero();

            V4Script.Res read = s.call(c.compound().putfh(created[1]).op(Nfs4.OP_READ).stateid(reader).hyper(0)
                    .word(10));
            read.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_READ);
            V4Script.Res write = s.call(c.compound().putfh(created[1]).op(Nfs4.OP_WRITE).stateid(reader).hyper(0)
                    .word(2).opaque(new byte[] {1}));
            write.sequenceOk().ok(Nfs4.OP_PUTFH);
            assertThat(write.next(Nfs4.OP_WRITE)).as("the open is for reading only: the want flag is no access bit")
                    .isEqualTo(Nfs4Status.NFS4ERR_OPENMODE);
        }
    }

    @Test
    void aClientMakesASessionOpensWritesReadsAndClosesAndTheBytesArriveWhole() throws Exception {
        try (V4Script s = connect()) {
            Client c = session(s, "client-a");
            byte[] root = exportRoot(c);
            byte[][] open = create(c, root, "file");
            byte[] data = new byte[100_000 + 3];
            new Random(7).nextBytes(data);
            V4Script.Res w = s.call(c.compound().putfh(open[1]).op(Nfs4.OP_WRITE).stateid(open[0]).hyper(0).word(2)
                    .opaque(data));
            w.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_WRITE);
            assertThat(w.word()).as("count").isEqualTo(data.length);
            assertThat(w.word()).as("committed FILE_SYNC4").isEqualTo(2);

            V4Script.Res r = s.call(c.compound().putfh(open[1]).op(Nfs4.OP_READ).stateid(open[0]).hyper(0)
                    .word(1 << 20).op(Nfs4.OP_GETATTR).bitmap(FATTR4_TYPE, FATTR4_SIZE));
            r.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_READ);
            assertThat(r.word()).as("eof").isEqualTo(1);
            assertThat(r.opaque()).isEqualTo(data);
            r.ok(Nfs4.OP_GETATTR);
            assertThat(r.bitmap()).containsExactly((1 << FATTR4_TYPE) | (1 << FATTR4_SIZE));
            assertThat(r.word()).as("attrlist4 length").isEqualTo(12);
            assertThat(r.word()).as("NF4REG").isEqualTo(1);
            assertThat(r.hyper()).isEqualTo(data.length);

            // the bytes in the server's file system
            FileHandle inner = vfs.lookup(vfs.root(), "file").handle();
            ByteBuffer back = ByteBuffer.allocate(data.length + 10);
            vfs.read(inner, 0, back);
            back.flip();
            byte[] stored = new byte[back.remaining()];
            back.get(stored);
            assertThat(stored).isEqualTo(data);

            V4Script.Res cl = s.call(c.compound().putfh(open[1]).op(Nfs4.OP_CLOSE).word(0).stateid(open[0]));
            cl.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_CLOSE);
            V4Script.Res after = s.call(c.compound().putfh(open[1]).op(Nfs4.OP_READ).stateid(open[0]).hyper(0)
                    .word(10));
            after.sequenceOk().ok(Nfs4.OP_PUTFH);
            assertThat(after.next(Nfs4.OP_READ)).as("READ with a closed stateid")
                    .isEqualTo(Nfs4Status.NFS4ERR_BAD_STATEID);
        }
    }

    /** The file sizes every transfer test moves. */
    static final int[] FILE_SET = {0, 1, 4097, (1 << 20) + 1, 16 << 20};
    /** READs of 512 KiB: the scripted TCP client takes records of up to 1 MiB. */
    static final int READ_SIZE = 512 << 10;

    /**
     * Creates each file of {@link #FILE_SET} in {@code dir}, writes it in WRITEs of at most 1 MiB (UNSTABLE, then
     * COMMIT), reads it back in READs of {@link #READ_SIZE} and compares; returns the bytes written, by name.
     */
    static java.util.Map<String, byte[]> writeAndReadBack(Client c, byte[] dir) throws Exception {
        java.util.Map<String, byte[]> files = new java.util.TreeMap<>();
        for (int size : FILE_SET) {
            String name = "set-" + size;
            byte[] data = new byte[size];
            new Random(size * 7L + 1).nextBytes(data);
            byte[][] open = create(c, dir, name);
            for (int at = 0; at < size; at += 1 << 20) {
                byte[] piece = Arrays.copyOfRange(data, at, Math.min(size, at + (1 << 20)));
                V4Script.Res w = c.script.call(c.compound().putfh(open[1]).op(Nfs4.OP_WRITE).stateid(open[0])
                        .hyper(at).word(0).opaque(piece));
                w.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_WRITE);
                assertThat(w.word()).as("%s: bytes written at %d", name, at).isEqualTo(piece.length);
            }
            c.script.call(c.compound().putfh(open[1]).op(Nfs4.OP_COMMIT).hyper(0).word(0)).sequenceOk()
                    .ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_COMMIT);
            java.io.ByteArrayOutputStream back = new java.io.ByteArrayOutputStream();
            boolean eof = false;
            while (!eof) {
                V4Script.Res r = c.script.call(c.compound().putfh(open[1]).op(Nfs4.OP_READ).stateid(open[0])
                        .hyper(back.size()).word(READ_SIZE));
                r.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_READ);
                eof = r.word() == 1;
                byte[] got = r.opaque();
                back.write(got);
                assertThat(eof || got.length > 0).as("a READ short of the end returns bytes").isTrue();
            }
            assertThat(back.toByteArray()).as("%s read back", name).isEqualTo(data);
            c.script.call(c.compound().putfh(open[1]).op(Nfs4.OP_CLOSE).word(0).stateid(open[0])).sequenceOk()
                    .ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_CLOSE);
            files.put(name, data);
        }
        return files;
    }

    /** Each file's bytes as the server's file system holds them. */
    static void assertStored(MemoryVfs vfs, java.util.Map<String, byte[]> files) throws Exception {
        for (java.util.Map.Entry<String, byte[]> f : files.entrySet()) {
            FileHandle inner = vfs.lookup(vfs.root(), f.getKey()).handle();
            ByteBuffer stored = ByteBuffer.allocate(f.getValue().length + 1);
            vfs.read(inner, 0, stored);
            stored.flip();
            byte[] b = new byte[stored.remaining()];
            stored.get(b);
            assertThat(b).as("%s in the server's file system", f.getKey()).isEqualTo(f.getValue());
        }
    }

    @Test
    void theFileSetIsWrittenAndReadBackWhole() throws Exception {
        try (V4Script s = connect()) {
            Client c = session(s, "client-set");
            assertStored(vfs, writeAndReadBack(c, exportRoot(c)));
        }
    }

    @Test
    void aRetransmittedRequestOfASlotGetsTheCachedReplyAndRunsOnce() throws Exception {
        try (V4Script s = connect()) {
            Client c = session(s, "client-r");
            byte[] root = exportRoot(c);
            byte[][] open = create(c, root, "victim");
            s.call(c.compound().putfh(open[1]).op(Nfs4.OP_CLOSE).word(0).stateid(open[0]));
            byte[] remove = new V4Script.Args(1).sequence(c.session, ++c.seq, 0, true).putfh(root)
                    .op(Nfs4.OP_REMOVE).string("victim").bytes();
            byte[] first = s.callRaw(remove, s.nextXid());
            assertThat(new V4Script.Res(first).status).isZero();
            // the reply was lost: the client sends the same request again (a new xid, as after a reconnect)
            byte[] again = s.callRaw(remove, s.nextXid());
            assertThat(again).as("the cached reply, not NFS4ERR_NOENT").isEqualTo(first);

            // an older sequence id is misordered; a retry of an uncached request says so
            V4Script.Res old = s.call(new V4Script.Args(1).sequence(c.session, c.seq - 1, 0, false));
            assertThat(old.next(Nfs4.OP_SEQUENCE)).isEqualTo(Nfs4Status.NFS4ERR_SEQ_MISORDERED);
            byte[] uncached = new V4Script.Args(1).sequence(c.session, ++c.seq, 0, false).putfh(root).bytes();
            assertThat(new V4Script.Res(s.callRaw(uncached, s.nextXid())).status).isZero();
            V4Script.Res retry = new V4Script.Res(s.callRaw(uncached, s.nextXid()));
            assertThat(retry.next(Nfs4.OP_SEQUENCE)).isEqualTo(Nfs4Status.NFS4ERR_RETRY_UNCACHED_REP);
            V4Script.Res bad = s.call(new V4Script.Args(1).sequence(c.session, c.seq + 1, 9999, false));
            assertThat(bad.next(Nfs4.OP_SEQUENCE)).isEqualTo(Nfs4Status.NFS4ERR_BADSLOT);
        }
    }

    /**
     * A request that reuses a slot's sequence id but is not the request the slot carried (fewer operations, another
     * user) gets NFS4ERR_SEQ_FALSE_RETRY, as from Linux's server, never the other request's cached reply; the real
     * retry still gets it.
     */
    @Test
    void aFalseRetryIsRefusedAndNeverGetsAnotherRequestsCachedReply() throws Exception {
        try (V4Script s = connect()) {
            Client c = session(s, "client-f");
            byte[] root = exportRoot(c);
            byte[] getfh = new V4Script.Args(1).sequence(c.session, ++c.seq, 0, true).putfh(root)
                    .op(Nfs4.OP_GETFH).bytes();
            byte[] first = s.callRaw(getfh, s.nextXid());
            assertThat(new V4Script.Res(first).status).isZero();

            byte[] fewer = new V4Script.Args(1).sequence(c.session, c.seq, 0, true).putfh(root).bytes();
            V4Script.Res shorter = new V4Script.Res(s.callRaw(fewer, s.nextXid()));
            assertThat(Nfs4Status.name(shorter.next(Nfs4.OP_SEQUENCE))).isEqualTo("NFS4ERR_SEQ_FALSE_RETRY");
            s.send(org.rpcrdma4j.xprt.drc.Calls.call(s.nextXid(), Nfs4.PROGRAM, Nfs4.VERSION, Nfs4.PROC_COMPOUND,
                    org.rpcrdma4j.xprt.drc.Calls.unix(1000), new Nfs4Program.Raw(getfh)));
            byte[] reply = s.receive();
            V4Script.Res otherUser = new V4Script.Res(Arrays.copyOfRange(reply,
                    org.rpcrdma4j.xprt.drc.Calls.REPLY_HEADER, reply.length));
            assertThat(Nfs4Status.name(otherUser.next(Nfs4.OP_SEQUENCE))).isEqualTo("NFS4ERR_SEQ_FALSE_RETRY");

            assertThat(s.callRaw(getfh, s.nextXid())).as("the retry itself: the cached reply").isEqualTo(first);
        }
    }

    @Test
    void twoClientsHaveTheirOwnSessionsAndCannotUseEachOthersState() throws Exception {
        try (V4Script a = connect(); V4Script b = connect()) {
            Client ca = session(a, "client-one");
            Client cb = session(b, "client-two");
            assertThat(ca.clientId).isNotEqualTo(cb.clientId);
            assertThat(ca.session).isNotEqualTo(cb.session);
            byte[] root = exportRoot(ca);
            byte[][] open = create(ca, root, "mine");
            V4Script.Res r = b.call(cb.compound().putfh(open[1]).op(Nfs4.OP_WRITE).stateid(open[0]).hyper(0).word(2)
                    .opaque(new byte[] {1, 2, 3}));
            r.sequenceOk().ok(Nfs4.OP_PUTFH);
            assertThat(r.next(Nfs4.OP_WRITE)).as("another client's stateid").isEqualTo(Nfs4Status.NFS4ERR_BAD_STATEID);
        }
    }

    @Test
    void byteRangeLocksConflictBetweenClientsAndTheirStateidsServeForIo() throws Exception {
        try (V4Script a = connect(); V4Script b = connect()) {
            Client ca = session(a, "locker-a");
            Client cb = session(b, "locker-b");
            byte[] root = exportRoot(ca);
            byte[][] openA = create(ca, root, "shared");
            byte[][] openB = create(cb, root, "shared");
            byte[] current = {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};

            // a WRITE lock of bytes 0-99 for a new lock owner, then a WRITE through the current stateid: LOCK's
            V4Script.Res l = a.call(lockNew(ca, openA, 2, 0, 100, "pid-a")
                    .op(Nfs4.OP_WRITE).stateid(current).hyper(0).word(2).opaque(new byte[] {7, 7, 7}));
            assertThat(l.status).as(Nfs4Status.name(l.status)).isZero();
            l.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_LOCK);
            byte[] lockStateid = l.fixed(16);
            assertThat(Arrays.copyOf(lockStateid, 4)).as("seqid 1").containsExactly(0, 0, 0, 1);
            assertThat(Arrays.copyOfRange(lockStateid, 4, 16)).isNotEqualTo(Arrays.copyOfRange(openA[0], 4, 16));
            l.ok(Nfs4.OP_WRITE);
            assertThat(l.word()).isEqualTo(3);

            // the other client's READ lock over byte 50 is denied, naming the lock in its way
            V4Script.Res denied = b.call(lockNew(cb, openB, 1, 50, 10, "pid-b"));
            denied.sequenceOk().ok(Nfs4.OP_PUTFH);
            assertThat(denied.next(Nfs4.OP_LOCK)).isEqualTo(Nfs4Status.NFS4ERR_DENIED);
            assertThat(denied.hyper()).as("offset").isZero();
            assertThat(denied.hyper()).as("length").isEqualTo(100);
            assertThat(denied.word()).as("WRITE_LT").isEqualTo(2);
            assertThat(denied.hyper()).as("owner's client").isEqualTo(ca.clientId);
            assertThat(new String(denied.opaque(), StandardCharsets.UTF_8)).isEqualTo("pid-a");

            // LOCKT: past the lock is free, within it is not
            V4Script.Res free = b.call(cb.compound().putfh(openB[1]).op(Nfs4.OP_LOCKT).word(2).hyper(100)
                    .hyper(-1L).hyper(cb.clientId).string("pid-b"));
            free.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_LOCKT);
            V4Script.Res taken = b.call(cb.compound().putfh(openB[1]).op(Nfs4.OP_LOCKT).word(1).hyper(99)
                    .hyper(1).hyper(cb.clientId).string("pid-b"));
            taken.sequenceOk().ok(Nfs4.OP_PUTFH);
            assertThat(taken.next(Nfs4.OP_LOCKT)).isEqualTo(Nfs4Status.NFS4ERR_DENIED);

            // LOCKU: a new seqid, which FREE_STATEID frees as the current stateid (as knfsd takes it there); then the
            // other client gets its lock, and the freed stateid is gone
            V4Script.Res u = a.call(ca.compound().putfh(openA[1]).op(Nfs4.OP_LOCKU).word(2).word(0)
                    .stateid(lockStateid).hyper(0).hyper(100).op(Nfs4.OP_FREE_STATEID).stateid(current));
            u.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_LOCKU);
            byte[] unlocked = u.fixed(16);
            assertThat(Arrays.copyOf(unlocked, 4)).as("seqid 2").containsExactly(0, 0, 0, 2);
            u.ok(Nfs4.OP_FREE_STATEID);
            V4Script.Res got = b.call(lockNew(cb, openB, 1, 50, 10, "pid-b"));
            got.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_LOCK);
            V4Script.Res freed = a.call(ca.compound().op(Nfs4.OP_TEST_STATEID).word(1).stateid(unlocked)
                    .op(Nfs4.OP_FREE_STATEID).stateid(unlocked));
            freed.sequenceOk().ok(Nfs4.OP_TEST_STATEID);
            assertThat(freed.word()).isEqualTo(1);
            assertThat(freed.word()).isEqualTo(Nfs4Status.NFS4ERR_BAD_STATEID);
            assertThat(Nfs4Status.name(freed.next(Nfs4.OP_FREE_STATEID))).as("freed once")
                    .isEqualTo("NFS4ERR_BAD_STATEID");
        }
    }

    @Test
    void withoutCourtesyAClientThatVanishesLosesItsLocksWhenItsLeaseRunsOutThoughNoOneAsksAfterIt() throws Exception {
        try (V4Script a = connect(noGrace(Duration.ofSeconds(1)).withCourtesyTime(Duration.ZERO));
             V4Script b = connect()) {
            Client ca = session(a, "vanishing");
            Client cb = session(b, "staying");
            byte[] root = exportRoot(ca);
            byte[][] openA = create(ca, root, "contended");
            byte[][] openB = create(cb, root, "contended");
            V4Script.Res l = a.call(lockNew(ca, openA, 2, 0, -1L, "pid-a"));
            l.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_LOCK);
            V4Script.Res denied = b.call(lockNew(cb, openB, 2, 0, 10, "pid-b"));
            denied.sequenceOk().ok(Nfs4.OP_PUTFH);
            assertThat(denied.next(Nfs4.OP_LOCK)).isEqualTo(Nfs4Status.NFS4ERR_DENIED);

            // the first client says nothing more; the second keeps its lease and, after a while, asks again
            keepRenewing(b, cb, 3000);
            assertThat(server.nfs4().clientsExpired()).as("expired by the server's timer").isEqualTo(1);
            V4Script.Res got = b.call(lockNew(cb, openB, 2, 0, 10, "pid-b"));
            got.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_LOCK);
            V4Script.Res gone = a.call(ca.compound().op(Nfs4.OP_PUTROOTFH));
            assertThat(gone.next(Nfs4.OP_SEQUENCE)).isEqualTo(Nfs4Status.NFS4ERR_BADSESSION);
        }
    }

    /**
     * A courteous server, as Linux's: a client silent for longer than its lease keeps its lock and session, and
     * carries on when it comes back; once it is silent again, another client's conflicting LOCK takes its state.
     */
    @Test
    void aClientCutOffPastItsLeaseCarriesOnAndItsLockGoesOnlyWhenAnotherClientWantsIt() throws Exception {
        try (V4Script a = connect(noGrace(Duration.ofSeconds(1))); V4Script b = connect()) {
            Client ca = session(a, "cut-off");
            Client cb = session(b, "always-there");
            byte[] root = exportRoot(ca);
            byte[][] openA = create(ca, root, "shared-lock");
            byte[][] openB = create(cb, root, "shared-lock");
            V4Script.Res l = a.call(lockNew(ca, openA, 2, 0, -1L, "pid-a"));
            l.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_LOCK);
            byte[] lock = l.fixed(16);
            keepRenewing(b, cb, 2500); // a says nothing for two and a half leases
            assertThat(server.nfs4().clients().courtesyClients()).isEqualTo(1);

            V4Script.Res back = a.call(ca.compound().putfh(openA[1]).op(Nfs4.OP_WRITE).stateid(lock).hyper(0)
                    .word(2).opaque(new byte[] {4, 2}));
            back.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_WRITE);
            V4Script.Res stillDenied = b.call(lockNew(cb, openB, 2, 0, 10, "pid-b"));
            stillDenied.sequenceOk().ok(Nfs4.OP_PUTFH);
            assertThat(stillDenied.next(Nfs4.OP_LOCK)).as("a is back: its lock holds").isEqualTo(Nfs4Status.NFS4ERR_DENIED);

            keepRenewing(b, cb, 2500);
            V4Script.Res got = b.call(lockNew(cb, openB, 2, 0, 10, "pid-b"));
            got.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_LOCK);
            assertThat(server.nfs4().clients().courtesyYielded()).isEqualTo(1);
            assertThat(server.nfs4().clientsExpired()).as("not by the timer").isZero();
            assertThat(a.call(ca.compound().op(Nfs4.OP_PUTROOTFH)).next(Nfs4.OP_SEQUENCE))
                    .isEqualTo(Nfs4Status.NFS4ERR_BADSESSION);
        }
    }

    /**
     * A COMPOUND of {@code c} that locks a range of its open {@code open} (stateid, handle) of {@code type} for a new
     * lock owner {@code pid}; more operations may follow.
     */
    static V4Script.Args lockNew(Client c, byte[][] open, int type, long offset, long length, String pid) {
        return c.compound().putfh(open[1]).op(Nfs4.OP_LOCK).word(type).word(0).hyper(offset).hyper(length).word(1)
                .word(0).stateid(open[0]).word(0).hyper(c.clientId).string(pid);
    }

    /** SEQUENCEs of {@code c} every 300 ms for {@code millis}: its lease keeps running while another's runs out. */
    private static void keepRenewing(V4Script s, Client c, long millis) throws Exception {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (System.nanoTime() - until < 0) {
            s.call(c.compound().op(Nfs4.OP_PUTROOTFH)).sequenceOk();
            Thread.sleep(300);
        }
    }

    @Test
    void aFileSystemThatThrowsAnErrorFailsTheOperationAndTheSlotServesOn() throws Exception {
        java.util.concurrent.atomic.AtomicBoolean armed = new java.util.concurrent.atomic.AtomicBoolean();
        org.rpcrdma4j.nfs.vfs.Vfs throwing = (org.rpcrdma4j.nfs.vfs.Vfs) java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {org.rpcrdma4j.nfs.vfs.Vfs.class}, (proxy, m, a) -> {
                    if (m.getName().equals("write") && armed.getAndSet(false)) {
                        throw new StackOverflowError("a file system's bug");
                    }
                    try {
                        return m.invoke(vfs, a);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        server = NfsServer.builder().export("/export", throwing).bindAddress("127.0.0.1").port(0)
                .nfs4(noGrace(Duration.ofSeconds(1)).withCourtesyTime(Duration.ZERO)).build();
        server.start();
        try (V4Script s = new V4Script(server.address())) {
            Client c = session(s, "client-error");
            byte[][] open = create(c, exportRoot(c), "f");
            armed.set(true);
            V4Script.Res failed = s.call(c.compound().putfh(open[1]).op(Nfs4.OP_WRITE).stateid(open[0]).hyper(0)
                    .word(2).opaque(new byte[] {1, 2, 3}));
            failed.sequenceOk().ok(Nfs4.OP_PUTFH);
            assertThat(failed.next(Nfs4.OP_WRITE)).isEqualTo(Nfs4Status.NFS4ERR_SERVERFAULT);
            V4Script.Res again = s.call(new V4Script.Args(1).sequence(c.session, c.seq, 0, false)
                    .putfh(open[1]).op(Nfs4.OP_WRITE).stateid(open[0]).hyper(0).word(2).opaque(new byte[] {1}));
            assertThat(again.next(Nfs4.OP_SEQUENCE)).as("the retry finds the slot finished, its reply not kept")
                    .isEqualTo(Nfs4Status.NFS4ERR_RETRY_UNCACHED_REP);
            V4Script.Res next = s.call(c.compound().putfh(open[1]).op(Nfs4.OP_WRITE).stateid(open[0]).hyper(0)
                    .word(2).opaque(new byte[] {4, 5, 6}));
            next.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_WRITE);
            assertThat(server.nfs4().clients().isConfirmed(c.clientId)).isTrue();
            Thread.sleep(2500); // no request runs: the lease runs out and the client goes
            assertThat(s.call(c.compound().op(Nfs4.OP_PUTROOTFH)).next(Nfs4.OP_SEQUENCE))
                    .isEqualTo(Nfs4Status.NFS4ERR_BADSESSION);
        }
    }

    /**
     * A session's ca_maxrequestsize and ca_maxresponsesize, as pynfs asks for them (512 and 8192 bytes): a larger
     * request is NFS4ERR_REQ_TOO_BIG before its slot is touched; READ and READDIR return what fits the reply (as
     * knfsd does), and a reply with no room for even that is NFS4ERR_REP_TOO_BIG.
     */
    @Test
    void aSessionsRequestAndReplySizesBoundWhatItsRequestsMayAskFor() throws Exception {
        byte[] data = new byte[64 * 1024];
        new Random(7).nextBytes(data);
        FileHandle file = vfs.create(vfs.root(), "data", org.rpcrdma4j.nfs.CreateMode.GUARDED,
                org.rpcrdma4j.nfs.SetAttributes.NONE, 0).handle();
        vfs.write(file, 0, ByteBuffer.wrap(data), org.rpcrdma4j.nfs.StableHow.FILE_SYNC);
        FileHandle dir = vfs.mkdir(vfs.root(), "many", org.rpcrdma4j.nfs.SetAttributes.NONE).handle();
        for (int i = 0; i < 300; i++) {
            vfs.create(dir, String.format("a-rather-long-name-of-entry-%04d", i), org.rpcrdma4j.nfs.CreateMode.GUARDED,
                    org.rpcrdma4j.nfs.SetAttributes.NONE, 0);
        }
        byte[] fh;
        try (V4Script s = connect()) {
            Client c = session(s, "client-small-session", 512, 8192, 8192);
            byte[] root = exportRoot(c);
            V4Script.Res tooBig = s.call(c.compound().putfh(root).op(Nfs4.OP_LOOKUP).string("12345".repeat(100)));
            assertThat(Nfs4Status.name(tooBig.next(Nfs4.OP_SEQUENCE))).isEqualTo("NFS4ERR_REQ_TOO_BIG");
            assertThat(tooBig.count).isEqualTo(1);
            c.seq--; // the slot was not touched: its next request takes the same sequence id
            V4Script.Res lookup = s.call(c.compound().putfh(root).op(Nfs4.OP_LOOKUP).string("data")
                    .op(Nfs4.OP_GETFH));
            lookup.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_LOOKUP).ok(Nfs4.OP_GETFH);
            fh = lookup.opaque();
            byte[] anonymous = new byte[16];

            byte[] reply = s.callRaw(c.compound().putfh(fh).op(Nfs4.OP_READ).fixed(anonymous).hyper(0)
                    .word(data.length).bytes(), s.nextXid());
            assertThat(reply.length + 24).as("the whole reply, RPC header included").isLessThanOrEqualTo(8192);
            V4Script.Res read = new V4Script.Res(reply);
            read.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_READ);
            assertThat(read.word()).as("eof").isZero();
            byte[] got = read.opaque();
            assertThat(got.length).as("all the reply had room for").isGreaterThan(8000);
            assertThat(got).isEqualTo(Arrays.copyOf(data, got.length));

            reply = s.callRaw(c.compound().putfh(root).op(Nfs4.OP_LOOKUP).string("many")
                    .op(Nfs4.OP_READDIR).hyper(0).fixed(new byte[8]).word(1 << 20).word(1 << 20)
                    .bitmap(FATTR4_TYPE, FATTR4_SIZE).bytes(), s.nextXid());
            assertThat(reply.length + 24).isLessThanOrEqualTo(8192);
            V4Script.Res list = new V4Script.Res(reply);
            list.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_LOOKUP).ok(Nfs4.OP_READDIR);
            list.fixed(8);
            int entries = 0;
            while (list.word() != 0) {
                list.hyper();
                assertThat(new String(list.opaque(), StandardCharsets.UTF_8))
                        .isEqualTo(String.format("a-rather-long-name-of-entry-%04d", entries));
                list.bitmap();
                list.opaque();
                entries++;
            }
            assertThat(list.word()).as("eof").isZero();
            assertThat(entries).isBetween(50, 299);
            assertThat(reply.length + 24).as("the page fills the reply but for less than an entry")
                    .isGreaterThan(8192 - 100);
        }
        try (V4Script s = connect()) {
            // room for SEQUENCE's result, PUTFH's and a READ's without data, so for no READ but one at the end; the
            // same with sa_cachethis against the cached size; a GETATTR whose attributes do not fit
            Client c = session(s, "client-tiny-replies", 1 << 20, 24 + 12 + 44 + 8 + 16, 24 + 12 + 44 + 8 + 16);
            V4Script.Res r = s.call(c.compound().putfh(fh).op(Nfs4.OP_READ).fixed(new byte[16]).hyper(0).word(10));
            r.sequenceOk().ok(Nfs4.OP_PUTFH);
            assertThat(Nfs4Status.name(r.next(Nfs4.OP_READ))).isEqualTo("NFS4ERR_REP_TOO_BIG");
            V4Script.Res atEnd = s.call(c.compound().putfh(fh).op(Nfs4.OP_READ).fixed(new byte[16])
                    .hyper(data.length).word(10));
            atEnd.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_READ);
            assertThat(atEnd.word()).as("at the end: no data and eof fit").isEqualTo(1);
            assertThat(atEnd.opaque()).isEmpty();
            V4Script.Res kept = s.call(new V4Script.Args(1).sequence(c.session, ++c.seq, 0, true).putfh(fh)
                    .op(Nfs4.OP_READ).fixed(new byte[16]).hyper(0).word(10));
            kept.sequenceOk().ok(Nfs4.OP_PUTFH);
            assertThat(Nfs4Status.name(kept.next(Nfs4.OP_READ))).isEqualTo("NFS4ERR_REP_TOO_BIG_TO_CACHE");
            V4Script.Res attrs = s.call(c.compound().putfh(fh).op(Nfs4.OP_GETATTR).bitmap(FATTR4_TYPE, FATTR4_SIZE,
                    FATTR4_FILEID));
            attrs.sequenceOk().ok(Nfs4.OP_PUTFH);
            assertThat(Nfs4Status.name(attrs.next(Nfs4.OP_GETATTR))).isEqualTo("NFS4ERR_REP_TOO_BIG");
            // an operation that changes something does not run when its result might not fit
            V4Script.Res write = s.call(c.compound().putfh(fh).op(Nfs4.OP_WRITE).fixed(new byte[16]).hyper(0)
                    .word(2).opaque(new byte[] {0, 0, 0, 0}));
            write.sequenceOk().ok(Nfs4.OP_PUTFH);
            assertThat(Nfs4Status.name(write.next(Nfs4.OP_WRITE))).isEqualTo("NFS4ERR_REP_TOO_BIG");
            ByteBuffer head = ByteBuffer.allocate(4);
            vfs.read(file, 0, head);
            assertThat(head.array()).as("nothing written").isEqualTo(Arrays.copyOf(data, 4));
        }
    }

    /** A READ with sa_cachethis returns what the session keeps of a reply, and its retry gets those bytes again. */
    @Test
    void aReadWhoseReplyIsToBeKeptReturnsWhatTheSessionKeepsAndItsRetryGetsItAgain() throws Exception {
        try (V4Script s = connect()) {
            Client c = session(s, "client-big-cached"); // ca_maxresponsesize_cached 8192
            byte[][] open = create(c, exportRoot(c), "big");
            byte[] data = new byte[64 * 1024];
            new Random(3).nextBytes(data);
            s.call(c.compound().putfh(open[1]).op(Nfs4.OP_WRITE).stateid(open[0]).hyper(0).word(2).opaque(data))
                    .sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_WRITE);
            int seq = ++c.seq;
            byte[] read = new V4Script.Args(1).sequence(c.session, seq, 0, true).putfh(open[1])
                    .op(Nfs4.OP_READ).stateid(open[0]).hyper(0).word(data.length).bytes();
            byte[] first = s.callRaw(read, s.nextXid());
            assertThat(first.length + 24).as("the whole reply within the cached size").isLessThanOrEqualTo(8192);
            V4Script.Res r = new V4Script.Res(first);
            r.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_READ);
            assertThat(r.word()).as("eof").isZero();
            byte[] got = r.opaque();
            assertThat(got.length).isGreaterThan(8000);
            assertThat(got).isEqualTo(Arrays.copyOf(data, got.length));
            byte[] retry = s.callRaw(read, s.nextXid());
            assertThat(retry).as("the kept reply, byte for byte").isEqualTo(first);
        }
    }

    @Test
    void savefhAndRestorefhSaveAndRestoreTheCurrentStateidWithTheHandle() throws Exception {
        try (V4Script s = connect()) {
            Client c = session(s, "client-saved-stateid");
            byte[] root = exportRoot(c);
            byte[][] f = create(c, root, "first");
            s.call(c.compound().putfh(f[1]).op(Nfs4.OP_WRITE).stateid(f[0]).hyper(0).word(2)
                    .opaque(new byte[] {9, 8, 7})).sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_WRITE);
            byte[] current = {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
            // OPEN first (its stateid current), SAVEFH, OPEN second, RESTOREFH: the current stateid is first's
            V4Script.Res r = s.call(c.compound().putfh(root).op(Nfs4.OP_OPEN).word(0).word(1).word(0)
                    .hyper(c.clientId).string("owner-saved").word(0).word(0).string("first")
                    .op(Nfs4.OP_SAVEFH)
                    .putfh(root).op(Nfs4.OP_OPEN).word(0).word(1).word(0).hyper(c.clientId).string("owner-saved")
                    .word(1).word(0).bitmap().word(0).word(0).string("second")
                    .op(Nfs4.OP_RESTOREFH)
                    .op(Nfs4.OP_READ).stateid(current).hyper(0).word(3));
            assertThat(r.status).as(Nfs4Status.name(r.status)).isZero();
        }
    }

    /**
     * LINK on the wire (RFC 8881 section 18.9): the saved handle's file gets a name in the current directory, the
     * directory's change_info4 moves, the current handle stays the directory; numlinks counts both names and
     * link_support is true. Without a saved handle it is NFS4ERR_NOFILEHANDLE.
     */
    @Test
    void linkGivesTheSavedFileANameInTheCurrentDirectory() throws Exception {
        final int linkSupport = 5;
        final int numlinks = 35;
        try (V4Script s = connect()) {
            Client c = session(s, "client-link");
            byte[] root = exportRoot(c);
            byte[] file = create(c, root, "a")[1];
            V4Script.Res r = s.call(c.compound().putfh(file).op(Nfs4.OP_SAVEFH).putfh(root).op(Nfs4.OP_LINK)
                    .string("b").op(Nfs4.OP_GETFH));
            assertThat(r.status).as(Nfs4Status.name(r.status)).isZero();
            r.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_SAVEFH).ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_LINK);
            assertThat(r.word()).as("change_info4.atomic").isEqualTo(1);
            long before = r.hyper();
            assertThat(r.hyper()).as("the directory's change after").isNotEqualTo(before);
            r.ok(Nfs4.OP_GETFH);
            assertThat(r.opaque()).as("the current handle stays the directory").isEqualTo(root);

            V4Script.Res b = s.call(c.compound().putfh(root).op(Nfs4.OP_LOOKUP).string("b").op(Nfs4.OP_GETFH)
                    .op(Nfs4.OP_GETATTR).bitmap(linkSupport, numlinks));
            b.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_LOOKUP).ok(Nfs4.OP_GETFH);
            assertThat(b.opaque()).isEqualTo(file);
            b.ok(Nfs4.OP_GETATTR);
            assertThat(b.bitmap()).containsExactly((1 << linkSupport), (1 << (numlinks - 32)));
            assertThat(b.word()).as("attrlist4 length").isEqualTo(8);
            assertThat(b.word()).as("link_support").isEqualTo(1);
            assertThat(b.word()).as("numlinks").isEqualTo(2);

            V4Script.Res unsaved = s.call(c.compound().putfh(root).op(Nfs4.OP_LINK).string("c"));
            unsaved.sequenceOk().ok(Nfs4.OP_PUTFH);
            assertThat(unsaved.next(Nfs4.OP_LINK)).isEqualTo(Nfs4Status.NFS4ERR_NOFILEHANDLE);
            V4Script.Res dotdot = s.call(c.compound().putfh(file).op(Nfs4.OP_SAVEFH).putfh(root).op(Nfs4.OP_LINK)
                    .string(".."));
            dotdot.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_SAVEFH).ok(Nfs4.OP_PUTFH);
            assertThat(dotdot.next(Nfs4.OP_LINK)).isEqualTo(Nfs4Status.NFS4ERR_BADNAME);
            assertThat(vfs.getattr(vfs.lookup(vfs.root(), "a").handle()).nlink()).isEqualTo(2);
        }
    }

    @Test
    void nfsV42SpaceOperationsAndCopyOnTheWire() throws Exception {
        try (V4Script s = connect()) {
            Client c = session(s, "client-42");
            byte[] root = exportRoot(c);
            byte[][] src = create(c, root, "src");
            byte[][] dst = create(c, root, "dst");
            byte[] data = new byte[200_000];
            new Random(42).nextBytes(data);
            s.call(c.compound().putfh(src[1]).op(Nfs4.OP_WRITE).stateid(src[0]).hyper(0).word(2).opaque(data))
                    .sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_WRITE);

            // not operations of minor version 1
            V4Script.Res v41 = s.call(c.compound().putfh(src[1]).op(Nfs4.OP_SEEK).stateid(src[0]).hyper(0).word(0));
            v41.sequenceOk().ok(Nfs4.OP_PUTFH);
            assertThat(v41.next(Nfs4.OP_ILLEGAL)).isEqualTo(Nfs4Status.NFS4ERR_OP_ILLEGAL);

            // DEALLOCATE the second 64 KiB block, then SEEK: seek_res4 is eof, offset
            s.call(c.compound42().putfh(src[1]).op(Nfs4.OP_DEALLOCATE).stateid(src[0]).hyper(65536).hyper(65536))
                    .sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_DEALLOCATE);
            V4Script.Res hole = s.call(c.compound42().putfh(src[1]).op(Nfs4.OP_SEEK).stateid(src[0]).hyper(10)
                    .word(1).op(Nfs4.OP_SEEK).stateid(src[0]).hyper(65536).word(0)
                    .op(Nfs4.OP_SEEK).stateid(src[0]).hyper(140_000).word(1));
            hole.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_SEEK);
            assertThat(hole.word()).as("eof").isZero();
            assertThat(hole.hyper()).isEqualTo(65536);
            hole.ok(Nfs4.OP_SEEK);
            assertThat(hole.word()).isZero();
            assertThat(hole.hyper()).isEqualTo(131072);
            hole.ok(Nfs4.OP_SEEK);
            assertThat(hole.word()).as("the hole at the end").isEqualTo(1);
            assertThat(hole.hyper()).isEqualTo(data.length);
            V4Script.Res nxio = s.call(c.compound42().putfh(src[1]).op(Nfs4.OP_SEEK).stateid(src[0])
                    .hyper(data.length).word(0));
            nxio.sequenceOk().ok(Nfs4.OP_PUTFH);
            assertThat(nxio.next(Nfs4.OP_SEEK)).isEqualTo(Nfs4Status.NFS4ERR_NXIO);
            V4Script.Res what = s.call(c.compound42().putfh(src[1]).op(Nfs4.OP_SEEK).stateid(src[0]).hyper(0)
                    .word(7));
            what.sequenceOk().ok(Nfs4.OP_PUTFH);
            assertThat(what.next(Nfs4.OP_SEEK)).isEqualTo(Nfs4Status.NFS4ERR_UNION_NOTSUPP);

            // ALLOCATE grows the destination; a length of 0 is refused
            s.call(c.compound42().putfh(dst[1]).op(Nfs4.OP_ALLOCATE).stateid(dst[0]).hyper(0).hyper(300_000))
                    .sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_ALLOCATE);
            assertThat(vfs.getattr(vfs.lookup(vfs.root(), "dst").handle()).size())
                    .isEqualTo(300_000);
            V4Script.Res zero = s.call(c.compound42().putfh(dst[1]).op(Nfs4.OP_ALLOCATE).stateid(dst[0]).hyper(0)
                    .hyper(0));
            zero.sequenceOk().ok(Nfs4.OP_PUTFH);
            assertThat(zero.next(Nfs4.OP_ALLOCATE)).isEqualTo(Nfs4Status.NFS4ERR_INVAL);

            // COPY from the saved handle to the current one, asked asynchronous: done at once all the same
            V4Script.Res copy = s.call(c.compound42().putfh(src[1]).op(Nfs4.OP_SAVEFH).putfh(dst[1])
                    .op(Nfs4.OP_COPY).stateid(src[0]).stateid(dst[0]).hyper(0).hyper(1000).hyper(0).word(1).word(0)
                    .word(0));
            copy.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_SAVEFH).ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_COPY);
            assertThat(copy.word()).as("no callback id").isZero();
            assertThat(copy.hyper()).as("wr_count").isEqualTo(data.length);
            assertThat(copy.word()).as("FILE_SYNC4").isEqualTo(2);
            copy.fixed(8);
            assertThat(copy.word()).as("cr_consecutive").isEqualTo(1);
            assertThat(copy.word()).as("cr_synchronous").isEqualTo(1);
            byte[] expected = new byte[300_000];
            System.arraycopy(data, 0, expected, 1000, data.length);
            java.util.Arrays.fill(expected, 1000 + 65536, 1000 + 131072, (byte) 0);
            assertStored(vfs, java.util.Map.of("dst", expected));
            assertThat(server.nfs4().bytesCopied()).isEqualTo(data.length);

            // from another server: not done here; a netloc4 of no known type: bad XDR
            V4Script.Res remote = s.call(c.compound42().putfh(src[1]).op(Nfs4.OP_SAVEFH).putfh(dst[1])
                    .op(Nfs4.OP_COPY).stateid(src[0]).stateid(dst[0]).hyper(0).hyper(0).hyper(10).word(1).word(1)
                    .word(1).word(3).string("tcp").string("192.0.2.1.8.1"));
            remote.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_SAVEFH).ok(Nfs4.OP_PUTFH);
            assertThat(remote.next(Nfs4.OP_COPY)).isEqualTo(Nfs4Status.NFS4ERR_NOTSUPP);
            V4Script.Res badLoc = s.call(c.compound42().putfh(src[1]).op(Nfs4.OP_SAVEFH).putfh(dst[1])
                    .op(Nfs4.OP_COPY).stateid(src[0]).stateid(dst[0]).hyper(0).hyper(0).hyper(10).word(1).word(1)
                    .word(1).word(9).string("x"));
            badLoc.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_SAVEFH).ok(Nfs4.OP_PUTFH);
            assertThat(badLoc.next(Nfs4.OP_COPY)).isEqualTo(Nfs4Status.NFS4ERR_BADXDR);
            // no saved handle; a directory; the source's stateid where the destination's belongs
            V4Script.Res unsaved = s.call(c.compound42().putfh(dst[1]).op(Nfs4.OP_COPY).stateid(src[0])
                    .stateid(dst[0]).hyper(0).hyper(0).hyper(10).word(1).word(1).word(0));
            unsaved.sequenceOk().ok(Nfs4.OP_PUTFH);
            assertThat(unsaved.next(Nfs4.OP_COPY)).isEqualTo(Nfs4Status.NFS4ERR_NOFILEHANDLE);
            V4Script.Res toDir = s.call(c.compound42().putfh(src[1]).op(Nfs4.OP_SAVEFH).putfh(root)
                    .op(Nfs4.OP_COPY).stateid(src[0]).stateid(dst[0]).hyper(0).hyper(0).hyper(10).word(1).word(1)
                    .word(0));
            toDir.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_SAVEFH).ok(Nfs4.OP_PUTFH);
            assertThat(toDir.next(Nfs4.OP_COPY)).isEqualTo(Nfs4Status.NFS4ERR_WRONG_TYPE);
            V4Script.Res swapped = s.call(c.compound42().putfh(src[1]).op(Nfs4.OP_SAVEFH).putfh(dst[1])
                    .op(Nfs4.OP_COPY).stateid(dst[0]).stateid(dst[0]).hyper(0).hyper(0).hyper(10).word(1).word(1)
                    .word(0));
            swapped.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_SAVEFH).ok(Nfs4.OP_PUTFH);
            assertThat(swapped.next(Nfs4.OP_COPY)).isEqualTo(Nfs4Status.NFS4ERR_BAD_STATEID);

            // the operations counted as they ran (Linux's proc4ops): a SEEK of minor version 1 is ILLEGAL
            assertThat(server.nfs4().operationCounts()).containsEntry("SEEK", 5L).containsEntry("ALLOCATE", 2L)
                    .containsEntry("DEALLOCATE", 1L).containsEntry("COPY", 6L).containsEntry("ILLEGAL", 1L)
                    .containsKeys("SEQUENCE", "PUTFH", "SAVEFH", "WRITE", "OPEN", "EXCHANGE_ID");
        }
    }

    @Test
    void anOpenBeyondTheClientsBoundIsRefusedBeforeItCreatesTheFile() throws Exception {
        try (V4Script s = connect(noGrace(Duration.ofSeconds(60)).withStateBounds(16, 2))) {
            Client c = session(s, "client-bounded");
            byte[] root = exportRoot(c);
            create(c, root, "one");
            create(c, root, "two");
            V4Script.Res third = s.call(c.compound().putfh(root).op(Nfs4.OP_OPEN).word(0).word(3).word(0)
                    .hyper(c.clientId).string("owner-three").word(1).word(0).bitmap().word(0).word(0)
                    .string("three"));
            third.sequenceOk().ok(Nfs4.OP_PUTFH);
            assertThat(third.next(Nfs4.OP_OPEN)).isEqualTo(Nfs4Status.NFS4ERR_SERVERFAULT);
            assertThatThrownBy(() -> vfs.lookup(vfs.root(), "three")).as("not created")
                    .isInstanceOf(org.rpcrdma4j.nfs.NfsException.class);
        }
    }

    @Test
    void badInputGetsItsStatusNeverAnException() throws Exception {
        try (V4Script s = connect()) {
            V4Script.Res v0 = s.call(new V4Script.Args(0).op(Nfs4.OP_PUTROOTFH));
            assertThat(v0.status).isEqualTo(Nfs4Status.NFS4ERR_MINOR_VERS_MISMATCH);
            assertThat(v0.count).isZero();
            V4Script.Res noSession = s.call(new V4Script.Args(1).op(Nfs4.OP_PUTROOTFH));
            assertThat(noSession.next(Nfs4.OP_PUTROOTFH)).isEqualTo(Nfs4Status.NFS4ERR_OP_NOT_IN_SESSION);

            Client c = session(s, "client-bad");
            V4Script.Res illegal = s.call(c.compound().op(99));
            illegal.sequenceOk();
            assertThat(illegal.next(Nfs4.OP_ILLEGAL)).isEqualTo(Nfs4Status.NFS4ERR_OP_ILLEGAL);

            V4Script.Args many = c.compound();
            for (int i = 0; i < 100; i++) {
                many.op(Nfs4.OP_PUTROOTFH);
            }
            V4Script.Res tooMany = s.call(many);
            assertThat(tooMany.next(Nfs4.OP_SEQUENCE)).isEqualTo(Nfs4Status.NFS4ERR_TOO_MANY_OPS);
            c.seq--; // that sequence id was not used

            byte[] root = exportRoot(c);
            V4Script.Res bogus = s.call(c.compound().putfh(root).op(Nfs4.OP_LOOKUP).string("nothing-here"));
            bogus.sequenceOk().ok(Nfs4.OP_PUTFH);
            assertThat(bogus.next(Nfs4.OP_LOOKUP)).isEqualTo(Nfs4Status.NFS4ERR_NOENT);
            V4Script.Res badName = s.call(c.compound().putfh(root).op(Nfs4.OP_LOOKUP).string(".."));
            badName.sequenceOk().ok(Nfs4.OP_PUTFH);
            assertThat(badName.next(Nfs4.OP_LOOKUP)).isEqualTo(Nfs4Status.NFS4ERR_BADNAME);
            byte[][] open = create(c, root, "f");
            byte[] forged = open[0].clone();
            forged[8] ^= 0x55;
            V4Script.Res w = s.call(c.compound().putfh(open[1]).op(Nfs4.OP_WRITE).stateid(forged).hyper(0).word(2)
                    .opaque(new byte[] {1}));
            w.sequenceOk().ok(Nfs4.OP_PUTFH);
            assertThat(w.next(Nfs4.OP_WRITE)).isEqualTo(Nfs4Status.NFS4ERR_BAD_STATEID);
            V4Script.Res stale = s.call(c.compound().putfh(new byte[100]));
            stale.sequenceOk();
            assertThat(stale.next(Nfs4.OP_PUTFH)).as("an NFSv4-sized handle of no export")
                    .isEqualTo(Nfs4Status.NFS4ERR_STALE);
            V4Script.Res tooLong = s.call(c.compound().putfh(new byte[129]));
            tooLong.sequenceOk();
            assertThat(tooLong.next(Nfs4.OP_PUTFH)).as("beyond NFS4_FHSIZE").isEqualTo(Nfs4Status.NFS4ERR_BADXDR);
            V4Script.Res noFh = s.call(c.compound().op(Nfs4.OP_GETFH));
            noFh.sequenceOk();
            assertThat(noFh.next(Nfs4.OP_GETFH)).isEqualTo(Nfs4Status.NFS4ERR_NOFILEHANDLE);
            // arguments cut short: the operation is NFS4ERR_BADXDR, the ones before it ran
            V4Script.Res cut = s.call(c.compound().op(Nfs4.OP_PUTROOTFH).op(Nfs4.OP_LOOKUP).word(400));
            cut.sequenceOk().ok(Nfs4.OP_PUTROOTFH);
            assertThat(cut.next(Nfs4.OP_LOOKUP)).isEqualTo(Nfs4Status.NFS4ERR_BADXDR);
        }
    }

    @Test
    void aSessionOfAClientWhoseLeaseRanOutIsGone() throws Exception {
        try (V4Script s = connect(noGrace(Duration.ofSeconds(1)))) {
            Client c = session(s, "client-lapsed");
            exportRoot(c);
            Thread.sleep(2500); // no SEQUENCE for more than the lease
            V4Script.Res r = s.call(c.compound().op(Nfs4.OP_PUTROOTFH));
            assertThat(r.next(Nfs4.OP_SEQUENCE)).isEqualTo(Nfs4Status.NFS4ERR_BADSESSION);
        }
    }

    @Test
    void aSessionThatAsksForABackChannelGetsCbNullOverItsConnection() throws Exception {
        try (V4Script s = connect()) {
            V4Script.Res ex = s.call(new V4Script.Args(1).op(Nfs4.OP_EXCHANGE_ID).fixed(new byte[8]).string("cb")
                    .word(0).word(0).word(0));
            ex.ok(Nfs4.OP_EXCHANGE_ID);
            long clientId = ex.hyper();
            int seq = ex.word();
            int xid = s.nextXid();
            s.send(V4Script.compoundCall(xid, new V4Script.Args(1).op(Nfs4.OP_CREATE_SESSION).hyper(clientId)
                    .word(seq).word(2 /* CREATE_SESSION4_FLAG_CONN_BACK_CHAN */)
                    .word(0).word(1 << 20).word(1 << 20).word(8192).word(16).word(8).word(0)
                    .word(0).word(4096).word(4096).word(0).word(8).word(1).word(0)
                    .word(0x40000000).word(1).word(0).bytes()));
            boolean replied = false;
            boolean probed = false;
            while (!replied || !probed) {
                byte[] m = s.receive();
                ByteBuffer b = ByteBuffer.wrap(m);
                int mxid = b.getInt(0);
                if (b.getInt(4) == 1) { // a REPLY: ours
                    assertThat(mxid).isEqualTo(xid);
                    V4Script.Res r = new V4Script.Res(Arrays.copyOfRange(m, 24, m.length));
                    r.ok(Nfs4.OP_CREATE_SESSION);
                    r.fixed(Nfs4.SESSIONID_SIZE);
                    r.word();
                    assertThat(r.word() & 2).as("the back channel is granted").isEqualTo(2);
                    replied = true;
                } else {
                    assertThat(b.getInt(12)).as("the callback program").isEqualTo(0x40000000);
                    assertThat(b.getInt(16)).as("NFS_CB version").isEqualTo(1);
                    assertThat(b.getInt(20)).as("CB_NULL").isZero();
                    s.send(ByteBuffer.allocate(24).putInt(mxid).putInt(1).putInt(0).putInt(0).putInt(0).putInt(0)
                            .array());
                    probed = true;
                }
            }
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (server.nfs4().backChannelProbesAnswered() == 0) {
                assertThat(System.nanoTime() - until).as("hang guard").isNegative();
                Thread.sleep(10);
            }
            assertThat(server.nfs4().backChannelProbesFailed()).isZero();
        }
    }

    @Test
    void afterARestartTheOldSessionIsGoneAndOpensAreReclaimedInTheGracePeriod() throws Exception {
        byte[] root;
        byte[] file;
        try (V4Script s = connect()) {
            Client c = session(s, "client-restart");
            root = exportRoot(c);
            file = create(c, root, "kept")[1];
        }
        server.close();
        StateConfig d = StateConfig.defaults();
        server = NfsServer.builder().export("/export", vfs).bindAddress("127.0.0.1").port(0)
                .nfs4(new StateConfig(Duration.ofSeconds(60), Duration.ofSeconds(60), d.foreLimits(), d.backLimits(),
                        d.maxSessionsPerClient())).build();
        server.start();
        try (V4Script s = new V4Script(server.address())) {
            V4Script.Res ex = s.call(new V4Script.Args(1).op(Nfs4.OP_EXCHANGE_ID)
                    .fixed(Arrays.copyOf("client-restart".getBytes(StandardCharsets.UTF_8), 8))
                    .string("client-restart").word(0).word(0).word(0));
            ex.ok(Nfs4.OP_EXCHANGE_ID);
            long clientId = ex.hyper();
            int seq = ex.word();
            V4Script.Res cs = s.call(new V4Script.Args(1).op(Nfs4.OP_CREATE_SESSION).hyper(clientId).word(seq)
                    .word(0).word(0).word(1 << 20).word(1 << 20).word(8192).word(16).word(8).word(0)
                    .word(0).word(4096).word(4096).word(0).word(8).word(1).word(0).word(0x40000000).word(1).word(0));
            cs.ok(Nfs4.OP_CREATE_SESSION);
            Client c = new Client(s, clientId, cs.fixed(Nfs4.SESSIONID_SIZE));
            // the handles survive the restart; a reclaim of the open (CLAIM_PREVIOUS) is allowed in the grace period
            V4Script.Res reclaim = s.call(c.compound().putfh(file).op(Nfs4.OP_OPEN).word(0).word(3).word(0)
                    .hyper(clientId).string("owner-kept").word(0).word(1 /* CLAIM_PREVIOUS */).word(0));
            reclaim.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_OPEN);
            V4Script.Res done = s.call(c.compound().op(Nfs4.OP_RECLAIM_COMPLETE).word(0));
            assertThat(done.status).isZero();
            // after RECLAIM_COMPLETE, and still in the grace period, a new OPEN waits
            V4Script.Res open = s.call(c.compound().putfh(root).op(Nfs4.OP_OPEN).word(0).word(3).word(0)
                    .hyper(clientId).string("o2").word(1).word(0).bitmap().word(0).word(0).string("new"));
            open.sequenceOk().ok(Nfs4.OP_PUTFH);
            assertThat(open.next(Nfs4.OP_OPEN)).isEqualTo(Nfs4Status.NFS4ERR_GRACE);
        }
    }

    @Test
    void aSessionOfAServerThatRestartedIsBadAndItsClientIdStale() throws Exception {
        Client old;
        try (V4Script s = connect()) {
            old = session(s, "client-old");
        }
        server.close();
        server = null;
        try (V4Script s = connect()) {
            V4Script.Res r = s.call(new V4Script.Args(1).sequence(old.session, old.seq + 1, 0, false));
            assertThat(r.next(Nfs4.OP_SEQUENCE)).isEqualTo(Nfs4Status.NFS4ERR_BADSESSION);
            V4Script.Res cs = s.call(new V4Script.Args(1).op(Nfs4.OP_CREATE_SESSION).hyper(old.clientId).word(2)
                    .word(0).word(0).word(1 << 20).word(1 << 20).word(8192).word(16).word(8).word(0)
                    .word(0).word(4096).word(4096).word(0).word(8).word(1).word(0).word(0x40000000).word(1).word(0));
            assertThat(cs.next(Nfs4.OP_CREATE_SESSION)).isEqualTo(Nfs4Status.NFS4ERR_STALE_CLIENTID);
        }
    }

    @Test
    void duringTheGracePeriodNewOpensWait() throws Exception {
        StateConfig d = StateConfig.defaults();
        try (V4Script s = connect(new StateConfig(Duration.ofSeconds(60), Duration.ofSeconds(60), d.foreLimits(),
                d.backLimits(), d.maxSessionsPerClient()))) {
            Client c = session(s, "client-early");
            byte[] root = exportRoot(c);
            V4Script.Res r = s.call(c.compound().putfh(root).op(Nfs4.OP_OPEN).word(0).word(3).word(0)
                    .hyper(c.clientId).string("o").word(1).word(0).bitmap().word(0).word(0).string("new"));
            r.sequenceOk().ok(Nfs4.OP_PUTFH);
            assertThat(r.next(Nfs4.OP_OPEN)).isEqualTo(Nfs4Status.NFS4ERR_GRACE);
        }
    }

    /**
     * READDIR resumed with a cookie and verifier from before the directory changed goes on after that cookie's entry
     * (never NFS4ERR_NOT_SAME or NFS4ERR_BAD_COOKIE, as with Linux's server): each entry that stayed is listed once.
     */
    @Test
    void aReaddirResumedWithAVerifierFromBeforeAChangeGoesOn() throws Exception {
        FileHandle dir = vfs.mkdir(vfs.root(), "changing", org.rpcrdma4j.nfs.SetAttributes.NONE).handle();
        for (int i = 0; i < 60; i++) {
            vfs.create(dir, "entry-" + i, org.rpcrdma4j.nfs.CreateMode.GUARDED, org.rpcrdma4j.nfs.SetAttributes.NONE, 0);
        }
        try (V4Script s = connect()) {
            Client c = session(s, "client-readdir");
            byte[] root = exportRoot(c);
            java.util.List<String> seen = new java.util.ArrayList<>();
            long cookie = 0;
            byte[] verifier = new byte[8];
            boolean eof = false;
            int pages = 0;
            while (!eof) {
                V4Script.Res r = s.call(c.compound().putfh(root).op(Nfs4.OP_LOOKUP).string("changing")
                        .op(Nfs4.OP_READDIR).hyper(cookie).fixed(verifier).word(1024).word(1024)
                        .bitmap(FATTR4_TYPE));
                r.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_LOOKUP);
                assertThat(Nfs4Status.name(r.next(Nfs4.OP_READDIR))).isEqualTo("NFS4_OK");
                verifier = r.fixed(8);
                while (r.word() != 0) {
                    cookie = r.hyper();
                    seen.add(new String(r.opaque(), StandardCharsets.UTF_8));
                    r.bitmap();
                    r.opaque();
                }
                eof = r.word() != 0;
                pages++;
                // between pages another client adds an entry
                vfs.create(dir, "new-" + seen.size(), org.rpcrdma4j.nfs.CreateMode.GUARDED,
                        org.rpcrdma4j.nfs.SetAttributes.NONE, 0);
            }
            assertThat(pages).isGreaterThan(2);
            assertThat(seen).doesNotHaveDuplicates().hasSizeGreaterThanOrEqualTo(60);
            for (int i = 0; i < 60; i++) {
                assertThat(seen).contains("entry-" + i);
            }
        }
    }
}
