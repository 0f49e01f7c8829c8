package org.rpcrdma4j.it.linux;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.client.v4.LockDeniedException;
import org.rpcrdma4j.nfs.client.v4.LockType;
import org.rpcrdma4j.nfs.client.v4.Nfs41Client;

/**
 * {@code lockprobe} ({@code src/test/c/lockprobe.c}): a static program that takes, tests and holds byte-range locks
 * with {@code fcntl}, built here with the host's gcc and run in the Linux guest (which has no such tool), from an NFS
 * mount or from knfsd's export. Its usage is in the source.
 */
final class LockProbe {
    static final Path SOURCE = Path.of("src/test/c/lockprobe.c");
    /** Where the guest runs it from: a copy (the file written to an export may still be held open, ETXTBSY). */
    private static final String IN_GUEST = "/tmp/lockprobe";
    /** Ends the process {@link #holdCommand} started, and with it its lock. */
    static final String KILL_HOLDER = "kill $(cat /tmp/hold.pid)";

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

    /** The guest's command that copies the program from {@code guestPath} to where it runs. */
    static String installCommand(String guestPath) {
        return "cp " + guestPath + " " + IN_GUEST + " && chmod 755 " + IN_GUEST;
    }

    /** The start of a guest command that runs the program on {@code guestFile}: its operation and range follow. */
    static String on(String guestFile) {
        return IN_GUEST + " " + guestFile + " ";
    }

    /**
     * The guest's command that starts the program holding a lock ({@code lock}: {@code "w 0 100"}) on
     * {@code guestFile} for {@code seconds} in the background, and prints {@code held} once it holds it.
     */
    static String holdCommand(String guestFile, String lock, int seconds) {
        return "rm -f /tmp/hold.out; (" + on(guestFile) + "hold " + lock + " " + seconds + " > /tmp/hold.out 2>&1 & "
                + "echo $! > /tmp/hold.pid); for i in $(seq 200); do grep -q held /tmp/hold.out && break; "
                + "sleep 0.1; done; cat /tmp/hold.out";
    }

    /** LOCK, again while another owner's lock is still on its way out (its holder has just let go). */
    static void lockOnceFree(Nfs41Client nfs, FileHandle fh, LockType type, long offset, long length)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                nfs.lock(fh, type, offset, length);
                return;
            } catch (LockDeniedException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(200);
            }
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
