package org.rpcrdma4j.nfs.client.v4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.net.BindException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.v4.state.ClientTable;
import org.rpcrdma4j.nfs.v4.state.StateConfig;
import org.rpcrdma4j.nfs.v4.state.Stateid;
import org.rpcrdma4j.xprt.drc.TcpProxy;

/** {@link AbstractNfs41ClientTest} over TCP, and the restarts of the server under a client. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class Nfs41ClientTcpTest extends AbstractNfs41ClientTest {
    private NfsServer server;
    private TcpProxy proxy;
    private StateConfig state;

    @Override
    protected void startServer(StateConfig config) throws IOException {
        this.state = config;
        server = build(0);
        proxy = new TcpProxy(server.address());
    }

    private NfsServer build(int port) throws IOException {
        for (int attempt = 0; ; attempt++) {
            try {
                return NfsServer.builder().export("/export", vfs).bindAddress("127.0.0.1").port(port)
                        .workerThreads(32).nfs4(state).build().start();
            } catch (BindException e) {
                if (port == 0 || attempt >= 100) { // the old listener's socket may close a moment after stop
                    throw e;
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    /** A new server instance (new client table, new boot) on the same port, over the same files. */
    private void restart(StateConfig config) throws IOException {
        int port = server.port();
        server.close();
        this.state = config;
        server = build(port);
    }

    @Override
    protected Nfs41Client newClient(NfsClientConfig config, Nfs41Options options) throws IOException {
        return Nfs41Client.mount("tcp://127.0.0.1:" + proxy.address().getPort() + "/export", config, options);
    }

    @Override
    protected ClientTable serverState() {
        return server.nfs4().clients();
    }

    @Override
    protected void cutConnections() {
        proxy.dropAll();
    }

    @Override
    protected int connectionsMade() {
        return proxy.accepted();
    }

    @Override
    protected void stopServer() throws Exception {
        if (proxy != null) {
            proxy.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aRestartedServerGetsANewClientIdAndTheOpenFileIsOpenedAgain() throws Exception {
        start();
        Nfs41Client c = client();
        FileHandle fh = c.createFile("/restart");
        byte[] data = pattern(2 * MIB, 21);
        ByteBuf first = c.allocateBuffer(MIB);
        first.writeBytes(data, 0, MIB);
        c.write(fh, 0, first, StableHow.FILE_SYNC);
        restart(state(Duration.ofSeconds(60), Duration.ZERO)); // no grace: CLAIM_PREVIOUS is refused, OPEN by handle

        ByteBuf second = c.allocateBuffer(MIB);
        second.writeBytes(data, MIB, MIB);
        assertThat(c.write(fh, MIB, second, StableHow.FILE_SYNC).count()).isEqualTo(MIB);
        first.release();
        second.release();
        assertThat(c.session().clientIdsCreated()).isEqualTo(2);
        assertThat(c.async().isOpen(fh)).isTrue();
        assertThat(serverState().opens().openCount(c.session().clientId())).as("the server knows the new open")
                .isOne();
        assertThat(stored("restart")).isEqualTo(data);
        assertThat(c.readAll("/restart")).isEqualTo(data);
    }

    @Test
    void inTheGracePeriodTheOpenIsReclaimedAndNewOpensWaitForItsEnd() throws Exception {
        start();
        Nfs41Client c = client(Nfs41Options.defaults().withDelayRetries(100, Duration.ofMillis(20),
                Duration.ofMillis(200)));
        FileHandle fh = c.createFile("/grace");
        byte[] data = pattern(200_000, 22);
        writeChunks(c, fh, java.util.Arrays.copyOf(data, 100_000), 100_000, StableHow.FILE_SYNC);

        restart(state(Duration.ofSeconds(60), Duration.ofSeconds(4)));

        // the open is reclaimed (CLAIM_PREVIOUS) before RECLAIM_COMPLETE, so this WRITE goes on in the grace period
        ByteBuf b = c.allocateBuffer(100_000);
        b.writeBytes(data, 100_000, 100_000);
        assertThat(c.write(fh, 100_000, b, StableHow.FILE_SYNC).count()).isEqualTo(100_000);
        b.release();
        assertThat(c.session().delayRetries()).as("an OPEN by handle would have met NFS4ERR_GRACE").isZero();
        // a new OPEN is NFS4ERR_GRACE until the grace period ends: the client waits and tries again
        c.writeAll("/after-grace", new byte[] {1, 2, 3});
        assertThat(c.session().delayRetries()).isPositive();
        assertThat(stored("grace")).isEqualTo(data);
        assertThat(stored("after-grace")).containsExactly(1, 2, 3);
    }

    @Test
    void aNewOpenWaitsOutTheGracePeriodHoweverFewDelayRetriesItHas() throws Exception {
        start();
        Nfs41Client c = client(Nfs41Options.defaults().withDelayRetries(2, Duration.ofMillis(5),
                Duration.ofMillis(50)));
        c.writeAll("/before", new byte[] {1});
        restart(state(Duration.ofSeconds(60), Duration.ofSeconds(2)));
        // 2 DELAY retries of 5-50 ms would give up long before the 2 s grace period ends
        c.writeAll("/after-grace", new byte[] {4, 5, 6});
        assertThat(stored("after-grace")).containsExactly(4, 5, 6);
        assertThat(c.session().delayRetries()).as("GRACE asked again and again").isGreaterThan(2);
    }

    @Test
    void inTheGracePeriodLocksAreReclaimedAndAnotherClientStaysOut() throws Exception {
        start();
        Nfs41Client c = client(Nfs41Options.defaults().withOwnerId("holder"));
        FileHandle fh = c.createFile("/grace-lock");
        c.lock(fh, LockType.WRITE, 0, 4096);
        c.lock(fh, LockType.READ, 8192, Nfs41AsyncClient.TO_END);

        restart(state(Duration.ofSeconds(60), Duration.ofSeconds(4)));

        ByteBuf b = c.allocateBuffer(100);
        b.writeBytes(pattern(100, 23));
        assertThat(c.write(fh, 0, b, StableHow.FILE_SYNC).count()).isEqualTo(100); // recovers, locks reclaimed
        b.release();
        long id = c.session().clientId();
        assertThat(c.session().clientIdsCreated()).isEqualTo(2);
        assertThat(serverState().opens().locks().lockStateCount(id)).isOne();
        Nfs41Client other = client(Nfs41Options.defaults().withOwnerId("other").withDelayRetries(100,
                Duration.ofMillis(20), Duration.ofMillis(200)));
        FileHandle same = other.resolve("/grace-lock");
        assertThatThrownBy(() -> other.lock(same, LockType.READ, 4000, 10)).isInstanceOf(LockDeniedException.class);
        assertThatThrownBy(() -> other.lock(same, LockType.WRITE, 9000, 1)).isInstanceOf(LockDeniedException.class);
        other.lock(same, LockType.READ, 9000, 1);
        other.lock(same, LockType.WRITE, 5000, 100);
    }

    @Test
    void locksThatCannotBeReclaimedAreLostAndTheFileFailsUntilClosed() throws Exception {
        start();
        Nfs41Client c = client();
        FileHandle fh = c.createFile("/lost-lock");
        c.lock(fh, LockType.WRITE, 0, Nfs41AsyncClient.TO_END);

        restart(state(Duration.ofSeconds(60), Duration.ZERO)); // no grace: nothing can be reclaimed

        ByteBuf b = c.allocateBuffer(100);
        b.writeBytes(pattern(100, 24));
        assertThatThrownBy(() -> c.write(fh, 0, b, StableHow.FILE_SYNC)).isInstanceOf(LocksLostException.class);
        assertThatThrownBy(() -> c.lock(fh, LockType.READ, 0, 1)).isInstanceOf(LocksLostException.class);
        assertThat(c.session().clientIdsCreated()).isEqualTo(2);
        assertThat(serverState().opens().locks().lockStateCount(c.session().clientId())).isZero();

        c.close(fh);

        assertThat(c.write(fh, 0, b, StableHow.FILE_SYNC).count()).isEqualTo(100);
        c.lock(fh, LockType.WRITE, 0, 1);
        b.release();
        assertThat(stored("lost-lock")).isEqualTo(pattern(100, 24));
    }

    @Test
    void locksOfAnOpenTheServerNoLongerKnowsAreLost() throws Exception {
        start();
        Nfs41Client c = client();
        FileHandle fh = c.createFile("/dropped-open");
        c.lock(fh, LockType.WRITE, 0, 10);
        // the server forgets the open, and its locks with it (as an administrator's revocation would)
        Stateid4 open = c.async().files().stateidOf(fh);
        serverState().opens().close(c.session().clientId(), new Stateid(0, open.other()), fh);

        ByteBuf b = c.allocateBuffer(10);
        b.writeBytes(pattern(10, 25));
        assertThatThrownBy(() -> c.write(fh, 0, b, StableHow.FILE_SYNC)).as("BAD_STATEID, opened again, locks lost")
                .isInstanceOf(LocksLostException.class);
        c.close(fh);
        assertThat(c.write(fh, 0, b, StableHow.FILE_SYNC).count()).isEqualTo(10);
        b.release();
    }

    @Test
    void aRevocationOfDelegationsAloneKeepsTheLocksAndTheirUnlockWorks() throws Exception {
        start();
        Nfs41Client c = client(Nfs41Options.defaults().withOwnerId("holder"));
        Nfs41Client other = client(Nfs41Options.defaults().withOwnerId("other"));
        FileHandle fh = c.createFile("/revoked");
        c.lock(fh, LockType.WRITE, 0, 100);

        // SEQUENCE said delegations or layouts were revoked: the opens and locks stay as they are
        Stateid4 before = c.async().files().stateidOf(fh);
        c.async().files().stateRevoked(Nfs4Ops.SEQ4_STATUS_RECALLABLE_STATE_REVOKED);
        assertThat(c.async().files().stateidOf(fh)).isEqualTo(before);
        assertThatThrownBy(() -> other.lock(fh, LockType.READ, 0, 1)).isInstanceOf(LockDeniedException.class);
        c.unlock(fh, 0, Nfs41AsyncClient.TO_END);
        other.lock(fh, LockType.READ, 0, 1);

        // other state said to be revoked, though the server holds all of this client's: TEST_STATEID finds the open
        // and the lock stateid good, and both stay
        c.lock(fh, LockType.READ, 200, 1);
        Stateid4 open = c.async().files().stateidOf(fh);
        c.async().files().stateRevoked(Nfs4Ops.SEQ4_STATUS_EXPIRED_SOME_STATE_REVOKED);
        c.async().files().revokedState().lastRound().get();
        assertThat(c.async().files().revokedState().rounds()).isOne();
        assertThat(c.async().files().revokedState().freed()).isZero();
        assertThat(c.async().files().stateidOf(fh)).isEqualTo(open);
        ByteBuf b = c.allocateBuffer(10);
        b.writeBytes(pattern(10, 26));
        assertThat(c.write(fh, 0, b, StableHow.FILE_SYNC).count()).as("the locks were kept").isEqualTo(10);
        b.release();
        assertThatThrownBy(() -> other.lock(fh, LockType.WRITE, 200, 1)).isInstanceOf(LockDeniedException.class);
    }

    /** The TCP transport has no reverse direction here: the session asks for no back channel, and none is probed. */
    @org.junit.jupiter.api.Test
    void overTcpNoBackChannelIsAskedFor() throws Exception {
        start();
        Nfs41Client c = client();
        c.writeAll("/plain", new byte[] {1, 2, 3});
        assertThat(c.session().servesCallbacks()).isFalse();
        assertThat(serverState().session(c.session().sessionId()).flags() & 2).as("no CONN_BACK_CHAN").isZero();
        assertThat(server.nfs4().backChannelProbesAnswered() + server.nfs4().backChannelProbesFailed()).isZero();
    }
}
