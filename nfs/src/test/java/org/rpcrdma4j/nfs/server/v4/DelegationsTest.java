package org.rpcrdma4j.nfs.server.v4;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.client.NfsClient;
import org.rpcrdma4j.nfs.client.WriteReply;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.v4.state.StateConfig;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.nfs.xdr.Nfs3;
import org.rpcrdma4j.xprt.drc.Calls;
import org.rpcrdma4j.xprt.drc.RpcTcpClient;

/**
 * Read delegations over the wire, with scripted clients ({@link V4Script}) that answer the server's callbacks by hand
 * (RFC 8881 sections 10.4, 18.6, 20.2): who gets one, a change by another client or over NFSv3 that recalls it
 * (CB_SEQUENCE and CB_RECALL on the holder's connection, DELAY / JUKEBOX until it is returned), the opens a holder
 * claims through it, and revocation of one not returned.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DelegationsTest {
    private static final int CB_PROGRAM = 0x40000000;
    private static final byte[] CONTENT = "read me, again and again".getBytes(StandardCharsets.UTF_8);

    private final MemoryVfs vfs = new MemoryVfs();
    private NfsServer server;

    private V4Script connect(Duration lease) throws Exception {
        if (server == null) {
            server = NfsServer.builder().export("/export", vfs).bindAddress("127.0.0.1").port(0)
                    .nfs4(Nfs41ServerTest.noGrace(lease)).build();
            server.start();
        }
        return new V4Script(server.address());
    }

    private V4Script connect() throws Exception {
        return connect(Duration.ofSeconds(60));
    }

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    /**
     * A client whose session has a back channel on its connection: CREATE_SESSION with CONN_BACK_CHAN (callbacks as
     * AUTH_NONE), the server's CB_NULL answered, and RECLAIM_COMPLETE.
     */
    private Nfs41ServerTest.Client callbackClient(V4Script s, String owner) throws Exception {
        return callbackClient(s, owner, 1, new V4Script.Args(1).word(0));
    }

    /**
     * The same in {@code minor} (the session's minor version), with {@code security} the words of one
     * {@code callback_sec_parms4} (its flavor first).
     */
    private Nfs41ServerTest.Client callbackClient(V4Script s, String owner, int minor, V4Script.Args security)
            throws Exception {
        long probes = server.nfs4().backChannelProbesAnswered();
        V4Script.Res ex = s.call(new V4Script.Args(minor).op(Nfs4.OP_EXCHANGE_ID)
                .fixed(Arrays.copyOf(owner.getBytes(StandardCharsets.UTF_8), 8)).string(owner).word(0).word(0)
                .word(0));
        ex.ok(Nfs4.OP_EXCHANGE_ID);
        long clientId = ex.hyper();
        int seq = ex.word();
        int xid = s.nextXid();
        byte[] sec = security.bytes();
        s.send(V4Script.compoundCall(xid, new V4Script.Args(minor).op(Nfs4.OP_CREATE_SESSION).hyper(clientId)
                .word(seq).word(2 /* CONN_BACK_CHAN */).word(0).word(1 << 20).word(1 << 20).word(8192).word(16).word(8)
                .word(0).word(0).word(4096).word(4096).word(0).word(8).word(1).word(0)
                .word(CB_PROGRAM).word(1).fixed(Arrays.copyOfRange(sec, 12, sec.length)).bytes()));
        byte[] session = null;
        boolean probed = false;
        while (session == null || !probed) {
            ByteBuffer m = ByteBuffer.wrap(s.receive());
            if (m.getInt(4) == 1) {
                assertThat(m.getInt(0)).isEqualTo(xid);
                V4Script.Res r = new V4Script.Res(Arrays.copyOfRange(m.array(), 24, m.limit()));
                r.ok(Nfs4.OP_CREATE_SESSION);
                session = r.fixed(Nfs4.SESSIONID_SIZE);
            } else {
                assertThat(m.getInt(20)).as("CB_NULL").isZero();
                s.send(ByteBuffer.allocate(24).putInt(m.getInt(0)).putInt(1).putInt(0).putInt(0).putInt(0).putInt(0)
                        .array());
                probed = true;
            }
        }
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (server.nfs4().backChannelProbesAnswered() == probes) {
            assertThat(System.nanoTime() - until).as("hang guard").isNegative();
            Thread.sleep(5);
        }
        Nfs41ServerTest.Client c = new Nfs41ServerTest.Client(s, clientId, session);
        V4Script.Res done = s.call((minor == 2 ? c.compound42() : c.compound()).op(Nfs4.OP_RECLAIM_COMPLETE).word(0));
        assertThat(done.status).as(Nfs4Status.name(done.status)).isZero();
        return c;
    }

    /** A file {@code name} in the export's root with {@link #CONTENT}, written and closed by {@code c}: its handle. */
    private static byte[] file(Nfs41ServerTest.Client c, byte[] root, String name) throws Exception {
        byte[][] open = Nfs41ServerTest.create(c, root, name);
        V4Script.Res w = c.script.call(c.compound().putfh(open[1]).op(Nfs4.OP_WRITE).stateid(open[0]).hyper(0)
                .word(2).opaque(CONTENT).op(Nfs4.OP_CLOSE).word(0).stateid(open[0]));
        assertThat(w.status).as(Nfs4Status.name(w.status)).isZero();
        return open[1];
    }

    /**
     * What an OPEN answered: its status, open stateid, and delegation (type, stateid; for OPEN_DELEGATE_NONE_EXT why
     * there is none).
     */
    private record Opened(int status, byte[] stateid, int delegationType, byte[] delegation, int whyNone) {
    }

    /**
     * OPEN of {@code name} in {@code dir} without create, for {@code access} (with want bits), deny none, claimed by
     * name.
     */
    private static Opened open(Nfs41ServerTest.Client c, byte[] dir, String name, int access, String owner)
            throws Exception {
        V4Script.Res r = c.script.call(c.compound().putfh(dir).op(Nfs4.OP_OPEN).word(0).word(access).word(0)
                .hyper(c.clientId).string(owner).word(0 /* NOCREATE */).word(0 /* CLAIM_NULL */).string(name));
        return opened(r);
    }

    private static Opened opened(V4Script.Res r) {
        r.sequenceOk().ok(Nfs4.OP_PUTFH);
        int status = r.next(Nfs4.OP_OPEN);
        if (status != 0) {
            return new Opened(status, null, -1, null, -1);
        }
        byte[] stateid = r.fixed(16);
        r.word();
        r.hyper();
        r.hyper();
        r.word();
        r.bitmap();
        int type = r.word();
        byte[] delegation = null;
        int why = -1;
        if (type == 3) {
            why = r.word();
            if (why == 1 || why == 2) {
                r.word(); // will push / will signal
            }
        }
        if (type == 1) {
            delegation = r.fixed(16);
            assertThat(r.word()).as("recall").isZero();
            assertThat(r.word()).as("ACE type").isZero();
            r.word();
            r.word();
            r.opaque();
        }
        return new Opened(status, stateid, type, delegation, why);
    }

    /** An OPEN for reading of {@code name} by {@code holder}, which must get a read delegation. */
    private static Opened delegated(Nfs41ServerTest.Client holder, byte[] root, String name) throws Exception {
        Opened read = open(holder, root, name, 1, "reader");
        assertThat(read.delegationType()).as("OPEN_DELEGATE_READ").isEqualTo(1);
        return read;
    }

    /** The next callback on {@code c}'s connection, which must be a CB_COMPOUND of CB_SEQUENCE and CB_RECALL. */
    private record CbRecall(int xid, int credentialFlavor, int minorVersion, int sequenceId, int referringCalls,
            int referredSequenceId, byte[] stateid, byte[] fh) {
    }

    private static CbRecall receiveRecall(Nfs41ServerTest.Client c) throws Exception {
        ByteBuffer m = ByteBuffer.wrap(c.script.receive());
        int xid = m.getInt();
        assertThat(m.getInt()).as("a CALL").isZero();
        m.getInt(); // rpcvers
        assertThat(m.getInt()).as("the callback program").isEqualTo(CB_PROGRAM);
        assertThat(m.getInt()).as("NFS_CB version").isEqualTo(1);
        assertThat(m.getInt()).as("CB_COMPOUND").isEqualTo(1);
        int flavor = m.getInt();
        for (int i = 0; i < 2; i++) { // credential, verifier
            if (i == 1) {
                m.getInt();
            }
            int length = m.getInt();
            m.position(m.position() + ((length + 3) & ~3));
        }
        assertThat(m.getInt()).as("tag").isZero();
        int minor = m.getInt();
        m.getInt(); // callback_ident
        assertThat(m.getInt()).as("operations").isEqualTo(2);
        assertThat(m.getInt()).as("CB_SEQUENCE").isEqualTo(11);
        byte[] session = new byte[16];
        m.get(session);
        assertThat(session).isEqualTo(c.session);
        int sequenceId = m.getInt();
        assertThat(m.getInt()).as("slot").isZero();
        assertThat(m.getInt()).as("highest slot").isZero();
        assertThat(m.getInt()).as("cachethis").isZero();
        int lists = m.getInt();
        int referred = -1;
        int calls = 0;
        for (int i = 0; i < lists; i++) {
            byte[] s = new byte[16];
            m.get(s);
            assertThat(s).as("the referring call's session").isEqualTo(c.session);
            calls = m.getInt();
            for (int j = 0; j < calls; j++) {
                referred = m.getInt();
                assertThat(m.getInt()).as("the referring call's slot").isZero();
            }
        }
        assertThat(m.getInt()).as("CB_RECALL").isEqualTo(4);
        byte[] stateid = new byte[16];
        m.get(stateid);
        assertThat(m.getInt()).as("truncate").isZero();
        byte[] fh = new byte[m.getInt()];
        m.get(fh);
        return new CbRecall(xid, flavor, minor, sequenceId, calls, referred, stateid, fh);
    }

    /** Answers a CB_RECALL: CB_SEQUENCE and CB_RECALL both {@code status}. */
    private static void answer(Nfs41ServerTest.Client c, CbRecall cb, int status) throws Exception {
        ByteBuffer b = ByteBuffer.allocate(128);
        b.putInt(cb.xid()).putInt(1).putInt(0).putInt(0).putInt(0).putInt(0);
        b.putInt(status).putInt(0).putInt(2);
        b.putInt(11).putInt(0).put(c.session).putInt(cb.sequenceId()).putInt(0).putInt(0).putInt(0);
        b.putInt(4).putInt(status);
        c.script.send(Arrays.copyOf(b.array(), b.position()));
    }

    /** Answers a CB_COMPOUND whose CB_SEQUENCE failed with {@code status}. */
    private static void refuseSequence(Nfs41ServerTest.Client c, CbRecall cb, int status) throws Exception {
        ByteBuffer b = ByteBuffer.allocate(64);
        b.putInt(cb.xid()).putInt(1).putInt(0).putInt(0).putInt(0).putInt(0);
        b.putInt(status).putInt(0).putInt(1).putInt(11).putInt(status);
        c.script.send(Arrays.copyOf(b.array(), b.position()));
    }

    @Test
    void aCallbackTheClientPutOffIsSentAgainWithTheSameSequenceId() throws Exception {
        try (V4Script a = connect(); V4Script b = connect()) {
            Nfs41ServerTest.Client holder = callbackClient(a, "busy-holder");
            Nfs41ServerTest.Client writer = Nfs41ServerTest.session(b, "writer");
            byte[] root = Nfs41ServerTest.exportRoot(holder);
            byte[] fh = file(holder, root, "s");
            Opened read = delegated(holder, root, "s");
            assertThat(Nfs4Status.name(open(writer, root, "s", 2, "w").status())).isEqualTo("NFS4ERR_DELAY");

            // the client puts CB_SEQUENCE off (an OPEN it was referred to is still on its way): the slot did not move
            CbRecall first = receiveRecall(holder);
            refuseSequence(holder, first, Nfs4Status.NFS4ERR_DELAY);
            CbRecall again = receiveRecall(holder);
            assertThat(again.sequenceId()).as("the same sequence id").isEqualTo(first.sequenceId());
            // out of step: the server starts the slot over
            refuseSequence(holder, again, Nfs4Status.NFS4ERR_SEQ_MISORDERED);
            CbRecall over = receiveRecall(holder);
            assertThat(over.sequenceId()).isEqualTo(1);
            answer(holder, over, 0);
            V4Script.Res back = a.call(holder.compound().putfh(fh).op(Nfs4.OP_DELEGRETURN).stateid(read.delegation()));
            back.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_DELEGRETURN);
            Opened read2 = open(holder, root, "s", 1, "reader-2");
            assertThat(read2.delegationType()).as("recalled lately: none").isZero();
            awaitCount("recalls_answered", 1);
        }
    }

    private long count(String what) {
        return server.nfs4().delegationCounts().get(what);
    }

    /**
     * Asserts the counter {@code what} reaches {@code value}: an answered recall is counted on the server's callback
     * thread once the client's answer is in, which may be after the client's next request was served.
     */
    private void awaitCount(String what, long value) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (count(what) < value && System.nanoTime() - until < 0) {
            Thread.sleep(5);
        }
        assertThat(count(what)).as(what).isEqualTo(value);
    }

    @Test
    void aReadOpenGetsADelegationThatAnotherClientsWriteOpenRecalls() throws Exception {
        try (V4Script a = connect(); V4Script b = connect()) {
            // an NFSv4.2 session whose callbacks take AUTH_SYS (as the Linux client's callback service asks)
            byte[] machine = "holder-host".getBytes(StandardCharsets.UTF_8);
            Nfs41ServerTest.Client holder = callbackClient(a, "holder", 2, new V4Script.Args(1).word(1 /* AUTH_SYS */)
                    .word(7).opaque(machine).word(0).word(0).word(0));
            Nfs41ServerTest.Client writer = Nfs41ServerTest.session(b, "writer");
            byte[] root = Nfs41ServerTest.exportRoot(writer);
            // made by the holder: a file another client changed just now gets none (see DelegationStatesTest)
            byte[] fh = file(holder, root, "f");

            Opened read = open(holder, root, "f", 1, "reader");
            assertThat(read.status()).isZero();
            assertThat(read.delegationType()).as("OPEN_DELEGATE_READ").isEqualTo(1);
            int grantedBySequence = holder.seq;
            // READ through the delegation's stateid
            V4Script.Res r = a.call(holder.compound().putfh(fh).op(Nfs4.OP_READ).stateid(read.delegation()).hyper(0)
                    .word(1000));
            r.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_READ);
            r.word();
            assertThat(r.opaque()).isEqualTo(CONTENT);
            // the holder opens again for reading: no second delegation of the file
            assertThat(open(holder, root, "f", 1, "reader-2").delegationType()).isZero();
            // a client without a back channel gets none
            assertThat(open(writer, root, "f", 1, "other-reader").delegationType()).isZero();

            // another client's open for writing waits for the recall
            Opened blocked = open(writer, root, "f", 2, "the-writer");
            assertThat(Nfs4Status.name(blocked.status())).isEqualTo("NFS4ERR_DELAY");
            CbRecall cb = receiveRecall(holder);
            assertThat(cb.stateid()).isEqualTo(read.delegation());
            assertThat(cb.fh()).isEqualTo(fh);
            assertThat(cb.sequenceId()).as("the back channel slot's first sequence id").isEqualTo(1);
            assertThat(cb.credentialFlavor()).as("the AUTH_SYS the session's callbacks take").isEqualTo(1);
            assertThat(cb.minorVersion()).as("the session's minor version").isEqualTo(2);
            assertThat(cb.referringCalls()).as("the OPEN that granted it").isEqualTo(1);
            assertThat(cb.referredSequenceId()).isEqualTo(grantedBySequence);
            answer(holder, cb, 0);
            // still held: DELAY again, and no second recall is sent
            assertThat(Nfs4Status.name(open(writer, root, "f", 2, "the-writer").status())).isEqualTo("NFS4ERR_DELAY");

            // the holder claims an open through the delegation (CLAIM_DELEG_CUR_FH), then gives it back
            V4Script.Res claimed = a.call(holder.compound().putfh(fh).op(Nfs4.OP_OPEN).word(0).word(1).word(0)
                    .hyper(holder.clientId).string("local-open").word(0).word(5 /* CLAIM_DELEG_CUR_FH */)
                    .stateid(read.delegation()));
            Opened local = opened(claimed);
            assertThat(Nfs4Status.name(local.status())).isEqualTo("NFS4_OK");
            assertThat(local.delegationType()).isZero();
            V4Script.Res back = a.call(holder.compound().putfh(fh).op(Nfs4.OP_DELEGRETURN).stateid(read.delegation()));
            back.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_DELEGRETURN);

            Opened writing = open(writer, root, "f", 2, "the-writer");
            assertThat(Nfs4Status.name(writing.status())).isEqualTo("NFS4_OK");
            // with a writer, no new delegation
            assertThat(open(holder, root, "f", 1, "reader-3").delegationType()).isZero();
            // the returned delegation is gone
            V4Script.Res again = a.call(holder.compound().putfh(fh).op(Nfs4.OP_DELEGRETURN)
                    .stateid(read.delegation()));
            again.sequenceOk().ok(Nfs4.OP_PUTFH);
            assertThat(Nfs4Status.name(again.next(Nfs4.OP_DELEGRETURN))).isEqualTo("NFS4ERR_BAD_STATEID");
            awaitCount("recalls_answered", 1);
            assertThat(server.nfs4().delegationCounts()).containsAllEntriesOf(Map.of("granted", 1L, "recalled", 1L,
                    "returned", 1L, "revoked", 0L, "held", 0L, "recalls_answered", 1L));
        }
    }

    @Test
    void delegationStateidsReadButDoNotWriteAndAreFreedOnlyWhenRevoked() throws Exception {
        try (V4Script a = connect()) {
            Nfs41ServerTest.Client holder = callbackClient(a, "rules");
            byte[] root = Nfs41ServerTest.exportRoot(holder);
            byte[] fh = file(holder, root, "g");
            // OPEN4_SHARE_ACCESS_WANT_NO_DELEG: none, OPEN_DELEGATE_NONE_EXT saying WND4_NOT_WANTED
            Opened notWanted = open(holder, root, "g", 0x0401, "no-thanks");
            assertThat(notWanted.delegationType()).isEqualTo(3);
            assertThat(notWanted.whyNone()).isZero();
            // a write delegation wanted: none (WND4_CONTENTION)
            Opened writeWanted = open(holder, root, "g", 0x0201, "write-please");
            assertThat(writeWanted.delegationType()).isEqualTo(3);
            assertThat(writeWanted.whyNone()).isEqualTo(1);
            // WANT_READ_DELEG: one
            Opened read = open(holder, root, "g", 0x0101, "yes-please");
            assertThat(read.delegationType()).isEqualTo(1);
            V4Script.Res w = a.call(holder.compound().putfh(fh).op(Nfs4.OP_WRITE).stateid(read.delegation()).hyper(0)
                    .word(2).opaque(new byte[] {1}));
            w.sequenceOk().ok(Nfs4.OP_PUTFH);
            assertThat(Nfs4Status.name(w.next(Nfs4.OP_WRITE))).isEqualTo("NFS4ERR_OPENMODE");
            V4Script.Res cl = a.call(holder.compound().putfh(fh).op(Nfs4.OP_CLOSE).word(0).stateid(read.delegation()));
            cl.sequenceOk().ok(Nfs4.OP_PUTFH);
            assertThat(Nfs4Status.name(cl.next(Nfs4.OP_CLOSE))).isEqualTo("NFS4ERR_BAD_STATEID");
            V4Script.Res t = a.call(holder.compound().op(Nfs4.OP_TEST_STATEID).word(1).stateid(read.delegation())
                    .op(Nfs4.OP_FREE_STATEID).stateid(read.delegation()));
            t.sequenceOk().ok(Nfs4.OP_TEST_STATEID);
            assertThat(t.word()).isEqualTo(1);
            assertThat(t.word()).isZero();
            assertThat(Nfs4Status.name(t.next(Nfs4.OP_FREE_STATEID))).as("held, not revoked")
                    .isEqualTo("NFS4ERR_LOCKS_HELD");
            // the holder's own write open does not recall its own delegation
            assertThat(Nfs4Status.name(open(holder, root, "g", 3, "own-writer").status())).isEqualTo("NFS4_OK");
            assertThat(count("recalled")).isZero();
            assertThat(count("held")).isEqualTo(1);
        }
    }

    @Test
    void nfsv3ChangesWaitForTheRecallAndAreJukeboxedUntilTheReturn() throws Exception {
        try (V4Script a = connect(); RpcTcpClient v3 = RpcTcpClient.connect(server.address())) {
            Nfs41ServerTest.Client holder = callbackClient(a, "v3-victim");
            byte[] root = Nfs41ServerTest.exportRoot(holder);
            byte[] fh = file(holder, root, "h");
            Opened read = delegated(holder, root, "h");

            byte[] newContent = "written over NFSv3".getBytes(StandardCharsets.UTF_8);
            byte[] write = write3(fh, newContent);
            byte[] reply = v3.call(Calls.call(0x77, Nfs3.PROGRAM, Nfs3.VERSION, Nfs3.WRITE, Calls.unix(0),
                    new Nfs4Program.Raw(write)));
            assertThat(Calls.intAt(reply, Calls.REPLY_HEADER)).as("NFS3ERR_JUKEBOX").isEqualTo(10008);
            assertThat(stored("h", CONTENT.length)).as("nothing written yet").isEqualTo(CONTENT);
            CbRecall cb = receiveRecall(holder);
            assertThat(cb.fh()).isEqualTo(fh);
            answer(holder, cb, 0);
            V4Script.Res back = a.call(holder.compound().putfh(fh).op(Nfs4.OP_DELEGRETURN).stateid(read.delegation()));
            back.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_DELEGRETURN);

            reply = v3.call(Calls.call(0x78, Nfs3.PROGRAM, Nfs3.VERSION, Nfs3.WRITE, Calls.unix(0),
                    new Nfs4Program.Raw(write)));
            assertThat(Calls.intAt(reply, Calls.REPLY_HEADER)).as("NFS3_OK").isZero();
            assertThat(stored("h", newContent.length)).isEqualTo(newContent);
        }
    }

    private byte[] stored(String name, int n) throws Exception {
        ByteBuffer b = ByteBuffer.allocate(n);
        vfs.read(vfs.lookup(vfs.root(), name).handle(), 0, b);
        return b.array();
    }

    @Test
    void ourNfsv3ClientSendsAJukeboxedWriteAgainUntilTheDelegationIsBack() throws Exception {
        try (V4Script a = connect();
             NfsClient v3 = NfsClient.mount("tcp://127.0.0.1:" + server.address().getPort() + "/export")) {
            Nfs41ServerTest.Client holder = callbackClient(a, "slow-holder");
            byte[] root = Nfs41ServerTest.exportRoot(holder);
            byte[] fh = file(holder, root, "j");
            Opened read = delegated(holder, root, "j");

            byte[] newContent = "waited for".getBytes(StandardCharsets.UTF_8);
            CompletableFuture<WriteReply> write = v3.async().write(FileHandle.of(fh), 0,
                    Unpooled.wrappedBuffer(newContent), StableHow.FILE_SYNC);
            CbRecall cb = receiveRecall(holder);
            Thread.sleep(400); // the server answers JUKEBOX meanwhile, and the client asks again
            assertThat(write).as("still asking").isNotDone();
            answer(holder, cb, 0);
            V4Script.Res back = a.call(holder.compound().putfh(fh).op(Nfs4.OP_DELEGRETURN).stateid(read.delegation()));
            back.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_DELEGRETURN);
            assertThat(write.get(30, TimeUnit.SECONDS).count()).isEqualTo((long) newContent.length);
            assertThat(stored("j", newContent.length)).isEqualTo(newContent);
        }
    }

    @Test
    void aFileJustWrittenOverNfsv3IsNotDelegated() throws Exception {
        try (V4Script a = connect(); RpcTcpClient v3 = RpcTcpClient.connect(server.address())) {
            Nfs41ServerTest.Client holder = callbackClient(a, "late-reader");
            byte[] root = Nfs41ServerTest.exportRoot(holder);
            byte[] fh = file(holder, root, "q");
            byte[] reply = v3.call(Calls.call(0x79, Nfs3.PROGRAM, Nfs3.VERSION, Nfs3.WRITE, Calls.unix(0),
                    new Nfs4Program.Raw(write3(fh, new byte[] {1, 2, 3}))));
            assertThat(Calls.intAt(reply, Calls.REPLY_HEADER)).as("NFS3_OK").isZero();
            // the WRITE might still be under way as far as the server can tell: no delegation for a moment
            assertThat(open(holder, root, "q", 1, "reader").delegationType()).isZero();
            assertThat(count("granted")).isZero();
        }
    }

    /**
     * A REMOVE or RENAME while no delegation is held notes its file as well: an OPEN of the file right after, by
     * another client, gets no delegation of it (the change might still be under way as far as the server can tell).
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"RENAME", "RENAME over it"})
    void aFileJustRenamedOverNfsv3IsNotDelegated(String change) throws Exception {
        try (V4Script a = connect();
             NfsClient v3 = NfsClient.mount("tcp://127.0.0.1:" + server.address().getPort() + "/export")) {
            Nfs41ServerTest.Client holder = callbackClient(a, "late-reader");
            byte[] root = Nfs41ServerTest.exportRoot(holder);
            file(holder, root, "r");
            file(holder, root, "over");
            FileHandle dir = FileHandle.of(root);
            if (change.equals("RENAME")) {
                v3.async().rename(dir, "r", dir, "s").get(30, TimeUnit.SECONDS);
                assertThat(open(holder, root, "s", 1, "reader").delegationType()).isZero();
            } else {
                v3.async().rename(dir, "r", dir, "over").get(30, TimeUnit.SECONDS);
                assertThat(open(holder, root, "over", 1, "reader").delegationType()).isZero();
            }
            assertThat(count("granted")).isZero();
        }
    }

    /**
     * Each change of a delegated file another NFSv4 client makes waits for the recall: DELAY, CB_RECALL to the holder,
     * and once the holder gives it back the same COMPOUND goes through.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"REMOVE", "RENAME", "RENAME over it", "SETATTR", "LINK", "WRITE, anonymous stateid"})
    void everyChangeByAnotherNfsv4ClientWaitsForTheRecall(String change) throws Exception {
        try (V4Script a = connect(); V4Script b = connect()) {
            Nfs41ServerTest.Client holder = callbackClient(a, "holder");
            Nfs41ServerTest.Client changer = Nfs41ServerTest.session(b, "changer");
            byte[] root = Nfs41ServerTest.exportRoot(holder);
            file(holder, root, "other");
            byte[] fh = file(holder, root, "d");
            Opened read = delegated(holder, root, "d");
            byte[] anonymous = new byte[16];
            java.util.function.Supplier<V4Script.Args> call = () -> switch (change) {
                case "REMOVE" -> changer.compound().putfh(root).op(Nfs4.OP_REMOVE).string("d");
                case "RENAME" -> changer.compound().putfh(root).op(Nfs4.OP_SAVEFH).op(Nfs4.OP_RENAME).string("d")
                        .string("e");
                case "RENAME over it" -> changer.compound().putfh(root).op(Nfs4.OP_SAVEFH).op(Nfs4.OP_RENAME)
                        .string("other").string("d");
                case "SETATTR" -> changer.compound().putfh(fh).op(Nfs4.OP_SETATTR).stateid(anonymous)
                        .bitmap(33 /* mode */).word(4).word(0600);
                case "LINK" -> changer.compound().putfh(fh).op(Nfs4.OP_SAVEFH).putfh(root).op(Nfs4.OP_LINK)
                        .string("hard");
                default -> changer.compound().putfh(fh).op(Nfs4.OP_WRITE).stateid(anonymous).hyper(0).word(2)
                        .opaque(new byte[] {9});
            };
            V4Script.Res first = b.call(call.get());
            assertThat(Nfs4Status.name(first.status)).isEqualTo("NFS4ERR_DELAY");
            CbRecall cb = receiveRecall(holder);
            assertThat(cb.stateid()).isEqualTo(read.delegation());
            answer(holder, cb, 0);
            V4Script.Res back = a.call(holder.compound().putfh(fh).op(Nfs4.OP_DELEGRETURN).stateid(read.delegation()));
            back.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_DELEGRETURN);
            V4Script.Res then = b.call(call.get());
            assertThat(Nfs4Status.name(then.status)).isEqualTo("NFS4_OK");
        }
    }

    /** The same for NFSv3 calls, made by this project's NFSv3 client, which sends a call answered JUKEBOX again. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"SETATTR", "REMOVE", "RENAME", "RENAME over it", "LINK", "CREATE of it, truncating"})
    void everyNfsv3ChangeWaitsForTheRecall(String change) throws Exception {
        try (V4Script a = connect();
             NfsClient v3 = NfsClient.mount("tcp://127.0.0.1:" + server.address().getPort() + "/export")) {
            Nfs41ServerTest.Client holder = callbackClient(a, "holder");
            byte[] root = Nfs41ServerTest.exportRoot(holder);
            file(holder, root, "other");
            byte[] fh = file(holder, root, "d");
            Opened read = delegated(holder, root, "d");
            FileHandle dir = FileHandle.of(root);
            FileHandle file = FileHandle.of(fh);
            CompletableFuture<?> call = switch (change) {
                case "SETATTR" -> v3.async().setattr(file, SetAttributes.NONE.withMode(0600), null);
                case "REMOVE" -> v3.async().remove(dir, "d");
                case "RENAME" -> v3.async().rename(dir, "d", dir, "e");
                case "RENAME over it" -> v3.async().rename(dir, "other", dir, "d");
                case "LINK" -> v3.async().link(file, dir, "hard");
                default -> v3.async().create(dir, "d", CreateMode.UNCHECKED, SetAttributes.NONE.withSize(0), 0);
            };
            CbRecall cb = receiveRecall(holder);
            assertThat(cb.stateid()).isEqualTo(read.delegation());
            Thread.sleep(200); // answered JUKEBOX meanwhile, and sent again
            assertThat(call).as("waits for the return").isNotDone();
            answer(holder, cb, 0);
            V4Script.Res back = a.call(holder.compound().putfh(fh).op(Nfs4.OP_DELEGRETURN).stateid(read.delegation()));
            back.sequenceOk().ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_DELEGRETURN);
            call.get(30, TimeUnit.SECONDS);
            assertThat(count("recalled")).isEqualTo(1);
        }
    }

    /** WRITE3args of {@code data} at 0, FILE_SYNC. */
    private static byte[] write3(byte[] fh, byte[] data) {
        ByteBuffer b = ByteBuffer.allocate(64 + fh.length + data.length);
        b.putInt(fh.length).put(fh).put(new byte[(4 - (fh.length & 3)) & 3]);
        b.putLong(0).putInt(data.length).putInt(2 /* FILE_SYNC */).putInt(data.length).put(data)
                .put(new byte[(4 - (data.length & 3)) & 3]);
        return Arrays.copyOf(b.array(), b.position());
    }

    @Test
    void aDelegationNotReturnedIsRevokedWhenTheLeaseHasPassedAndFreedByTheClient() throws Exception {
        try (V4Script a = connect(Duration.ofSeconds(2)); V4Script b = connect(Duration.ofSeconds(2))) {
            Nfs41ServerTest.Client holder = callbackClient(a, "silent");
            Nfs41ServerTest.Client writer = Nfs41ServerTest.session(b, "impatient");
            byte[] root = Nfs41ServerTest.exportRoot(writer);
            byte[] fh = file(holder, root, "k");
            Opened read = delegated(holder, root, "k");

            assertThat(Nfs4Status.name(open(writer, root, "k", 2, "w").status())).isEqualTo("NFS4ERR_DELAY");
            CbRecall cb = receiveRecall(holder);
            answer(holder, cb, 0); // but never returned
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            int status;
            do {
                assertThat(System.nanoTime() - until).as("hang guard").isNegative();
                Thread.sleep(300);
                V4Script.Res renew = a.call(holder.compound()); // the holder's lease stays renewed
                assertThat(renew.status).isZero();
                status = open(writer, root, "k", 2, "w").status();
            } while (status == Nfs4Status.NFS4ERR_DELAY);
            assertThat(Nfs4Status.name(status)).isEqualTo("NFS4_OK");
            assertThat(count("revoked")).isEqualTo(1);

            V4Script.Res s = a.call(holder.compound().putfh(fh).op(Nfs4.OP_READ).stateid(read.delegation()).hyper(0)
                    .word(10));
            s.ok(Nfs4.OP_SEQUENCE);
            s.fixed(Nfs4.SESSIONID_SIZE);
            s.word();
            s.word();
            s.word();
            s.word();
            assertThat(s.word() & 0x40).as("SEQ4_STATUS_RECALLABLE_STATE_REVOKED").isEqualTo(0x40);
            s.ok(Nfs4.OP_PUTFH);
            assertThat(Nfs4Status.name(s.next(Nfs4.OP_READ))).isEqualTo("NFS4ERR_DELEG_REVOKED");
            V4Script.Res f = a.call(holder.compound().op(Nfs4.OP_TEST_STATEID).word(1).stateid(read.delegation())
                    .op(Nfs4.OP_FREE_STATEID).stateid(read.delegation()));
            f.sequenceOk().ok(Nfs4.OP_TEST_STATEID);
            f.word();
            assertThat(Nfs4Status.name(f.word())).isEqualTo("NFS4ERR_DELEG_REVOKED");
            f.ok(Nfs4.OP_FREE_STATEID);
            V4Script.Res after = a.call(holder.compound());
            after.ok(Nfs4.OP_SEQUENCE);
            after.fixed(Nfs4.SESSIONID_SIZE);
            for (int i = 0; i < 4; i++) {
                after.word();
            }
            assertThat(after.word() & 0x40).as("freed: the flag is gone").isZero();
        }
    }

    /**
     * Two recalls for one client whose back channel does not answer: the second waits for the session's callback
     * slot while the first waits out its timeout, and then finds the path gone and revokes, instead of waiting the
     * same timeout on the same dead path (each such recall held one of the few callback threads that long).
     */
    @Test
    void aRecallQueuedBehindOneThatWentUnansweredIsNotSentOnTheSamePath() throws Exception {
        try (V4Script a = connect(); V4Script b = connect()) {
            Nfs41ServerTest.Client holder = callbackClient(a, "deaf");
            Nfs41ServerTest.Client writer = Nfs41ServerTest.session(b, "writer");
            byte[] root = Nfs41ServerTest.exportRoot(writer);
            file(holder, root, "p");
            file(holder, root, "q");
            delegated(holder, root, "p");
            delegated(holder, root, "q");

            assertThat(Nfs4Status.name(open(writer, root, "p", 2, "w1").status())).isEqualTo("NFS4ERR_DELAY");
            assertThat(Nfs4Status.name(open(writer, root, "q", 2, "w2").status())).isEqualTo("NFS4ERR_DELAY");
            receiveRecall(holder); // never answered
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (count("revoked") < 2) {
                assertThat(System.nanoTime() - until).as("hang guard").isNegative();
                Thread.sleep(100);
            }
            assertThat(holder.script.pending()).as("a second CB_COMPOUND on the path that did not answer").isFalse();
        }
    }

    @Test
    void aServerToldNotToGrantsNone() throws Exception {
        server = NfsServer.builder().export("/export", vfs).bindAddress("127.0.0.1").port(0)
                .nfs4(Nfs41ServerTest.noGrace(Duration.ofSeconds(60))).delegations(false).build();
        server.start();
        try (V4Script a = new V4Script(server.address())) {
            Nfs41ServerTest.Client holder = callbackClient(a, "unlucky");
            byte[] root = Nfs41ServerTest.exportRoot(holder);
            file(holder, root, "m");
            assertThat(open(holder, root, "m", 1, "reader").delegationType()).isZero();
            assertThat(count("granted")).isZero();
        }
    }
}
