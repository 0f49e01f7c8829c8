package org.rpcrdma4j.registration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.registration.fake.FakeDevice;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;

/** FRWR-specific pool behaviour on the fake device: the long accounting run, flush recovery, stale completions. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FrwrPoolTest {
    static final int PAGE = RegistrationConfig.PAGE_SIZE;

    static FakeHarness harness(RegistrationConfig config) throws Exception {
        return new FakeHarness(FakeDevice.frwr(16), config.withMode(RegistrationMode.FRWR));
    }

    static final class CountingListener implements InvalidationListener {
        long calls;

        @Override
        public void onInvalidated(Registration registration) {
            calls++;
        }
    }

    @Test
    void accountingHoldsAfterAMillionCyclesAndForcedDisconnects() throws Exception {
        try (FakeHarness h = harness(RegistrationConfig.defaults(8).withSizes(64 << 10, 8 << 10))) {
            RegistrationPool pool = h.pool();
            Registration[] slots = new Registration[8];
            for (int i = 0; i < slots.length; i++) {
                slots[i] = pool.newRegistration();
            }
            RegisteredBuffer buffer = h.buffers().allocate(4 * PAGE);
            ScatterList one = new ScatterList(4).add(buffer, 100, PAGE);       // unaligned: two pieces, one handle
            ScatterList aligned = new ScatterList(4).add(buffer, 0, 2 * PAGE); // one handle
            CountingListener listener = new CountingListener();
            WorkCompletion[] batch = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};
            long asynchronous = 0;
            for (int cycle = 0; cycle < 1_000_000; cycle++) {
                Registration registration = slots[cycle & 7];
                registration.begin(cycle).map((cycle & 1) == 0 ? one : aligned, ChunkRole.WRITE_CHUNK_SINK);
                h.send(registration);
                if (!registration.invalidate(listener)) {
                    asynchronous++;
                    int n = h.cq.poll(batch);
                    for (int i = 0; i < n; i++) {
                        pool.onCompletion(batch[i]);
                    }
                }
                if (cycle % 250_000 == 249_999) {
                    // a connection loss with RPCs in flight and one invalidation pending
                    slots[0].begin(1).map(aligned, ChunkRole.READ_CHUNK_SOURCE);
                    h.send(slots[0]);
                    slots[1].begin(2).map(one, ChunkRole.READ_CHUNK_SOURCE);
                    h.send(slots[1]);
                    assertThat(slots[1].invalidate(listener)).isFalse();
                    asynchronous++;
                    h.disconnect();
                    assertThat(slots[0].invalidate(listener)).isTrue();
                    assertThat(pool.allocatedHandles()).isEqualTo(pool.targetHandles());
                }
                if (pool.inUseHandles() != 0) {
                    throw new AssertionError("cycle " + cycle + ": " + pool.inUseHandles() + " handles in use");
                }
            }
            assertThat(listener.calls).as("every asynchronous invalidation finished once").isEqualTo(asynchronous);
            assertThat(pool.allocatedHandles()).isEqualTo(pool.freeHandles()).isEqualTo(pool.targetHandles());
            assertThat(h.deviceRegions()).isEqualTo(h.buffers().arenaCount() + pool.targetHandles());
            assertThat(h.device.validStags()).isEmpty();
            assertThat(pool.registrationCounters().get(RegistrationCounter.MRS_ORPHANED)).isZero();
            assertThat(pool.registrationCounters().get(RegistrationCounter.MRS_ALLOCATED))
                    .isEqualTo(5L * pool.targetHandles());
            buffer.release();
        }
    }

    @Test
    void flushedLocalInvalidationsRecoverTheirHandlesAndStillFinishTheRpc() throws Exception {
        try (FakeHarness h = harness(RegistrationConfig.defaults(4).withSizes(64 << 10, 8 << 10))) {
            RegisteredBuffer buffer = h.buffers().allocate(40 * PAGE);
            Registration registration = h.pool().newRegistration().begin(9);
            int n = registration.map(new ScatterList(64).add(buffer, 1, 36 * PAGE), ChunkRole.READ_CHUNK_SOURCE);
            assertThat(n).isEqualTo(3);
            h.send(registration);
            List<AbstractRegistrationTest.Segment> segments = AbstractRegistrationTest.segments(registration);
            h.qp.breakConnection(); // LOCAL_INVs will be flushed
            CountingListener listener = new CountingListener();
            assertThat(registration.invalidate(listener)).isFalse();
            h.pumpUntil(() -> listener.calls == 1);
            assertThat(h.pool().registrationCounters().get(RegistrationCounter.MRS_ORPHANED)).isEqualTo(3);
            assertThat(h.pool().allocatedHandles()).isEqualTo(h.pool().targetHandles());
            assertThat(h.pool().inUseHandles()).isZero();
            for (AbstractRegistrationTest.Segment s : segments) {
                assertThat(h.device.peerRead(s.handle(), s.offset(), 1).status())
                        .as("destroyed, not merely flushed").isEqualTo(WcStatus.REM_ACCESS_ERR);
            }
            buffer.release();
        }
    }

    @Test
    void completionsOfAnEarlierConnectionAreIgnored() throws Exception {
        try (FakeHarness h = harness(RegistrationConfig.defaults(2).withSizes(16 << 10, 4 << 10))) {
            RegisteredBuffer buffer = h.buffers().allocate(PAGE);
            Registration registration = h.pool().newRegistration().begin(1);
            registration.map(new ScatterList(4).add(buffer, 0, PAGE), ChunkRole.READ_CHUNK_SOURCE);
            h.send(registration);
            WorkCompletion late = new WorkCompletion();
            late.wrId = WrIds.of(WrIds.Kind.LOCAL_INV, 0, 0);
            late.status = WcStatus.WR_FLUSH_ERR;
            h.disconnect();
            h.pool().onCompletion(late);
            assertThat(h.pool().registrationCounters().get(RegistrationCounter.STALE_COMPLETIONS)).isEqualTo(1);
            assertThat(h.pool().registrationCounters().get(RegistrationCounter.MRS_ORPHANED)).isZero();
            assertThat(h.pool().freeHandles()).isEqualTo(h.pool().targetHandles());
            buffer.release();
        }
    }

    @Test
    void aMappingWaitingForHandlesWhenTheConnectionIsResetFailsTypedAndMapsAgainOnTheNextConnection()
            throws Exception {
        try (FakeHarness h = harness(RegistrationConfig.defaults(2).withSizes(16 << 10, 4 << 10).withHandles(2, 2))) {
            RegisteredBuffer buffer = h.buffers().allocate(4 * PAGE);
            Registration holder = h.pool().newRegistration().begin(1);
            holder.map(new ScatterList(4).add(buffer, 0, PAGE), ChunkRole.READ_CHUNK_SOURCE);
            holder.map(new ScatterList(4).add(buffer, PAGE, PAGE), ChunkRole.READ_CHUNK_SOURCE);
            assertThat(h.pool().freeHandles()).isZero();
            Registration waiter = h.pool().newRegistration().begin(2);
            ScatterList one = new ScatterList(4).add(buffer, 2 * PAGE, PAGE);
            CompletableFuture<Throwable> failure = CompletableFuture.supplyAsync(() -> {
                try {
                    waiter.map(one, ChunkRole.WRITE_CHUNK_SINK);
                    return null;
                } catch (Exception e) {
                    return e;
                }
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (h.pool().registrationCounters().get(RegistrationCounter.POOL_WAITS) == 0) {
                assertThat(System.nanoTime()).as("the mapping waits for a handle").isLessThan(deadline);
                Thread.sleep(1);
            }
            h.disconnect();
            assertThat(failure.get(30, TimeUnit.SECONDS)).isInstanceOf(RegistrationResetException.class)
                    .hasMessageContaining("reset while mapping");
            assertThat(waiter.begin(3).map(one, ChunkRole.WRITE_CHUNK_SINK)).isEqualTo(1);
            assertThat(h.pool().inUseHandles()).isEqualTo(1);
            buffer.release();
        }
    }

    @Test
    void aMappingBegunBeforeAResetFailsTypedWithoutWaiting() throws Exception {
        try (FakeHarness h = harness(RegistrationConfig.defaults(2).withSizes(16 << 10, 4 << 10))) {
            RegisteredBuffer buffer = h.buffers().allocate(PAGE);
            Registration registration = h.pool().newRegistration().begin(1);
            h.disconnect();
            ScatterList one = new ScatterList(4).add(buffer, 0, PAGE);
            assertThatThrownBy(() -> registration.map(one, ChunkRole.READ_CHUNK_SOURCE))
                    .isInstanceOf(RegistrationResetException.class);
            assertThat(h.pool().inUseHandles()).isZero();
            assertThat(registration.begin(2).map(one, ChunkRole.READ_CHUNK_SOURCE)).isEqualTo(1);
            buffer.release();
        }
    }
}
