package org.rpcrdma4j.nfs.client;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.DirEntry;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.FileType;
import org.rpcrdma4j.nfs.FsInfo;
import org.rpcrdma4j.nfs.FsStat;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.NfsObject;
import org.rpcrdma4j.nfs.NfsTime;
import org.rpcrdma4j.nfs.PathConf;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.client.v4.Nfs41Client;

/**
 * A mounted export, whichever NFS version speaks to it: the blocking operations the NFSv3 client ({@link NfsClient})
 * and the NFSv4.1/4.2 client ({@link Nfs41Client}) share, so that callers need not care which was mounted.
 * {@link NfsMounts#mount} chooses the version as {@code mount.nfs} does. Operations NFSv4 has no equivalent for
 * (MKNOD, LINK, a SETATTR guarded by ctime) fail there with a typed NFS error; FSINFO and PATHCONF come from NFSv4
 * attributes.
 */
public interface NfsMount extends AutoCloseable {
    /** The NFS version spoken: "3", "4.1" or "4.2". */
    String version();

    /** The export's root handle. */
    FileHandle root();

    /** The same mount's pipelined operations. */
    NfsAsyncMount async();

    /** The connection the NFS calls go over (borrowed: closed with the mount when the mount made it). */
    DataTransport transport();

    void ping() throws IOException;

    FileAttributes getattr(FileHandle fh) throws IOException;

    FileAttributes setattr(FileHandle fh, SetAttributes attributes) throws IOException;

    FileAttributes setattr(FileHandle fh, SetAttributes attributes, NfsTime guardCtime) throws IOException;

    NfsObject lookup(FileHandle dir, String name) throws IOException;

    int access(FileHandle fh, int bits) throws IOException;

    String readlink(FileHandle fh) throws IOException;

    ReadReply read(FileHandle fh, long offset, ByteBuf dst) throws IOException;

    WriteReply write(FileHandle fh, long offset, ByteBuf src, StableHow stable) throws IOException;

    long commit(FileHandle fh, long offset, long count) throws IOException;

    NfsObject create(FileHandle dir, String name, CreateMode mode, SetAttributes attributes) throws IOException;

    NfsObject createExclusive(FileHandle dir, String name, long verifier) throws IOException;

    NfsObject mkdir(FileHandle dir, String name, SetAttributes attributes) throws IOException;

    NfsObject symlink(FileHandle dir, String name, String target) throws IOException;

    NfsObject mknod(FileHandle dir, String name, FileType type, int major, int minor) throws IOException;

    void remove(FileHandle dir, String name) throws IOException;

    void rmdir(FileHandle dir, String name) throws IOException;

    void rename(FileHandle fromDir, String fromName, FileHandle toDir, String toName) throws IOException;

    void link(FileHandle file, FileHandle dir, String name) throws IOException;

    DirListing readdir(FileHandle dir, long cookie, long cookieVerifier, int count) throws IOException;

    DirListing readdirplus(FileHandle dir, long cookie, long cookieVerifier, int dirCount, int maxCount)
            throws IOException;

    FsStat fsstat(FileHandle fh) throws IOException;

    FsInfo fsinfo(FileHandle fh) throws IOException;

    PathConf pathconf(FileHandle fh) throws IOException;

    /** The handle of a path below the export's root ("/" or "" is the root). */
    FileHandle resolve(String path) throws IOException;

    default FileAttributes stat(String path) throws IOException {
        return getattr(resolve(path));
    }

    /** The mode {@link #createFile} gives a file it makes. */
    int NEW_FILE_MODE = 0644;

    /**
     * Creates a regular file with mode {@link #NEW_FILE_MODE}, or truncates the one there, whose mode stays: a GUARDED
     * CREATE with the mode, then, when the name is taken, an UNCHECKED one with only the size. (A server gives a file
     * created without a mode the mode it likes: Linux's, 0000.)
     */
    default FileHandle createFile(String path) throws IOException {
        NfsPaths.Split s = NfsPaths.split(path);
        FileHandle dir = resolve(s.directory());
        try {
            return create(dir, s.name(), CreateMode.GUARDED, SetAttributes.NONE.withSize(0).withMode(NEW_FILE_MODE))
                    .handle();
        } catch (NfsException e) {
            if (e.status() != Nfs3Status.NFS3ERR_EXIST) {
                throw e;
            }
            return create(dir, s.name(), CreateMode.UNCHECKED, SetAttributes.NONE.withSize(0)).handle();
        }
    }

    default FileHandle mkdir(String path) throws IOException {
        NfsPaths.Split s = NfsPaths.split(path);
        return mkdir(resolve(s.directory()), s.name(), SetAttributes.NONE).handle();
    }

    /** Removes a file or an empty directory. */
    void delete(String path) throws IOException;

    default void rename(String from, String to) throws IOException {
        NfsPaths.Split f = NfsPaths.split(from);
        NfsPaths.Split t = NfsPaths.split(to);
        rename(resolve(f.directory()), f.name(), resolve(t.directory()), t.name());
    }

    /** The entries of a directory without "." and "..", with attributes and handles where the server gave them. */
    default List<DirEntry> list(String path) throws IOException {
        return list(resolve(path));
    }

    List<DirEntry> list(FileHandle dir) throws IOException;

    byte[] readAll(String path) throws IOException;

    long upload(Path local, String remotePath) throws IOException;

    long download(String remotePath, Path local) throws IOException;

    /** Unmounts and closes the connection. */
    @Override
    void close();
}
