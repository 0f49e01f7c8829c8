package org.rpcrdma4j.verbs.disni;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

import com.ibm.disni.util.MemoryUtils;

/**
 * What the DiSNI provider needs from the machine, probed without ever throwing: libdisni, the JVM's exports to DiSNI,
 * RDMA devices and the rdma_cm device node. {@link #SYSTEM} probes the real machine; tests give their own.
 */
interface DisniRuntime {

    /** The real machine. libdisni is loaded at most once per JVM (a failed native load cannot be retried anyway). */
    DisniRuntime SYSTEM = new SystemRuntime(Paths.get("/sys/class/infiniband"), Paths.get("/dev/infiniband/rdma_cm"));

    /** Loads libdisni through DiSNI; null when it is loaded, otherwise what loading threw. */
    Throwable loadLibrary();

    /** Whether {@code java.base} exports {@code sun.nio.ch} to DiSNI's module. */
    boolean exportsOpen();

    /** The RDMA devices the kernel has (names under /sys/class/infiniband), sorted; empty when none. */
    List<String> deviceNames();

    /** Whether /dev/infiniband/rdma_cm exists (the rdma_ucm module is loaded). */
    boolean rdmaCmPresent();

    /** The JVM's java.library.path, for messages. */
    default String libraryPath() {
        return System.getProperty("java.library.path", "");
    }

    /** Everything, for {@link DisniAvailability#evaluate}. Loads libdisni if that was not tried yet. */
    default DisniAvailability.Findings findings() {
        Throwable load = loadLibrary();
        return new DisniAvailability.Findings(DisniAvailability.classify(load),
                load == null ? null : load.toString(), libraryPath(), exportsOpen(), deviceNames(), rdmaCmPresent());
    }

    /** Probes the machine this JVM runs on. */
    final class SystemRuntime implements DisniRuntime {
        private final Path sysClassInfiniband;
        private final Path rdmaCmNode;

        SystemRuntime(Path sysClassInfiniband, Path rdmaCmNode) {
            this.sysClassInfiniband = sysClassInfiniband;
            this.rdmaCmNode = rdmaCmNode;
        }

        @Override
        public Throwable loadLibrary() {
            return NativeLoad.RESULT;
        }

        @Override
        public boolean exportsOpen() {
            return exported(Object.class.getModule(), MemoryUtils.class.getModule());
        }

        /** Whether {@code base} exports {@code sun.nio.ch} to {@code target}. */
        static boolean exported(Module base, Module target) {
            return base.isExported("sun.nio.ch", target);
        }

        @Override
        public List<String> deviceNames() {
            try {
                return SysfsRdmaDevices.names(sysClassInfiniband);
            } catch (IOException e) {
                return List.of();
            }
        }

        @Override
        public boolean rdmaCmPresent() {
            return Files.exists(rdmaCmNode);
        }

        /** Holder: the one attempt to load libdisni, made when first asked. */
        private static final class NativeLoad {
            static final Throwable RESULT = load();

            private static Throwable load() {
                try {
                    com.ibm.disni.verbs.RdmaProvider.provider();
                    return null;
                } catch (LinkageError | IOException | RuntimeException e) {
                    return e;
                }
            }
        }
    }
}
