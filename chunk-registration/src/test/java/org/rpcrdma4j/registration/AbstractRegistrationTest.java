package org.rpcrdma4j.registration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.verbs.Stag;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * The behaviour every registration strategy must show, on any device: memory is reachable by the peer while exposed,
 * and not after invalidation (bytes compared); stale rkeys fail; remote invalidation is honoured only for the RPC's
 * own handles; the pool's accounting holds through cycles, failures and disconnects; exhaustion blocks and proceeds.
 * A subclass implements {@link #newHarness} for one strategy on one device.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class AbstractRegistrationTest {
    static final int PAGE = RegistrationConfig.PAGE_SIZE;

    /** The one factory: a connected client and peer using {@code config} (the subclass sets the mode). */
    protected abstract Harness newHarness(RegistrationConfig config) throws Exception;

    protected RegistrationConfig config() {
        return RegistrationConfig.defaults(4).withSizes(64 << 10, 8 << 10);
    }

    private final Random random = new Random(8166);

    byte[] random(int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    static final class Listener implements InvalidationListener {
        final AtomicInteger calls = new AtomicInteger();

        @Override
        public void onInvalidated(Registration registration) {
            calls.incrementAndGet();
        }
    }

    /** A snapshot of a registration's segments (the registration forgets them when invalidated). */
    record Segment(int handle, int length, long offset) {
    }

    static List<Segment> segments(Registration registration) {
        List<Segment> list = new ArrayList<>();
        for (int i = 0; i < registration.segmentCount(); i++) {
            list.add(new Segment(registration.handle(i), registration.length(i), registration.offset(i)));
        }
        return list;
    }

    static void invalidateAndWait(Harness h, Registration registration, WorkCompletion receive) throws Exception {
        Listener listener = new Listener();
        boolean done = registration.invalidate(receive, listener);
        if (!done) {
            h.pumpUntil(() -> listener.calls.get() == 1);
        }
        assertThat(listener.calls.get()).isEqualTo(done ? 0 : 1);
    }

    static byte[] bytes(RegisteredBuffer buffer, int index, int length) {
        byte[] b = new byte[length];
        buffer.getBytes(index, b);
        return b;
    }

    byte[] peerReadAll(Harness h, List<Segment> segments) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Segment s : segments) {
            Harness.PeerResult r = h.peerRead(s.handle(), s.offset(), s.length());
            assertThat(r.ok()).as("peer read of %s", s).isTrue();
            out.write(r.data());
        }
        return out.toByteArray();
    }

    void assertAllRefused(Harness h, List<Segment> segments) throws Exception {
        for (Segment s : segments) {
            assertThat(h.peerRead(s.handle(), s.offset(), s.length()).status())
                    .as("peer read of %s after invalidation", s).isEqualTo(WcStatus.REM_ACCESS_ERR);
            assertThat(h.peerWrite(s.handle(), s.offset(), random(s.length())).status())
                    .as("peer write of %s after invalidation", s).isEqualTo(WcStatus.REM_ACCESS_ERR);
        }
    }

    void assertIdle(Harness h) {
        RegistrationPool pool = h.pool();
        assertThat(pool.inUseHandles()).isZero();
        assertThat(pool.allocatedHandles()).isEqualTo(pool.freeHandles()).isEqualTo(pool.targetHandles());
        int arenas = h.buffers().arenaCount();
        int handleRegions = pool.mode() == RegistrationMode.REG_MR ? 0 : pool.allocatedHandles();
        assertThat(h.deviceRegions()).as("device regions").isEqualTo(arenas + handleRegions);
    }

    @Test
    void readChunkSourceIsReadableWhileExposedAndNotAfterInvalidation() throws Exception {
        try (Harness h = newHarness(config())) {
            byte[] data = random(3 * PAGE + 123);
            RegisteredBuffer buffer = h.buffers().allocate(data.length + 200);
            buffer.setBytes(77, data);
            ScatterList list = new ScatterList(64).add(buffer, 77, data.length);
            Registration registration = h.pool().newRegistration().begin(0x12345678);
            int n = registration.map(list, ChunkRole.READ_CHUNK_SOURCE);
            assertThat(n).isEqualTo(registration.segmentCount()).isPositive();
            h.send(registration);
            List<Segment> segments = segments(registration);
            assertThat(peerReadAll(h, segments)).isEqualTo(data);
            if (h.pool().mode() != RegistrationMode.FMR) { // FMRs carry every right (see FmrOps)
                Segment s = segments.get(0);
                assertThat(h.peerWrite(s.handle(), s.offset(), new byte[8]).status())
                        .as("a read chunk is not writable").isEqualTo(WcStatus.REM_ACCESS_ERR);
            }

            invalidateAndWait(h, registration, null);

            assertAllRefused(h, segments);
            assertThat(bytes(buffer, 77, data.length)).isEqualTo(data);
            assertThat(buffer.release()).isTrue();
            assertIdle(h);
        }
    }

    @Test
    void writeChunkSinkIsWritableWhileExposedAndNotAfterInvalidation() throws Exception {
        try (Harness h = newHarness(config())) {
            int length = 5 * PAGE - 10;
            RegisteredBuffer buffer = h.buffers().allocate(length + 10);
            buffer.setZero(0, buffer.capacity());
            ScatterList list = new ScatterList(64).add(buffer, 10, length);
            Registration registration = h.pool().newRegistration().begin(7);
            registration.map(list, ChunkRole.WRITE_CHUNK_SINK);
            h.send(registration);
            List<Segment> segments = segments(registration);
            byte[] written = random(length);
            int at = 0;
            for (Segment s : segments) {
                byte[] part = java.util.Arrays.copyOfRange(written, at, at + s.length());
                assertThat(h.peerWrite(s.handle(), s.offset(), part).ok()).as("peer write of %s", s).isTrue();
                at += s.length();
            }
            assertThat(at).isEqualTo(length);
            assertThat(bytes(buffer, 10, length)).isEqualTo(written);
            if (h.pool().mode() != RegistrationMode.FMR) {
                Segment s = segments.get(0);
                assertThat(h.peerRead(s.handle(), s.offset(), 8).status())
                        .as("a write chunk is not readable").isEqualTo(WcStatus.REM_ACCESS_ERR);
            }

            invalidateAndWait(h, registration, null);

            assertAllRefused(h, segments);
            assertThat(bytes(buffer, 10, length)).as("client memory unchanged").isEqualTo(written);
            assertThat(bytes(buffer, 0, 10)).isEqualTo(new byte[10]);
            buffer.release();
            assertIdle(h);
        }
    }

    @Test
    void rkeyOfAnEarlierUseOfAReusedHandleFails() throws Exception {
        try (Harness h = newHarness(config().withHandles(1, 1))) {
            RegisteredBuffer buffer = h.buffers().allocate(PAGE);
            buffer.setBytes(0, random(PAGE));
            ScatterList list = new ScatterList(4).add(buffer, 0, PAGE);
            Registration registration = h.pool().newRegistration();

            registration.begin(1).map(list, ChunkRole.READ_CHUNK_SOURCE);
            h.send(registration);
            Segment first = segments(registration).get(0);
            invalidateAndWait(h, registration, null);

            registration.begin(2).map(list, ChunkRole.READ_CHUNK_SOURCE);
            h.send(registration);
            Segment second = segments(registration).get(0);
            assertThat(second.handle()).isNotEqualTo(first.handle());
            if (h.pool().mode() == RegistrationMode.FRWR) {
                assertThat(Stag.index(second.handle())).as("same handle").isEqualTo(Stag.index(first.handle()));
                assertThat(Stag.key(second.handle())).isEqualTo((Stag.key(first.handle()) + 1) & 0xFF);
            }
            assertThat(h.peerRead(first.handle(), first.offset(), PAGE).status()).isEqualTo(WcStatus.REM_ACCESS_ERR);
            assertThat(h.peerRead(first.handle(), second.offset(), PAGE).status()).isEqualTo(WcStatus.REM_ACCESS_ERR);
            assertThat(h.peerRead(second.handle(), second.offset(), PAGE).ok()).isTrue();

            invalidateAndWait(h, registration, null);
            buffer.release();
            assertIdle(h);
        }
    }

    /** Three buffers, each range starting mid-page: three gaps, so at least three segments. */
    ScatterList gapped(Harness h, List<RegisteredBuffer> keep, byte[][] contents) throws Exception {
        ScatterList list = new ScatterList(64);
        for (int i = 0; i < contents.length; i++) {
            RegisteredBuffer b = h.buffers().allocate(2 * PAGE);
            b.setBytes(100, contents[i]);
            list.add(b, 100, contents[i].length);
            keep.add(b);
        }
        return list;
    }

    @Test
    void sendWithInvalidateInvalidatesExactlyThatHandleAndTheRestGetLocalInv() throws Exception {
        try (Harness h = newHarness(config())) {
            assumeTrue(h.supportsRemoteInvalidation(), "device without remote invalidation");
            List<RegisteredBuffer> keep = new ArrayList<>();
            byte[][] contents = {random(1000), random(2000), random(3000)};
            Registration registration = h.pool().newRegistration().begin(99);
            assertThat(registration.map(gapped(h, keep, contents), ChunkRole.REPLY_CHUNK_SINK)).isEqualTo(3);
            h.send(registration);
            List<Segment> segments = segments(registration);
            long localInv = h.pool().registrationCounters().get(RegistrationCounter.LOCAL_INV_NEEDED);

            WorkCompletion receive = h.peerSendWithInvalidate(segments.get(1).handle());
            assertThat(receive.withInvalidate()).isTrue();
            assertThat(h.peerWrite(segments.get(1).handle(), segments.get(1).offset(), new byte[4]).status())
                    .as("the peer's invalidation took effect").isEqualTo(WcStatus.REM_ACCESS_ERR);
            assertThat(h.peerWrite(segments.get(0).handle(), segments.get(0).offset(), new byte[4]).ok())
                    .as("only that handle").isTrue();

            invalidateAndWait(h, registration, receive);

            assertThat(h.pool().registrationCounters().get(RegistrationCounter.REMOTE_INV_HONOURED)).isEqualTo(1);
            assertThat(h.pool().registrationCounters().get(RegistrationCounter.LOCAL_INV_NEEDED) - localInv)
                    .isEqualTo(2);
            assertAllRefused(h, segments);
            keep.forEach(RegisteredBuffer::release);
            assertIdle(h);
        }
    }

    @Test
    void remoteInvalidationOfAnotherRpcsHandleIsRefused() throws Exception {
        try (Harness h = newHarness(config())) {
            assumeTrue(h.supportsRemoteInvalidation(), "device without remote invalidation");
            List<RegisteredBuffer> keep = new ArrayList<>();
            Registration a = h.pool().newRegistration().begin(1);
            Registration b = h.pool().newRegistration().begin(2);
            a.map(gapped(h, keep, new byte[][] {random(500), random(600)}), ChunkRole.WRITE_CHUNK_SINK);
            b.map(gapped(h, keep, new byte[][] {random(700)}), ChunkRole.WRITE_CHUNK_SINK);
            h.send(a);
            h.send(b);
            List<Segment> segmentsA = segments(a);
            List<Segment> segmentsB = segments(b);
            long localInv = h.pool().registrationCounters().get(RegistrationCounter.LOCAL_INV_NEEDED);

            // a hostile peer answers A while invalidating B's handle
            WorkCompletion receive = h.peerSendWithInvalidate(segmentsB.get(0).handle());
            invalidateAndWait(h, a, receive);

            assertThat(h.pool().registrationCounters().get(RegistrationCounter.REMOTE_INV_REFUSED)).isEqualTo(1);
            assertThat(h.pool().registrationCounters().get(RegistrationCounter.REMOTE_INV_HONOURED)).isZero();
            assertThat(h.pool().registrationCounters().get(RegistrationCounter.LOCAL_INV_NEEDED) - localInv)
                    .as("every handle of A got LOCAL_INV").isEqualTo(segmentsA.size());
            assertAllRefused(h, segmentsA);
            invalidateAndWait(h, b, null);
            assertAllRefused(h, segmentsB);
            keep.forEach(RegisteredBuffer::release);
            assertIdle(h);
        }
    }

    @Test
    void everyByteOfAGappedDeepListIsExposedOnceInOrder() throws Exception {
        try (Harness h = newHarness(config().withSizes(256 << 10, 8 << 10))) {
            int depth = h.pool().maxPagesPerHandle();
            List<RegisteredBuffer> keep = new ArrayList<>();
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            ScatterList list = new ScatterList(256);
            int[][] ranges = {{0, 20 * PAGE}, {PAGE, 3 * PAGE + 5}, {17, 2 * PAGE}, {0, PAGE}, {0, 40 * PAGE + 1}};
            for (int[] r : ranges) {
                byte[] data = random(r[1]);
                RegisteredBuffer b = h.buffers().allocate(r[0] + r[1]);
                b.setBytes(r[0], data);
                list.add(b, r[0], r[1]);
                expected.write(data);
                keep.add(b);
            }
            Registration registration = h.pool().newRegistration().begin(0xCAFE);
            int n = registration.map(list, ChunkRole.READ_CHUNK_SOURCE);
            h.send(registration);
            List<Segment> segments = segments(registration);
            assertThat(n).isEqualTo(segments.size());
            for (Segment s : segments) {
                assertThat((long) s.length()).isLessThanOrEqualTo((long) depth * PAGE);
            }
            assertThat(peerReadAll(h, segments)).isEqualTo(expected.toByteArray());
            invalidateAndWait(h, registration, null);
            assertAllRefused(h, segments);
            keep.forEach(RegisteredBuffer::release);
            assertIdle(h);
        }
    }

    @Test
    void accountingHoldsThroughManyCycles() throws Exception {
        try (Harness h = newHarness(config())) {
            Registration[] registrations = {h.pool().newRegistration(), h.pool().newRegistration()};
            RegisteredBuffer buffer = h.buffers().allocate(16 * PAGE);
            for (int cycle = 0; cycle < 1000; cycle++) {
                Registration registration = registrations[cycle & 1];
                int offset = random.nextInt(PAGE);
                int length = 1 + random.nextInt(15 * PAGE - 1);
                registration.begin(cycle).map(new ScatterList(32).add(buffer, offset, length),
                        (cycle & 2) == 0 ? ChunkRole.READ_CHUNK_SOURCE : ChunkRole.WRITE_CHUNK_SINK);
                h.send(registration);
                RegistrationPool pool = h.pool();
                assertThat(pool.allocatedHandles()).isEqualTo(pool.freeHandles() + pool.inUseHandles());
                invalidateAndWait(h, registration, null);
                assertThat(pool.inUseHandles()).isZero();
            }
            buffer.release();
            assertIdle(h);
            assertThat(h.pool().registrationCounters().get(RegistrationCounter.MRS_ORPHANED)).isZero();
        }
    }

    @Test
    void disconnectDestroysEveryHandleAndRebuildsThePool() throws Exception {
        try (Harness h = newHarness(config())) {
            RegisteredBuffer buffer = h.buffers().allocate(8 * PAGE);
            Registration inFlight = h.pool().newRegistration().begin(1);
            inFlight.map(new ScatterList(16).add(buffer, 0, 3 * PAGE), ChunkRole.READ_CHUNK_SOURCE);
            h.send(inFlight);
            Registration invalidating = h.pool().newRegistration().begin(2);
            invalidating.map(new ScatterList(16).add(buffer, 5, 4 * PAGE), ChunkRole.WRITE_CHUNK_SINK);
            h.send(invalidating);
            List<Segment> exposed = new ArrayList<>(segments(inFlight));
            exposed.addAll(segments(invalidating));
            Listener listener = new Listener();
            boolean sync = invalidating.invalidate(listener);
            assertThat(h.pool().inUseHandles()).isPositive();
            long allocatedBefore = h.pool().registrationCounters().get(RegistrationCounter.MRS_ALLOCATED);

            h.disconnect();

            if (!sync) {
                assertThat(listener.calls.get()).as("pending invalidation finished by the reset").isEqualTo(1);
            }
            assertIdle(h);
            assertThat(h.pool().registrationCounters().get(RegistrationCounter.MRS_ALLOCATED) - allocatedBefore)
                    .isEqualTo(h.pool().targetHandles());
            assertAllRefused(h, exposed);
            // the in-flight registration forgets its destroyed handles and can be used again
            assertThat(inFlight.invalidate(new Listener())).isTrue();
            inFlight.begin(3).map(new ScatterList(16).add(buffer, 0, PAGE), ChunkRole.READ_CHUNK_SOURCE);
            h.send(inFlight);
            invalidateAndWait(h, inFlight, null);
            buffer.release();
            assertIdle(h);
        }
    }

    @Test
    void exhaustedPoolBlocksTheMapperUntilAHandleIsReturned() throws Exception {
        try (Harness h = newHarness(config().withHandles(2, 2))) {
            List<RegisteredBuffer> keep = new ArrayList<>();
            Registration holder = h.pool().newRegistration().begin(1);
            assertThat(holder.map(gapped(h, keep, new byte[][] {random(100), random(100)}),
                    ChunkRole.READ_CHUNK_SOURCE)).isEqualTo(2);
            h.send(holder);
            assertThat(h.pool().freeHandles()).isZero();

            Registration waiter = h.pool().newRegistration().begin(2);
            ScatterList one = gapped(h, keep, new byte[][] {random(100)});
            CountDownLatch mapped = new CountDownLatch(1);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread thread = new Thread(() -> {
                try {
                    waiter.map(one, ChunkRole.READ_CHUNK_SOURCE);
                    mapped.countDown();
                } catch (Throwable t) {
                    failure.set(t);
                }
            }, "mapper");
            thread.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (h.pool().registrationCounters().get(RegistrationCounter.POOL_WAITS) == 0) {
                assertThat(System.nanoTime()).as("hang guard").isLessThan(deadline);
                Thread.onSpinWait();
            }
            assertThat(mapped.getCount()).as("still waiting: nothing was returned").isEqualTo(1);

            invalidateAndWait(h, holder, null);

            assertThat(mapped.await(30, TimeUnit.SECONDS)).isTrue();
            thread.join();
            assertThat(failure.get()).isNull();
            assertThat(waiter.segmentCount()).isEqualTo(1);
            h.send(waiter);
            invalidateAndWait(h, waiter, null);
            keep.forEach(RegisteredBuffer::release);
            assertIdle(h);
        }
    }

    @Test
    void exhaustedPoolGrowsInTheBackgroundUpToItsBound() throws Exception {
        try (Harness h = newHarness(config().withHandles(1, 3))) {
            List<RegisteredBuffer> keep = new ArrayList<>();
            Registration holder = h.pool().newRegistration().begin(1);
            holder.map(gapped(h, keep, new byte[][] {random(100)}), ChunkRole.READ_CHUNK_SOURCE);
            Registration second = h.pool().newRegistration().begin(2);
            // no handle is returned: only growth can satisfy this
            assertThat(second.map(gapped(h, keep, new byte[][] {random(10), random(10)}),
                    ChunkRole.READ_CHUNK_SOURCE)).isEqualTo(2);
            assertThat(h.pool().registrationCounters().get(RegistrationCounter.POOL_WAITS)).isEqualTo(1);
            assertThat(h.pool().allocatedHandles()).isEqualTo(3);
            h.send(holder);
            h.send(second);
            invalidateAndWait(h, holder, null);
            invalidateAndWait(h, second, null);
            assertThat(h.pool().inUseHandles()).isZero();
            keep.forEach(RegisteredBuffer::release);
        }
    }

    @Test
    void aMappingThatFindsTooFewHandlesWithinItsTimeoutFailsTypedAndTakesNone() throws Exception {
        try (Harness h = newHarness(config().withHandles(2, 2))) {
            List<RegisteredBuffer> keep = new ArrayList<>();
            Registration holder = h.pool().newRegistration().begin(1);
            holder.map(gapped(h, keep, new byte[][] {random(100)}), ChunkRole.READ_CHUNK_SOURCE);
            h.send(holder);
            Registration waiter = h.pool().newRegistration().begin(2);
            assertThat(waiter.map(gapped(h, keep, new byte[][] {random(100)}), ChunkRole.READ_CHUNK_SOURCE,
                    0, TimeUnit.NANOSECONDS)).as("a free handle is taken whatever the timeout").isEqualTo(1);
            assertThat(h.pool().freeHandles()).isZero();
            ScatterList more = gapped(h, keep, new byte[][] {random(100)});

            long start = System.nanoTime();
            Throwable failure = assertTimeoutPreemptively(Duration.ofSeconds(30),
                    () -> catchThrowable(() -> waiter.map(more, ChunkRole.READ_CHUNK_SOURCE, 200,
                            TimeUnit.MILLISECONDS)), "hang guard: the mapping waits past its timeout");
            long waited = System.nanoTime() - start;

            assertThat(failure).isInstanceOf(RegistrationPoolExhaustedException.class)
                    .hasMessageContaining("too few free registration handles within 200 ms")
                    .hasMessageContaining("needs 1, 0 of 2 free, at most 2");
            assertThat(waited).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(200));
            assertThat(h.pool().registrationCounters().get(RegistrationCounter.POOL_WAITS)).isEqualTo(1);
            assertThat(waiter.segmentCount()).as("the earlier mapping stays").isEqualTo(1);
            assertThat(h.pool().inUseHandles()).as("the mapping that timed out took none").isEqualTo(2);
            invalidateAndWait(h, waiter, null);
            assertThat(h.pool().freeHandles()).isEqualTo(1);
            invalidateAndWait(h, holder, null);
            keep.forEach(RegisteredBuffer::release);
            assertIdle(h);
        }
    }

    @Test
    void refusingWaitsEndsAMappingWaitingWithATimeoutAtOnce() throws Exception {
        try (Harness h = newHarness(config().withHandles(1, 1))) {
            List<RegisteredBuffer> keep = new ArrayList<>();
            Registration holder = h.pool().newRegistration().begin(1);
            holder.map(gapped(h, keep, new byte[][] {random(100)}), ChunkRole.READ_CHUNK_SOURCE);
            Registration waiter = h.pool().newRegistration().begin(2);
            ScatterList one = gapped(h, keep, new byte[][] {random(100)});
            CompletableFuture<Throwable> failure = CompletableFuture.supplyAsync(
                    () -> catchThrowable(() -> waiter.map(one, ChunkRole.READ_CHUNK_SOURCE, 600, TimeUnit.SECONDS)));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (h.pool().registrationCounters().get(RegistrationCounter.POOL_WAITS) == 0) {
                assertThat(System.nanoTime()).as("hang guard").isLessThan(deadline);
                Thread.onSpinWait();
            }

            h.pool().refuseWaits();

            assertThat(failure.get(30, TimeUnit.SECONDS)).isExactlyInstanceOf(VerbsException.class)
                    .hasMessageContaining("closing");
            assertThat(waiter.segmentCount()).isZero();
            assertThat(h.pool().inUseHandles()).isEqualTo(1);
            invalidateAndWait(h, holder, null);
            keep.forEach(RegisteredBuffer::release);
            assertIdle(h);
        }
    }

    @Test
    void aFailedRegistrationDestroysAndReplacesItsHandle() throws Exception {
        try (Harness h = newHarness(config())) {
            assumeTrue(h.injectRegistrationFailure(), "device without fault injection");
            RegisteredBuffer buffer = h.buffers().allocate(2 * PAGE);
            Registration registration = h.pool().newRegistration().begin(5);
            try {
                registration.map(new ScatterList(4).add(buffer, 0, PAGE), ChunkRole.READ_CHUNK_SOURCE);
                h.send(registration); // FRWR: the REG_MR work request fails on the device
            } catch (org.rpcrdma4j.verbs.VerbsException expected) {
                // FMR, REG_MR: the synchronous mapping failed
            }
            h.pumpUntil(() -> h.pool().registrationCounters().get(RegistrationCounter.REGISTRATION_FAILURES) == 1);
            invalidateAndWait(h, registration, null);
            assertThat(h.pool().registrationCounters().get(RegistrationCounter.MRS_ORPHANED)).isEqualTo(1);
            if (h.pool().mode() == RegistrationMode.FRWR) {
                h.disconnect(); // the failed work request broke the QP
            }
            buffer.release();
            assertIdle(h);
        }
    }

    @Test
    void readSinkIsAPerIoHandleOnIwarpAndTheArenaLkeyElsewhere() throws Exception {
        try (Harness h = newHarness(config())) {
            RegisteredBuffer buffer = h.buffers().allocate(4 * PAGE);
            Registration registration = h.pool().newRegistration().begin(11);
            registration.map(new ScatterList(8).add(buffer, 0, 3 * PAGE), ChunkRole.RDMA_READ_SINK);
            boolean iwarp = AccessFlags.needsHandle(h.pool().transportType(), ChunkRole.RDMA_READ_SINK);
            if (iwarp) {
                assertThat(registration.hasHandle(0)).isTrue();
                assertThat(registration.handle(0)).isNotEqualTo(buffer.lkey());
                h.send(registration);
                Segment s = segments(registration).get(0);
                byte[] data = random(s.length());
                assertThat(h.peerWrite(s.handle(), s.offset(), data).ok()).as("RDMA READ response lands").isTrue();
                invalidateAndWait(h, registration, null);
                assertAllRefused(h, List.of(s));
            } else {
                assertThat(registration.segmentCount()).isEqualTo(1);
                assertThat(registration.hasHandle(0)).isFalse();
                assertThat(registration.handle(0)).isEqualTo(buffer.lkey());
                assertThat(registration.offset(0)).isEqualTo(buffer.address(0));
                assertThat(registration.length(0)).isEqualTo(3 * PAGE);
                assertThat(registration.invalidate(new Listener())).as("nothing to invalidate").isTrue();
            }
            buffer.release();
            assertIdle(h);
        }
    }
}
