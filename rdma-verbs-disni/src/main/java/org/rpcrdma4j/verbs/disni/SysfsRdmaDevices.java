package org.rpcrdma4j.verbs.disni;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

import org.rpcrdma4j.verbs.TransportType;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * Reads what the kernel says about RDMA devices in sysfs ({@code /sys/class/infiniband}): their names, transports and
 * network interfaces. DiSNI 2.1 has no {@code ibv_query_device} and cannot name the device behind a verbs context, so
 * this is where the provider learns which device an address belongs to and whether it is IB, RoCE or iWARP.
 * <p>
 * Per device {@code <dev>}: {@code node_type} ("1: CA" for IB and RoCE, "4: RNIC" for iWARP),
 * {@code ports/<n>/link_layer} ("InfiniBand" or "Ethernet"), and its network interfaces from
 * {@code device/net/<if>} (PCI NICs), {@code parent} (rxe) and {@code ports/<n>/gid_attrs/ndevs/<i>} (RoCE GIDs).
 */
final class SysfsRdmaDevices {

    /**
     * One device.
     *
     * @param name      e.g. mlx5_0, rxe0, siw0
     * @param transport null when sysfs does not say
     * @param netdevs   network interfaces it serves
     */
    record Entry(String name, TransportType transport, Set<String> netdevs) {
        Entry {
            netdevs = Set.copyOf(netdevs);
        }
    }

    /**
     * The device chosen for an address.
     *
     * @param name      the device's name, or "unknown" when sysfs could not tell and a transport was given
     * @param transport its transport
     * @param how       how it was chosen, for the log
     */
    record Resolution(String name, TransportType transport, String how) {
    }

    private SysfsRdmaDevices() {
    }

    /** Device names, sorted; empty when the directory is missing. */
    static List<String> names(Path root) throws IOException {
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(root)) {
            for (Path p : dir) {
                names.add(p.getFileName().toString());
            }
        }
        Collections.sort(names);
        return names;
    }

    /** Every device with what sysfs says about it. Unreadable attributes are skipped. */
    static List<Entry> scan(Path root) throws IOException {
        List<Entry> entries = new ArrayList<>();
        for (String name : names(root)) {
            Path dev = root.resolve(name);
            entries.add(new Entry(name, transport(dev), netdevs(dev)));
        }
        return entries;
    }

    /** The transport from node_type and the first port's link layer, or null. */
    static TransportType transport(Path dev) {
        String nodeType = read(dev.resolve("node_type"));
        if (nodeType == null) {
            return null;
        }
        String type = nodeType.trim();
        int colon = type.indexOf(':');
        String number = colon < 0 ? type : type.substring(0, colon).trim();
        if (number.equals("4") || type.toUpperCase(Locale.ROOT).contains("RNIC")) {
            return TransportType.IWARP;
        }
        if (!number.equals("1") && !type.toUpperCase(Locale.ROOT).contains("CA")) {
            return null;
        }
        for (String port : list(dev.resolve("ports"))) {
            String linkLayer = read(dev.resolve("ports").resolve(port).resolve("link_layer"));
            if (linkLayer != null) {
                return linkLayer.trim().equalsIgnoreCase("Ethernet") ? TransportType.ROCE : TransportType.IB;
            }
        }
        return null;
    }

    static Set<String> netdevs(Path dev) {
        Set<String> netdevs = new TreeSet<>(list(dev.resolve("device").resolve("net")));
        String parent = read(dev.resolve("parent"));
        if (parent != null && !parent.isBlank()) {
            netdevs.add(parent.trim());
        }
        for (String port : list(dev.resolve("ports"))) {
            Path ndevs = dev.resolve("ports").resolve(port).resolve("gid_attrs").resolve("ndevs");
            for (String gid : list(ndevs)) {
                String ndev = read(ndevs.resolve(gid));
                if (ndev != null && !ndev.isBlank()) {
                    netdevs.add(ndev.trim());
                }
            }
        }
        return netdevs;
    }

    /**
     * Picks the device for the interface an address is on.
     *
     * @param netdev          the interface the device address is on (null when unknown)
     * @param deviceOption    the user's {@code device} option, or null
     * @param transportOption the user's {@code transport} option, or null (it overrides what sysfs says)
     */
    static Resolution resolve(List<Entry> entries, String netdev, String deviceOption, TransportType transportOption)
            throws VerbsException {
        Entry chosen = null;
        String how;
        if (deviceOption != null) {
            for (Entry e : entries) {
                if (e.name().equals(deviceOption)) {
                    chosen = e;
                }
            }
            if (chosen == null) {
                throw new VerbsException("no RDMA device named '" + deviceOption + "' in /sys/class/infiniband "
                        + "(present: " + names(entries) + ")");
            }
            how = "named by the device option";
        } else if (entries.size() == 1) {
            chosen = entries.get(0);
            how = "the only RDMA device";
        } else {
            List<Entry> matching = new ArrayList<>();
            for (Entry e : entries) {
                if (netdev != null && e.netdevs().contains(netdev)) {
                    matching.add(e);
                }
            }
            if (matching.size() == 1) {
                chosen = matching.get(0);
                how = "serves interface " + netdev;
            } else if (transportOption != null) {
                return new Resolution(matching.isEmpty() ? "unknown" : names(matching).toString(), transportOption,
                        "transport given by the transport option; device not identified among " + names(entries));
            } else {
                throw new VerbsException("cannot tell which RDMA device serves interface " + netdev + " (devices "
                        + names(entries) + (matching.isEmpty() ? ", none lists it" : ", several list it")
                        + "): set the device option (e.g. device=rxe0) or the transport option (ib, roce, iwarp)");
            }
        }
        TransportType transport = transportOption != null ? transportOption : chosen.transport();
        if (transport == null) {
            throw new VerbsException("sysfs does not say which transport RDMA device " + chosen.name() + " uses "
                    + "(no readable node_type/link_layer): set the transport option (ib, roce, iwarp)");
        }
        return new Resolution(chosen.name(), transport, how);
    }

    private static List<String> names(List<Entry> entries) {
        List<String> names = new ArrayList<>();
        entries.forEach(e -> names.add(e.name()));
        return names;
    }

    private static String read(Path file) {
        try {
            return Files.isRegularFile(file) ? new String(Files.readAllBytes(file), StandardCharsets.UTF_8) : null;
        } catch (IOException e) {
            return null; // sysfs attributes of unused GID entries fail to read (EINVAL)
        }
    }

    private static Set<String> list(Path dir) {
        Set<String> names = new LinkedHashSet<>();
        if (!Files.isDirectory(dir)) {
            return names;
        }
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            for (Path p : stream) {
                names.add(p.getFileName().toString());
            }
        } catch (IOException e) {
            return names;
        }
        return new TreeSet<>(names);
    }
}
