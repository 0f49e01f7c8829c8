package org.rpcrdma4j.nfs.server;

import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.SetAttributes.TimeSetting;

/**
 * The permission checks the NFS servers make before they ask a VFS to act, from the caller's identity
 * ({@link Caller}, squashed as its host's grant says) and the object's mode bits, as Linux's server makes them for
 * its callers: the VFS itself acts as the server's own user for everyone.
 * <ul>
 * <li>Reading or writing a file's data: read or write permission; the owner always may (a client checks permission
 * when a file is opened, and a process may go on using a file whose mode its owner changed since), and a file that
 * may be executed may be read (a client runs a program by reading it).</li>
 * <li>Looking a name up: search (execute) permission on the directory; listing it: read permission.</li>
 * <li>Making or removing a name: write and search permission on the directory. In a sticky directory (mode 01000)
 * only the owner of the object, or of the directory, may remove or rename it ({@code NFS3ERR_PERM}). Moving a
 * directory to another parent also needs write permission on the directory itself.</li>
 * <li>SETATTR: only root gives a file away or sets times of the caller's choosing on a file it does not own; the
 * owner may change the mode, and the group to one of its own; the size needs write permission (or ownership); times
 * set to the server's clock need write permission or ownership. These fail with {@code NFS3ERR_PERM}, as chown(2),
 * chmod(2) and utimes(2) do.</li>
 * </ul>
 * Root (uid 0 after squashing) passes every check. Lacking permission is {@code NFS3ERR_ACCES}.
 */
public final class Permissions {
    public static final int READ = 4;
    public static final int WRITE = 2;
    public static final int EXECUTE = 1;

    private Permissions() {
    }

    /** The permission bits (read 4, write 2, execute 1) {@code c} has on an object with attributes {@code a}. */
    public static int bits(Caller c, FileAttributes a) {
        if (c.isRoot()) {
            return READ | WRITE | (a.isDirectory() || (a.mode() & 0111) != 0 ? EXECUTE : 0);
        }
        if (c.uid() == a.uid()) {
            return (a.mode() >> 6) & 7;
        }
        if (c.inGroup(a.gid())) {
            return (a.mode() >> 3) & 7;
        }
        return a.mode() & 7;
    }

    /** Requires the permission bits {@code want} on {@code a}: NFS3ERR_ACCES when {@code c} lacks one. */
    public static void require(Caller c, FileAttributes a, int want, String what) throws NfsException {
        if ((bits(c, a) & want) != want) {
            throw denied(c, what);
        }
    }

    /**
     * Reading a file's data: read permission, or execute permission, or ownership. Only regular files are checked:
     * for anything else the VFS answers as Linux's server does (NFS3ERR_ISDIR, NFS3ERR_INVAL).
     */
    public static void requireRead(Caller c, FileAttributes a) throws NfsException {
        if (a.isRegularFile() && c.uid() != a.uid() && (bits(c, a) & (READ | EXECUTE)) == 0) {
            throw denied(c, "read this file");
        }
    }

    /** Writing a file's data (or committing it): write permission, or ownership; regular files only, as above. */
    public static void requireWrite(Caller c, FileAttributes a) throws NfsException {
        if (a.isRegularFile() && c.uid() != a.uid() && (bits(c, a) & WRITE) == 0) {
            throw denied(c, "write this file");
        }
    }

    /** Making a name in directory {@code dir}: write and search permission. */
    public static void requireCreate(Caller c, FileAttributes dir) throws NfsException {
        require(c, dir, WRITE | EXECUTE, "make a name in this directory");
    }

    /**
     * Removing (or renaming away) {@code victim} from directory {@code dir}: write and search permission on the
     * directory, and in a sticky directory the ownership of the object or of the directory.
     */
    public static void requireRemove(Caller c, FileAttributes dir, FileAttributes victim) throws NfsException {
        require(c, dir, WRITE | EXECUTE, "remove a name from this directory");
        if ((dir.mode() & 01000) != 0 && !c.isRoot() && c.uid() != victim.uid() && c.uid() != dir.uid()) {
            throw new NfsException(Nfs3Status.NFS3ERR_PERM, "the directory is sticky, and " + c
                    + " owns neither it nor the object");
        }
    }

    /**
     * A SETATTR of {@code s} on an object with attributes {@code a}: NFS3ERR_PERM for what only the owner (or root)
     * may change, NFS3ERR_ACCES for what needs write permission. Returns the attributes to set: a mode's setgid bit is
     * dropped when the caller is not in the object's group (as chmod(2) drops it), and a truncation that sets no mode
     * clears setuid as a write does ({@link #clearedAfterWrite}).
     */
    public static SetAttributes requireSetattr(Caller c, FileAttributes a, SetAttributes s) throws NfsException {
        if (c.isRoot()) {
            return s;
        }
        boolean owner = c.uid() == a.uid();
        if (s.uid() != null && !(owner && s.uid() == a.uid())) {
            throw new NfsException(Nfs3Status.NFS3ERR_PERM, "only root gives a file to another user (" + c + ")");
        }
        if (s.gid() != null && !(owner && (s.gid() == a.gid() || c.inGroup(s.gid())))) {
            throw new NfsException(Nfs3Status.NFS3ERR_PERM, "only the owner, to a group of its own, or root changes "
                    + "the group (" + c + ")");
        }
        SetAttributes out = s;
        if (s.mode() != null) {
            if (!owner) {
                throw new NfsException(Nfs3Status.NFS3ERR_PERM, "only the owner or root changes the mode (" + c + ")");
            }
            int group = s.gid() != null ? s.gid() : a.gid();
            if ((s.mode() & 02000) != 0 && !c.inGroup(group)) {
                out = out.withMode(s.mode() & ~02000);
            }
        }
        if (s.size() != null && !owner && (bits(c, a) & WRITE) == 0) {
            throw denied(c, "change this file's size");
        }
        if (isClientTime(s.atime()) || isClientTime(s.mtime())) {
            if (!owner) {
                throw new NfsException(Nfs3Status.NFS3ERR_PERM, "only the owner or root sets times of its choosing ("
                        + c + ")");
            }
        } else if ((s.atime() != null || s.mtime() != null) && !owner && (bits(c, a) & WRITE) == 0) {
            throw denied(c, "touch this file");
        }
        Integer cleared = out.size() != null && out.mode() == null ? clearedAfterWrite(c, a) : null;
        return cleared != null ? out.withMode(cleared) : out;
    }

    /**
     * The mode a file's data change leaves it with when the caller is not root: without setuid, and without setgid
     * where the group may execute it, as Linux clears them on a write or truncation by an unprivileged user; null when
     * nothing is to clear.
     */
    public static Integer clearedAfterWrite(Caller c, FileAttributes a) {
        if (c.isRoot() || !a.isRegularFile()) {
            return null;
        }
        int mode = a.mode();
        int cleared = mode & ~04000;
        if ((mode & 02010) == 02010) {
            cleared &= ~02000;
        }
        return cleared == mode ? null : cleared;
    }

    private static boolean isClientTime(TimeSetting t) {
        return t != null && t.time() != null;
    }

    private static NfsException denied(Caller c, String what) {
        return new NfsException(Nfs3Status.NFS3ERR_ACCES, c + " may not " + what);
    }
}
