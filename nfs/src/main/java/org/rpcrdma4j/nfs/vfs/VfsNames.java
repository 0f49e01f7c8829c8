package org.rpcrdma4j.nfs.vfs;

import org.rpcrdma4j.nfs.FileType;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.xdr.Nfs3;
import org.rpcrdma4j.nfs.xdr.Nfs3Xdr;

/** The checks every VFS applies to a name component, a symbolic link's contents and a special file's type. */
public final class VfsNames {
    private VfsNames() {
    }

    /**
     * A component that may be looked up: not empty, no '/' or NUL, at most 255 bytes. "." and ".." pass.
     */
    public static void checkLookup(String name) throws NfsException {
        if (name == null || name.isEmpty()) {
            throw new NfsException(Nfs3Status.NFS3ERR_NOENT, "empty name");
        }
        if (Nfs3Xdr.utf8Length(name) > Nfs3.MAXNAMLEN) {
            throw new NfsException(Nfs3Status.NFS3ERR_NAMETOOLONG, "name longer than " + Nfs3.MAXNAMLEN + " bytes");
        }
        if (name.indexOf('/') >= 0 || name.indexOf('\0') >= 0) {
            throw new NfsException(Nfs3Status.NFS3ERR_INVAL, "a name is one component: " + printable(name));
        }
    }

    /** A component that names a new or removed entry: as {@link #checkLookup}, and not "." or "..". */
    public static void checkEntry(String name, boolean creating) throws NfsException {
        checkLookup(name);
        if (".".equals(name) || "..".equals(name)) {
            throw new NfsException(creating ? Nfs3Status.NFS3ERR_EXIST : Nfs3Status.NFS3ERR_INVAL,
                    "\"" + name + "\" is not an entry that can be changed");
        }
    }

    /** A symbolic link's contents: not empty, no NUL, at most {@link Nfs3#MAXPATHLEN} bytes. */
    public static void checkLinkTarget(String target) throws NfsException {
        if (target == null || target.isEmpty()) {
            throw new NfsException(Nfs3Status.NFS3ERR_INVAL, "empty symbolic link");
        }
        if (Nfs3Xdr.utf8Length(target) > Nfs3.MAXPATHLEN) {
            throw new NfsException(Nfs3Status.NFS3ERR_NAMETOOLONG, "link longer than " + Nfs3.MAXPATHLEN + " bytes");
        }
        if (target.indexOf('\0') >= 0) {
            throw new NfsException(Nfs3Status.NFS3ERR_INVAL, "NUL in a symbolic link");
        }
    }

    /**
     * A type {@link Vfs#mknod} makes: a FIFO, a socket, a character or a block device. Other types have calls of
     * their own ({@code NFS3ERR_BADTYPE}).
     */
    public static void checkSpecialType(FileType type) throws NfsException {
        if (!type.isSpecial()) {
            throw new NfsException(Nfs3Status.NFS3ERR_BADTYPE, "MKNOD of " + type);
        }
    }

    private static String printable(String name) {
        return name.replace("\0", "\\0");
    }
}
