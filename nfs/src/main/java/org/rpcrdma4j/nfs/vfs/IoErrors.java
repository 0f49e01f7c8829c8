package org.rpcrdma4j.nfs.vfs;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.NotLinkException;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;

/** Maps the JDK's file system exceptions (and the errno text it reports) to NFSv3 statuses. */
final class IoErrors {
    private IoErrors() {
    }

    static NfsException map(IOException e, String what) {
        if (e instanceof NfsException n) {
            return n;
        }
        Nfs3Status status;
        if (e instanceof NoSuchFileException) {
            status = Nfs3Status.NFS3ERR_NOENT;
        } else if (e instanceof FileAlreadyExistsException) {
            status = Nfs3Status.NFS3ERR_EXIST;
        } else if (e instanceof DirectoryNotEmptyException) {
            status = Nfs3Status.NFS3ERR_NOTEMPTY;
        } else if (e instanceof AccessDeniedException) {
            status = Nfs3Status.NFS3ERR_ACCES;
        } else if (e instanceof NotDirectoryException) {
            status = Nfs3Status.NFS3ERR_NOTDIR;
        } else if (e instanceof NotLinkException) {
            status = Nfs3Status.NFS3ERR_INVAL;
        } else if (e instanceof FileSystemException fse && fse.getReason() != null) {
            status = fromReason(fse.getReason());
        } else if (e.getMessage() != null && e.getClass() == IOException.class) {
            // FileChannel reports errno text as the message of a plain IOException (EFBIG: "File too large")
            status = fromReason(e.getMessage());
        } else {
            status = Nfs3Status.NFS3ERR_IO;
        }
        return new NfsException(status, what + ": " + e.getMessage(), e);
    }

    private static Nfs3Status fromReason(String reason) {
        String r = reason.toLowerCase(java.util.Locale.ROOT);
        if (r.contains("is a directory")) {
            return Nfs3Status.NFS3ERR_ISDIR;
        }
        if (r.contains("not a directory")) {
            return Nfs3Status.NFS3ERR_NOTDIR;
        }
        if (r.contains("no space left")) {
            return Nfs3Status.NFS3ERR_NOSPC;
        }
        if (r.contains("disk quota")) {
            return Nfs3Status.NFS3ERR_DQUOT;
        }
        if (r.contains("read-only file system")) {
            return Nfs3Status.NFS3ERR_ROFS;
        }
        if (r.contains("operation not permitted")) {
            return Nfs3Status.NFS3ERR_PERM;
        }
        if (r.contains("permission denied")) {
            return Nfs3Status.NFS3ERR_ACCES;
        }
        if (r.contains("file name too long")) {
            return Nfs3Status.NFS3ERR_NAMETOOLONG;
        }
        if (r.contains("directory not empty")) {
            return Nfs3Status.NFS3ERR_NOTEMPTY;
        }
        if (r.contains("file exists")) {
            return Nfs3Status.NFS3ERR_EXIST;
        }
        if (r.contains("invalid argument") || r.contains("too many levels of symbolic links")) {
            return Nfs3Status.NFS3ERR_INVAL;
        }
        if (r.contains("file too large")) {
            return Nfs3Status.NFS3ERR_FBIG;
        }
        if (r.contains("cross-device")) {
            return Nfs3Status.NFS3ERR_XDEV;
        }
        if (r.contains("too many links")) {
            return Nfs3Status.NFS3ERR_MLINK;
        }
        return Nfs3Status.NFS3ERR_IO;
    }
}
