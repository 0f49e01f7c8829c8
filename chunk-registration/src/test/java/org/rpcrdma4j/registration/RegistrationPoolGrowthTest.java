package org.rpcrdma4j.registration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.registration.fake.FakeDevice;
import org.rpcrdma4j.verbs.FastRegMemoryRegion;
import org.rpcrdma4j.verbs.Fmr;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * Growing the handle pool when the device, or the executor that grows it, refuses: a waiter waits for a handle to
 * come back, asking the device again only after pauses, and a growth that could not even start does not stop every
 * later one.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RegistrationPoolGrowthTest {
    /** A protection domain whose device makes only the first {@code allowed} fast-register regions. */
    private static final class ScarceRegions implements ProtectionDomain {
        private final ProtectionDomain pd;
        final AtomicInteger attempts = new AtomicInteger();
        private final int allowed;

        ScarceRegions(ProtectionDomain pd, int allowed) {
            this.pd = pd;
            this.allowed = allowed;
        }

        @Override
        public FastRegMemoryRegion allocFastRegMr(int maxPages) throws VerbsException {
            if (attempts.incrementAndGet() > allowed) {
                throw new VerbsException("out of memory regions");
            }
            return pd.allocFastRegMr(maxPages);
        }

        @Override
        public RdmaDevice device() {
            return pd.device();
        }

        @Override
        public RegisteredMemory registerMemory(ByteBuffer buffer, int access) throws VerbsException {
            return pd.registerMemory(buffer, access);
        }

        @Override
        public Fmr allocFmr(int maxPages, int access) throws VerbsException {
            return pd.allocFmr(maxPages, access);
        }

        @Override
        public void unmapFmrs(List<? extends Fmr> fmrs) throws VerbsException {
            pd.unmapFmrs(fmrs);
        }

        @Override
        public QueuePair createQueuePair(QueuePairConfig config) throws VerbsException {
            return pd.createQueuePair(config);
        }

        @Override
        public void close() throws VerbsException {
            pd.close();
        }
    }

    private final FakeDevice device = FakeDevice.frwr(16);
    private RegisteredBufferPool buffers;
    private RegistrationPool pool;

    @AfterEach
    void close() {
        if (pool != null) {
            pool.close();
        }
        if (buffers != null) {
            buffers.close();
        }
    }

    private RegistrationPool pool(ProtectionDomain pd, RegistrationConfig config) throws Exception {
        buffers = RegisteredBufferPool.create(device.allocProtectionDomain(),
                new BufferPoolConfig(1 << 20, 1, 8, Duration.ofSeconds(10)));
        pool = RegistrationPool.create(pd, config.withSizes(64 << 10, 8 << 10).withMode(RegistrationMode.FRWR));
        return pool;
    }

    private Registration mapOne(int xid, long timeoutMillis) throws Exception {
        Registration r = pool.newRegistration().begin(xid);
        r.map(new ScatterList(4).add(buffers.allocate(8192), 100, 100), ChunkRole.WRITE_CHUNK_SINK, timeoutMillis,
                TimeUnit.MILLISECONDS);
        return r;
    }

    @Test
    void aWaiterWhoseGrowthFailsWaitsWithPausesAndIsToldWhy() throws Exception {
        ScarceRegions pd = new ScarceRegions(device.allocProtectionDomain(), 1);
        pool(pd, RegistrationConfig.defaults(4).withHandles(1, 4));
        mapOne(1, 0); // holds the pool's one handle
        int before = pd.attempts.get();
        assertThatThrownBy(() -> mapOne(2, 1000))
                .isInstanceOf(RegistrationPoolExhaustedException.class)
                .hasMessageContaining("adding handles failed")
                .hasMessageContaining("out of memory regions");
        // pauses of 100, 200, 400 ms... after the first failure: a handful of tries in the second, not one per wake-up
        assertThat(pd.attempts.get() - before).as("tries to add a handle while waiting 1 s").isBetween(1, 6);
    }

    @Test
    void aGrowthTheExecutorRefusedDoesNotStopLaterOnes() throws Exception {
        AtomicInteger refusals = new AtomicInteger(1);
        Executor refusesOnce = task -> {
            if (refusals.getAndDecrement() > 0) {
                throw new RejectedExecutionException("busy");
            }
            Thread t = new Thread(task, "registration-growth");
            t.setDaemon(true);
            t.start();
        };
        pool(device.allocProtectionDomain(), RegistrationConfig.defaults(4).withHandles(1, 4)
                .withExecutor(refusesOnce));
        mapOne(1, 0); // holds the pool's one handle
        Registration second = mapOne(2, 30_000); // the first growth is refused; one after the pause adds handles
        assertThat(second.state()).isEqualTo(Registration.State.MAPPED);
        assertThat(pool.allocatedHandles()).isGreaterThan(1);
    }
}
