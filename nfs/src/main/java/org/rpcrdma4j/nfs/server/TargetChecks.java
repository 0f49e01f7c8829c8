package org.rpcrdma4j.nfs.server;

import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileType;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.NfsObject;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.server.ExportTable.Target;
import org.rpcrdma4j.nfs.vfs.Vfs;

/**
 * The {@link Permissions} checks of the operations that name objects in a directory, reading the attributes they
 * need from the target's VFS, for the NFSv3 and NFSv4 servers alike. Root passes them without a read.
 */
public final class TargetChecks {
    private TargetChecks() {
    }

    /**
     * Requires permission bits {@code want} on the directory {@code t} for {@code c} (root passes unread); an object
     * that is not a directory is left to the VFS, which answers NFS3ERR_NOTDIR as Linux's server does. Returns the
     * directory's attributes, or null when they were not read.
     */
    public static FileAttributes requireDir(Caller c, Target t, int want, String what) throws NfsException {
        if (c.isRoot()) {
            return null;
        }
        FileAttributes a = t.export().vfs().getattr(t.fh());
        if (a.isDirectory()) {
            Permissions.require(c, a, want, what);
        }
        return a;
    }

    /**
     * Requires that {@code c} may remove {@code name} from the directory {@code t} (write and search permission, and
     * the sticky bit's rule, for which the object is looked up).
     */
    public static void requireRemove(Caller c, Target t, String name) throws NfsException {
        FileAttributes dir = requireDir(c, t, Permissions.WRITE | Permissions.EXECUTE, "remove a name from this "
                + "directory");
        if (dir != null && dir.isDirectory() && (dir.mode() & 01000) != 0) {
            FileAttributes victim = t.export().vfs().lookup(t.fh(), name).attributes();
            Permissions.requireRemove(c, dir, victim);
        }
    }

    /**
     * Requires that {@code c} may rename {@code fromName} in {@code from} to {@code toName} in {@code to}: remove from
     * the one (the sticky bit's rule too), make a name in the other (and, when it replaces something, remove that),
     * and, to move a directory to another parent, write permission on the directory itself.
     */
    public static void requireRename(Caller c, Target from, String fromName, Target to, String toName)
            throws NfsException {
        Vfs vfs = from.export().vfs();
        FileAttributes fromDir = vfs.getattr(from.fh());
        FileAttributes toDir = from.fh().equals(to.fh()) ? fromDir : vfs.getattr(to.fh());
        if (!fromDir.isDirectory() || !toDir.isDirectory()) {
            return; // the VFS answers NFS3ERR_NOTDIR
        }
        NfsObject moved = vfs.lookup(from.fh(), fromName);
        Permissions.requireRemove(c, fromDir, moved.attributes());
        Permissions.requireCreate(c, toDir);
        if ((toDir.mode() & 01000) != 0) {
            try {
                Permissions.requireRemove(c, toDir, vfs.lookup(to.fh(), toName).attributes());
            } catch (NfsException e) {
                if (e.status() != Nfs3Status.NFS3ERR_NOENT) {
                    throw e;
                }
            }
        }
        if (moved.attributes().isDirectory() && !from.fh().equals(to.fh())) {
            Permissions.require(c, moved.attributes(), Permissions.WRITE, "move this directory to another parent");
        }
    }

    /**
     * The attributes a new object is made with, as Linux makes it for the caller: owned by the caller, with the
     * directory's group under a setgid directory (else the caller's), where the VFS can give objects away; an owner
     * or group the client names is dropped unless the caller is root (Linux's server drops them too). A new directory
     * under a setgid directory is setgid; a new file keeps a setgid bit only for a member of its group (or root).
     */
    public static SetAttributes owned(Caller c, Target dir, SetAttributes asked, boolean directory)
            throws NfsException {
        Vfs vfs = dir.export().vfs();
        boolean root = c.isRoot();
        Integer uid = root ? asked.uid() : null;
        Integer gid = root ? asked.gid() : null;
        Integer mode = asked.mode();
        if (vfs.givesOwnership() || mode != null) {
            FileAttributes d = vfs.getattr(dir.fh());
            boolean setgid = d.isDirectory() && (d.mode() & 02000) != 0;
            if (vfs.givesOwnership()) {
                uid = uid != null ? uid : c.uid();
                gid = gid != null ? gid : setgid ? d.gid() : c.gid();
            }
            if (mode != null) {
                if (directory && setgid) {
                    mode |= 02000;
                } else if (!directory && (mode & 02000) != 0 && !root
                        && !c.inGroup(gid != null ? gid : setgid ? d.gid() : c.gid())) {
                    mode &= ~02000;
                }
            }
        }
        return new SetAttributes(mode, uid, gid, asked.size(), asked.atime(), asked.mtime());
    }

    /**
     * A character or block device is made by root only ({@code NFS3ERR_PERM} for others, as mknod(2)'s EPERM without
     * CAP_MKNOD, which Linux's server passes on); FIFOs and sockets by anyone who may write the directory.
     */
    public static void requireMayMake(Caller c, FileType type) throws NfsException {
        if (type.isDevice() && !c.isRoot()) {
            throw new NfsException(Nfs3Status.NFS3ERR_PERM, "only root makes devices");
        }
    }
}
