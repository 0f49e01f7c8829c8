package org.rpcrdma4j.it.linux;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A program of {@code src/test/c}, built static with the host's gcc and run in the Linux guest, which has no compiler:
 * {@code lockprobe} ({@link LockProbe}), {@code spaceprobe}, {@code runas} and {@code fsxprobe}. Each source says its
 * usage. A test writes the built program into an export the guest sees, and the guest copies it to {@code /tmp} before
 * running it (the copy in the export may still be held open, ETXTBSY).
 */
final class GuestProgram {
    static final GuestProgram LOCKPROBE = new GuestProgram("lockprobe");
    static final GuestProgram SPACEPROBE = new GuestProgram("spaceprobe");
    static final GuestProgram RUNAS = new GuestProgram("runas");
    static final GuestProgram FSXPROBE = new GuestProgram("fsxprobe");

    private final String name;

    private GuestProgram(String name) {
        this.name = name;
    }

    private Path source() {
        return Path.of("src/test/c", name + ".c");
    }

    /** The program and what building it needs, for a skip or a failure that names it. */
    String what() {
        return name + " (gcc with a static C library)";
    }

    /** Why it cannot be built here, or null. */
    String unavailableReason() {
        try {
            build();
            return null;
        } catch (IOException e) {
            return e.getMessage();
        }
    }

    /** Where the guest runs it from. */
    String inGuest() {
        return "/tmp/" + name;
    }

    /** The guest's command that copies the program from {@code guestPath} to where it runs. */
    String installCommand(String guestPath) {
        return "cp " + guestPath + " " + inGuest() + " && chmod 755 " + inGuest();
    }

    /** The built program (built once per run into {@code target/}). */
    synchronized Path build() throws IOException {
        Path out = Path.of("target", name);
        Path source = source();
        if (Files.isExecutable(out) && Files.getLastModifiedTime(out).compareTo(Files.getLastModifiedTime(source)) > 0) {
            return out;
        }
        Process p = new ProcessBuilder("gcc", "-static", "-O2", "-Wall", "-o", out.toString(), source.toString())
                .redirectErrorStream(true).start();
        try {
            boolean done = p.waitFor(60, TimeUnit.SECONDS);
            String log = new String(p.getInputStream().readAllBytes());
            if (!done || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IOException("could not build " + name + " with gcc -static: " + log.strip());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while building " + name, e);
        }
        return out;
    }
}
