package org.rpcrdma4j.nfs.vfs;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;

/**
 * Opens the files of a {@link LocalVfs} for reading or writing, and lets their owner through as Linux's server does
 * (its owner override): a file owned by the server's user opens for writing although its mode has no owner-write
 * bit (a client that created it with mode 0444 writes what it holds), and for reading without owner-read. Where the
 * kernel refuses such an open, the owner's missing bit is added for the moment of the open and the mode put back
 * right after (the open file keeps its access), both under one lock that every change of a mode through this class
 * takes, so no SETATTR comes between them. The file's change time moves with the two mode changes. A server running
 * as root is never refused. What cannot be let through: a file of another user (its mode cannot be changed), a file
 * its owner can neither read nor write, and on JDK 17 one its owner cannot read (the JDK changes a mode without
 * following a link only through the file opened: JDK 17 opens it for reading, later JDKs for writing when reading is
 * refused). So on JDK 17 the override serves writes (and truncation) of files with owner-read, the common case.
 */
final class OwnerOverride {
    /** How a file is opened: the kernel's open, or a test's stand-in for one that checks modes as for a user. */
    interface Opener {
        FileChannel open(Path p, StandardOpenOption how) throws IOException;
    }

    private final int serverUid;
    private final Opener opener;
    private final Object modes = new Object();

    OwnerOverride(int serverUid, Opener opener) {
        this.serverUid = serverUid;
        this.opener = opener;
    }

    /** The kernel's open of the server's own user. */
    static OwnerOverride ofProcess() {
        return new OwnerOverride(processUid(), (p, how) -> FileChannel.open(p, how, LinkOption.NOFOLLOW_LINKS));
    }

    /** The server's user id, or -1 where the JDK does not tell it (then no file is let through). */
    static int processUid() {
        try {
            return (int) new com.sun.security.auth.module.UnixSystem().getUid();
        } catch (LinkageError | RuntimeException e) {
            return -1;
        }
    }

    /** Opens {@code p} (a regular file, never followed if a link) for {@code how}: READ or WRITE. */
    FileChannel open(Path p, StandardOpenOption how) throws IOException {
        try {
            return opener.open(p, how);
        } catch (AccessDeniedException denied) {
            return asOwner(p, how, denied);
        }
    }

    private FileChannel asOwner(Path p, StandardOpenOption how, AccessDeniedException denied) throws IOException {
        int bit = how == StandardOpenOption.WRITE ? 0200 : 0400;
        synchronized (modes) {
            Map<String, Object> a = Files.readAttributes(p, "unix:uid,mode", LinkOption.NOFOLLOW_LINKS);
            int mode = (Integer) a.get("mode") & 07777;
            if (serverUid < 0 || (Integer) a.get("uid") != serverUid || (mode & bit) != 0) {
                throw denied;
            }
            try {
                Files.setAttribute(p, "unix:mode", mode | bit, LinkOption.NOFOLLOW_LINKS);
            } catch (IOException cannot) {
                throw denied;
            }
            FileChannel ch = null;
            try {
                ch = opener.open(p, how);
            } finally {
                try {
                    Files.setAttribute(p, "unix:mode", mode, LinkOption.NOFOLLOW_LINKS);
                } catch (IOException e) {
                    if (ch != null) {
                        ch.close();
                    }
                    throw e;
                }
            }
            return ch;
        }
    }

    /** Sets the whole mode of {@code p} (chmod(2)), never between another call's change and its restore. */
    void setMode(Path p, int mode) throws IOException {
        synchronized (modes) {
            Files.setAttribute(p, "unix:mode", mode & 07777, LinkOption.NOFOLLOW_LINKS);
        }
    }
}
