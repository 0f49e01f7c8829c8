package org.rpcrdma4j.it.capture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The reference captures of Linux 6.1 NFS/RDMA over siw kept in this module's test resources ({@code captures/},
 * see the README there), read once per JVM and shared by the tests.
 */
public final class LinuxCaptures {
    /** NFSv3: mount, read a 4 MiB file, write 1 MiB, ls, umount. */
    public static final String NFSV3 = "linux-nfsv3-rdma-siw.pcap.gz";
    /** NFSv4.1: mount, ls, read the 4 MiB file, write 1 MiB, symlink + readlink, remove, umount. */
    public static final String NFSV41 = "linux-nfsv41-rdma-siw.pcap.gz";
    /** The file both clients read: byte i is {@code i % 251}. */
    public static final int PATTERN_FILE_SIZE = 4 << 20;

    private static final ConcurrentMap<String, RpcRdmaTrace> TRACES = new ConcurrentHashMap<>();

    private LinuxCaptures() {
    }

    /** @return the path of a capture in the test resources */
    public static Path path(String name) {
        URL url = LinuxCaptures.class.getResource("/captures/" + name);
        if (url == null) {
            throw new IllegalStateException("capture " + name + " is not on the test class path");
        }
        try {
            return Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @return the trace of the capture's one iWARP connection (read on first use) */
    public static RpcRdmaTrace trace(String name) {
        return TRACES.computeIfAbsent(name, n -> {
            try {
                List<IwarpConnection> connections = IwarpCapture.read(path(n));
                if (connections.size() != 1) {
                    throw new IllegalStateException(n + " holds " + connections.size() + " iWARP connections, not 1");
                }
                return RpcRdmaTrace.of(connections.get(0));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /** @return byte {@code offset} of the pattern file */
    public static byte patternByte(long offset) {
        return (byte) (offset % 251);
    }
}
