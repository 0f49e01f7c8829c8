package org.rpcrdma4j.it.linux;

import java.util.concurrent.TimeUnit;

import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.client.v4.LockDeniedException;
import org.rpcrdma4j.nfs.client.v4.LockType;
import org.rpcrdma4j.nfs.client.v4.Nfs41Client;

/**
 * Running {@code lockprobe} ({@code src/test/c/lockprobe.c}, a {@link GuestProgram}) in the guest, which takes, tests
 * and holds byte-range locks with {@code fcntl}, from an NFS mount or from knfsd's export; and taking a lock on the
 * host while the guest's is on its way out.
 */
final class LockProbe {
    static final GuestProgram PROGRAM = GuestProgram.LOCKPROBE;
    /** Ends the process {@link #holdCommand} started, and with it its lock. */
    static final String KILL_HOLDER = "kill $(cat /tmp/hold.pid)";

    private LockProbe() {
    }

    /** The start of a guest command that runs the program on {@code guestFile}: its operation and range follow. */
    static String on(String guestFile) {
        return PROGRAM.inGuest() + " " + guestFile + " ";
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
}
