package org.rpcrdma4j.registration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.registration.fake.FakeDevice;

/**
 * A connection reset ({@link RegistrationPool#onDisconnect()}, on the transport's thread) that lands while another
 * thread maps, in the moments between the pool lending a handle and the mapping being done: the mapping fails with
 * {@link RegistrationResetException} (the transport marshals again, as for a reset seen before the handles were
 * lent), and nothing the mapping made outlives the reset. The fake device runs the reset at the moment the device is
 * asked to map.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ResetDuringMappingTest {
    static final int PAGE = RegistrationConfig.PAGE_SIZE;

    @Test
    void anFmrClosedByAResetWhileBeingMappedFailsAsAReset() throws Exception {
        FakeDevice device = FakeDevice.fmr(16);
        try (FakeHarness h = new FakeHarness(device, RegistrationConfig.defaults(2).withSizes(16 << 10, 4 << 10)
                .withMode(RegistrationMode.FMR))) {
            RegisteredBuffer buffer = h.buffers().allocate(PAGE);
            ScatterList one = new ScatterList(4).add(buffer, 0, PAGE);
            Registration registration = h.pool().newRegistration().begin(1);
            device.beforeMap = () -> reset(h);
            assertThatThrownBy(() -> registration.map(one, ChunkRole.READ_CHUNK_SOURCE))
                    .isInstanceOf(RegistrationResetException.class).hasMessageContaining("reset while mapping");
            assertThat(h.pool().registrationCounters().get(RegistrationCounter.REGISTRATION_FAILURES))
                    .as("a reset, not a failure of the device").isZero();
            assertThat(h.pool().inUseHandles()).isZero();
            assertThat(registration.begin(2).map(one, ChunkRole.READ_CHUNK_SOURCE)).isEqualTo(1);
            assertThat(registration.invalidate(r -> { })).as("no connection: unmapped at once").isTrue();
            assertThat(h.pool().inUseHandles()).isZero();
            buffer.release();
        }
    }

    @Test
    void aRegionRegisteredWhileAResetDestroysItsHandleIsDeregisteredNotLeaked() throws Exception {
        FakeDevice device = FakeDevice.regMrOnly();
        try (FakeHarness h = new FakeHarness(device, RegistrationConfig.defaults(2).withSizes(16 << 10, 4 << 10)
                .withMode(RegistrationMode.REG_MR))) {
            RegisteredBuffer buffer = h.buffers().allocate(PAGE);
            ScatterList one = new ScatterList(4).add(buffer, 0, PAGE);
            int regionsBefore = h.deviceRegions();
            Registration registration = h.pool().newRegistration().begin(1);
            device.beforeMap = () -> reset(h);
            assertThatThrownBy(() -> registration.map(one, ChunkRole.READ_CHUNK_SOURCE))
                    .isInstanceOf(RegistrationResetException.class);
            assertThat(h.deviceRegions()).as("the region made after the reset is closed").isEqualTo(regionsBefore);
            assertThat(registration.begin(2).map(one, ChunkRole.READ_CHUNK_SOURCE)).isEqualTo(1);
            assertThat(h.deviceRegions()).isEqualTo(regionsBefore + 1);
            assertThat(registration.invalidate(r -> { })).isTrue();
            assertThat(h.deviceRegions()).isEqualTo(regionsBefore);
            buffer.release();
        } // the harness closes the protection domain, which fails while a region is left open
    }

    @Test
    void anFmrUnmapAskedForWhileNoConnectionIsUpIsDoneAtOnce() throws Exception {
        FakeDevice device = FakeDevice.fmr(16);
        try (FakeHarness h = new FakeHarness(device, RegistrationConfig.defaults(2).withSizes(16 << 10, 4 << 10)
                .withMode(RegistrationMode.FMR))) {
            RegisteredBuffer buffer = h.buffers().allocate(PAGE);
            ScatterList one = new ScatterList(4).add(buffer, 0, PAGE);
            Registration connected = h.pool().newRegistration().begin(1);
            connected.map(one, ChunkRole.READ_CHUNK_SOURCE);
            int[] finished = new int[1];
            assertThat(connected.invalidate(r -> finished[0]++)).as("connected: the unmap thread's completion")
                    .isFalse();
            h.pumpUntil(() -> finished[0] == 1);

            reset(h); // the connection is gone and no new one is up yet
            Registration later = h.pool().newRegistration().begin(2);
            later.map(one, ChunkRole.READ_CHUNK_SOURCE);
            assertThat(later.invalidate(r -> finished[0]++))
                    .as("nobody polls the lost connection's queue: unmapped on the asking thread").isTrue();
            assertThat(h.pool().inUseHandles()).isZero();
            assertThat(later.begin(3).map(one, ChunkRole.READ_CHUNK_SOURCE)).isEqualTo(1);
            later.invalidate(r -> { });
            buffer.release();
        }
    }

    private static void reset(FakeHarness h) {
        try {
            h.pool().onDisconnect();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
