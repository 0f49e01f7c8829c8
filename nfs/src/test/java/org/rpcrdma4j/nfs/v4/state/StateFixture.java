package org.rpcrdma4j.nfs.v4.state;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.assertj.core.api.AbstractThrowableAssert;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.v4.Nfs4Exception;
import org.rpcrdma4j.nfs.v4.Nfs4Status;

/** A client table on a fake clock, and short-hands for the steps a client takes. */
final class StateFixture {
    static final int BOOT = 0x5eed0001;
    static final long LEASE_NANOS = Duration.ofSeconds(90).toNanos();
    static final long GRACE_NANOS = Duration.ofSeconds(30).toNanos();
    static final ChannelAttributes ASK = new ChannelAttributes(0, 1 << 20, 1 << 20, 4096, 16, 8);

    final AtomicLong clock = new AtomicLong(1_000_000_000L);
    final ClientTable table;

    StateFixture() {
        this(StateConfig.defaults().foreLimits(), 4, Duration.ofNanos(GRACE_NANOS));
    }

    StateFixture(ChannelAttributes foreLimits, int maxSessions, Duration grace) {
        this(new StateConfig(Duration.ofNanos(LEASE_NANOS), grace, foreLimits, StateConfig.defaults().backLimits(),
                maxSessions));
    }

    StateFixture(StateConfig config) {
        table = new ClientTable(config, BOOT, clock::get);
    }

    void advance(long nanos) {
        clock.addAndGet(nanos);
    }

    void pastGrace() {
        advance(GRACE_NANOS);
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] verifier(int v) {
        return new byte[] {0, 0, 0, 0, (byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
    }

    static FileHandle file(String name) {
        return FileHandle.of(bytes(name));
    }

    ExchangeIdResult exchange(String owner, int verifier) throws Nfs4Exception {
        return table.exchangeId(bytes(owner), verifier(verifier), 0);
    }

    CreateSessionResult create(ExchangeIdResult x) throws Nfs4Exception {
        return table.createSession(x.clientId(), x.sequenceId(), 0, ASK, ASK, 0x40000000);
    }

    /** A confirmed client of {@code owner} with one session. */
    Client client(String owner) throws Nfs4Exception {
        ExchangeIdResult x = exchange(owner, 1);
        CreateSessionResult cs = create(x);
        return new Client(x.clientId(), cs.sessionId().toByteArray());
    }

    /** One SEQUENCE on slot 0 of the client's session, completed with a reply of one byte. */
    void ping(Client c) throws Nfs4Exception {
        SequenceResult r = table.sequence(c.session, ++c.slot0, 0, 0, false);
        table.completeSequence(r.session(), 0, new byte[] {1});
    }

    static final class Client {
        final long id;
        final byte[] session;
        int slot0;

        Client(long id, byte[] session) {
            this.id = id;
            this.session = session;
        }
    }

    interface Call {
        void run() throws Exception;
    }

    /** Asserts that {@code call} throws an {@link Nfs4Exception} of {@code status}. */
    static AbstractThrowableAssert<?, ?> assertStatus(int status, Call call) {
        return assertThatThrownBy(call::run).isInstanceOf(Nfs4Exception.class)
                .satisfies(e -> org.assertj.core.api.Assertions.assertThat(Nfs4Status.name(((Nfs4Exception) e)
                        .status())).isEqualTo(Nfs4Status.name(status)));
    }
}
