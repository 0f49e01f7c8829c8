package org.rpcrdma4j.nfs;

/**
 * One directory entry of READDIR ({@code entry3}) or READDIRPLUS ({@code entryplus3}).
 *
 * @param fileid     the entry's file identifier
 * @param name       the entry's name
 * @param cookie     where a later READDIR resumes to continue after this entry
 * @param attributes the entry's attributes (READDIRPLUS only, and optional there), or null
 * @param handle     the entry's file handle (READDIRPLUS only, and optional there), or null
 */
public record DirEntry(long fileid, String name, long cookie, FileAttributes attributes, FileHandle handle) {
    public static DirEntry of(long fileid, String name, long cookie) {
        return new DirEntry(fileid, name, cookie, null, null);
    }

    /** True for the "." and ".." entries. */
    public boolean isDotOrDotDot() {
        return ".".equals(name) || "..".equals(name);
    }
}
