package org.rpcrdma4j.it.linux;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * {@code lockprobe} ({@code src/test/c/lockprobe.c}): a static program that takes, tests and holds byte-range locks
 * with {@code fcntl}, built here with the host's gcc and run in the Linux guest (which has no such tool), from an NFS
 * mount or from knfsd's export. Its usage is in the source.
 */
final class LockProbe {
    static final Path SOURCE = Path.of("src/test/c/lockprobe.c");

    private LockProbe() {
    }

    /** Why it cannot be built here, or null: gcc with a static C library is needed. */
    static String unavailableReason() {
        try {
            build();
            return null;
        } catch (IOException e) {
            return e.getMessage();
        }
    }

    /** The built program (built once per run into {@code target/}). */
    static synchronized Path build() throws IOException {
        Path out = Path.of("target/lockprobe");
        if (Files.isExecutable(out) && Files.getLastModifiedTime(out).compareTo(Files.getLastModifiedTime(SOURCE)) > 0) {
            return out;
        }
        Process p = new ProcessBuilder("gcc", "-static", "-O2", "-Wall", "-o", out.toString(), SOURCE.toString())
                .redirectErrorStream(true).start();
        try {
            boolean done = p.waitFor(60, TimeUnit.SECONDS);
            String log = new String(p.getInputStream().readAllBytes());
            if (!done || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IOException("could not build lockprobe with gcc -static: " + log.strip());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while building lockprobe", e);
        }
        return out;
    }
}
