package org.rpcrdma4j.verbs.disni;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.verbs.TransportType;
import org.rpcrdma4j.verbs.VerbsException;

class SysfsRdmaDevicesTest {
    @TempDir
    Path root;

    private static void write(Path file, String content) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
    }

    @BeforeEach
    void devices() throws IOException {
        // a ConnectX in InfiniBand mode, its PCI function exposing ib0
        write(root.resolve("mlx5_0/node_type"), "1: CA\n");
        write(root.resolve("mlx5_0/ports/1/link_layer"), "InfiniBand\n");
        Files.createDirectories(root.resolve("mlx5_0/device/net/ib0"));
        // Soft-RoCE on eth0: parent attribute and a GID entry
        write(root.resolve("rxe0/node_type"), "1: CA\n");
        write(root.resolve("rxe0/ports/1/link_layer"), "Ethernet\n");
        write(root.resolve("rxe0/parent"), "eth0\n");
        write(root.resolve("rxe0/ports/1/gid_attrs/ndevs/0"), "eth0\n");
        // Soft-iWARP on eth1
        write(root.resolve("siw0/node_type"), "4: RNIC\n");
        write(root.resolve("siw0/ports/1/link_layer"), "Ethernet\n");
        write(root.resolve("siw0/ports/1/gid_attrs/ndevs/0"), "eth1\n");
    }

    @Test
    void transportsComeFromNodeTypeAndLinkLayer() throws IOException {
        List<SysfsRdmaDevices.Entry> entries = SysfsRdmaDevices.scan(root);
        assertThat(entries).extracting(SysfsRdmaDevices.Entry::name).containsExactly("mlx5_0", "rxe0", "siw0");
        assertThat(entries).extracting(SysfsRdmaDevices.Entry::transport)
                .containsExactly(TransportType.IB, TransportType.ROCE, TransportType.IWARP);
        assertThat(entries.get(0).netdevs()).containsExactly("ib0");
        assertThat(entries.get(1).netdevs()).containsExactly("eth0");
        assertThat(entries.get(2).netdevs()).containsExactly("eth1");
    }

    @Test
    void theDeviceServingTheInterfaceIsChosen() throws Exception {
        List<SysfsRdmaDevices.Entry> entries = SysfsRdmaDevices.scan(root);
        SysfsRdmaDevices.Resolution r = SysfsRdmaDevices.resolve(entries, "eth1", null, null);
        assertThat(r.name()).isEqualTo("siw0");
        assertThat(r.transport()).isEqualTo(TransportType.IWARP);
        assertThat(r.how()).contains("eth1");
        assertThat(SysfsRdmaDevices.resolve(entries, "ib0", null, null).transport()).isEqualTo(TransportType.IB);
    }

    @Test
    void theDeviceOptionWinsAndTheTransportOptionOverrides() throws Exception {
        List<SysfsRdmaDevices.Entry> entries = SysfsRdmaDevices.scan(root);
        assertThat(SysfsRdmaDevices.resolve(entries, "eth1", "rxe0", null).name()).isEqualTo("rxe0");
        assertThat(SysfsRdmaDevices.resolve(entries, "eth1", null, TransportType.ROCE).transport())
                .isEqualTo(TransportType.ROCE);
        assertThatThrownBy(() -> SysfsRdmaDevices.resolve(entries, "eth1", "mlx4_0", null))
                .isInstanceOf(VerbsException.class)
                .hasMessageContaining("no RDMA device named 'mlx4_0'")
                .hasMessageContaining("[mlx5_0, rxe0, siw0]");
    }

    @Test
    void anInterfaceNoDeviceListsNeedsAnOption() throws Exception {
        List<SysfsRdmaDevices.Entry> entries = SysfsRdmaDevices.scan(root);
        assertThatThrownBy(() -> SysfsRdmaDevices.resolve(entries, "wlan0", null, null))
                .isInstanceOf(VerbsException.class)
                .hasMessageContaining("cannot tell which RDMA device serves interface wlan0")
                .hasMessageContaining("device option");
        SysfsRdmaDevices.Resolution r = SysfsRdmaDevices.resolve(entries, "wlan0", null, TransportType.IWARP);
        assertThat(r.transport()).isEqualTo(TransportType.IWARP);
        assertThat(r.name()).isEqualTo("unknown");
    }

    @Test
    void aSingleDeviceIsTheOne() throws Exception {
        List<SysfsRdmaDevices.Entry> only = List.of(SysfsRdmaDevices.scan(root).get(2));
        assertThat(SysfsRdmaDevices.resolve(only, null, null, null).name()).isEqualTo("siw0");
    }

    @Test
    void aDeviceWithoutReadableTypeNeedsTheTransportOption() throws Exception {
        Files.createDirectories(root.resolve("odd0"));
        List<SysfsRdmaDevices.Entry> entries = SysfsRdmaDevices.scan(root);
        assertThat(entries).filteredOn(e -> e.name().equals("odd0")).singleElement()
                .extracting(SysfsRdmaDevices.Entry::transport).isNull();
        assertThatThrownBy(() -> SysfsRdmaDevices.resolve(entries, null, "odd0", null))
                .isInstanceOf(VerbsException.class).hasMessageContaining("set the transport option");
    }

    @Test
    void noDirectoryMeansNoDevices() throws IOException {
        assertThat(SysfsRdmaDevices.names(root.resolve("missing"))).isEmpty();
        assertThat(SysfsRdmaDevices.names(root)).containsExactly("mlx5_0", "rxe0", "siw0");
    }
}
