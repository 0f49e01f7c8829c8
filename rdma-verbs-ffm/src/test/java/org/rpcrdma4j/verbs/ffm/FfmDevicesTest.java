package org.rpcrdma4j.verbs.ffm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.testsupport.RequiredPeer;
import org.rpcrdma4j.verbs.RdmaProvider;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.ffm.internal.NativeLibrary;

/**
 * The devices libibverbs lists are the kernel's ({@code /sys/class/infiniband}), each queried; where the kernel has
 * no RDMA support (the host without modules), listing fails typed with {@code ENOSYS} and says what to load.
 */
class FfmDevicesTest {
    private static final Path SYSFS = Path.of("/sys/class/infiniband");

    @Test
    void theDevicesListedAreTheKernelsEachQueried() throws Exception {
        requireLibibverbs();
        if (!Files.isDirectory(Path.of("/sys/class/infiniband_verbs"))) {
            assertThatThrownBy(FfmDevices::list).isInstanceOfSatisfying(FfmVerbsException.class, e -> {
                assertThat(e.verb()).isEqualTo("ibv_get_device_list");
                assertThat(e.errno()).isEqualTo(38); // ENOSYS
                assertThat(e.getMessage()).contains("ib_uverbs").contains("--provider soft").doesNotContain("\n");
            });
            RdmaProvider.Availability availability = FfmDevices.availability();
            assertThat(availability.available()).isFalse();
            assertThat(availability.reason()).contains("ibv_get_device_list").contains("--provider soft");
            return;
        }
        List<FfmDeviceInfo> devices = FfmDevices.list();
        assertThat(devices).extracting(FfmDeviceInfo::name).containsExactlyInAnyOrderElementsOf(sysfsNames());
        for (FfmDeviceInfo d : devices) {
            assertThat(d.physicalPorts()).as(d.name()).isPositive();
            assertThat(d.maxQpWr()).as(d.name()).isPositive();
            assertThat(d.maxSge()).as(d.name()).isPositive();
            assertThat(d.maxCqe()).as(d.name()).isPositive();
            assertThat(d.maxMrSize()).as(d.name()).isPositive();
        }
        assertThat(FfmDevices.availability().available()).isEqualTo(!devices.isEmpty());
    }

    private static List<String> sysfsNames() throws IOException {
        if (!Files.isDirectory(SYSFS)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(SYSFS)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    private static void requireLibibverbs() {
        try {
            NativeLibrary.open(NativeLibrary.IBVERBS);
        } catch (VerbsException e) {
            RequiredPeer.require("rdma-core's libibverbs", e.getMessage());
        }
    }
}
