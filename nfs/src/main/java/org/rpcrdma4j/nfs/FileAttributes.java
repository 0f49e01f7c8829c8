package org.rpcrdma4j.nfs;

import java.util.Objects;

/**
 * {@code fattr3} (RFC 1813 section 2.6): the attributes of a file system object.
 *
 * @param type   object type
 * @param mode   permission bits ({@code 07777} at most)
 * @param nlink  number of hard links
 * @param uid    owner
 * @param gid    group
 * @param size   size in bytes
 * @param used   bytes of storage the object uses
 * @param rdevMajor device major number ({@code specdata1}); 0 for other types
 * @param rdevMinor device minor number ({@code specdata2})
 * @param fsid   file system identifier
 * @param fileid file identifier, unique within the file system
 */
public record FileAttributes(FileType type, int mode, int nlink, int uid, int gid, long size, long used,
                             int rdevMajor, int rdevMinor, long fsid, long fileid,
                             NfsTime atime, NfsTime mtime, NfsTime ctime) {
    public FileAttributes {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(atime, "atime");
        Objects.requireNonNull(mtime, "mtime");
        Objects.requireNonNull(ctime, "ctime");
    }

    public boolean isDirectory() {
        return type == FileType.DIRECTORY;
    }

    public boolean isRegularFile() {
        return type == FileType.REGULAR;
    }

    public boolean isSymlink() {
        return type == FileType.SYMLINK;
    }
}
