package org.rpcrdma4j.nfs.vfs;

import java.nio.ByteBuffer;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.FileType;
import org.rpcrdma4j.nfs.FsStat;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.NfsObject;
import org.rpcrdma4j.nfs.NfsTime;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.StableHow;

/**
 * The small file system an embedded NFSv3 server exports: one tree, addressed by opaque file handles the VFS
 * issues. Every method reports a failure as an {@link NfsException} whose status the server sends as it is
 * ({@code NFS3ERR_NOENT}, {@code NFS3ERR_STALE}, ...), so an implementation chooses the NFS semantics.
 * <p>
 * <b>Handles</b> are at most {@link #MAX_HANDLE_SIZE} bytes (the server prefixes its export id). A handle the VFS
 * cannot parse is {@code NFS3ERR_BADHANDLE}; one it issued for an object that no longer exists is
 * {@code NFS3ERR_STALE}. Names are single components: never empty, never containing '/' or NUL, at most 255 bytes
 * of UTF-8 ({@link VfsNames}); "." and ".." resolve in {@link #lookup} only, and no name, handle, "..", symbolic
 * link or rename reaches outside the exported tree. Symbolic links are never followed by the VFS.
 * <p>
 * <b>Threads.</b> Implementations are thread-safe: the server calls them from its worker threads concurrently.
 */
public interface Vfs extends AutoCloseable {
    /** Largest handle a VFS may issue: {@code NFS3_FHSIZE} less the server's 4-byte export id. */
    int MAX_HANDLE_SIZE = 60;

    /** The handle of the exported tree's root directory. */
    FileHandle root();

    FileAttributes getattr(FileHandle fh) throws NfsException;

    /**
     * Applies {@code attributes} (null fields are left alone).
     *
     * @param guardCtime when not null, change nothing and fail with {@code NFS3ERR_NOT_SYNC} unless the object's
     *                   ctime equals it
     * @return the attributes afterwards
     */
    FileAttributes setattr(FileHandle fh, SetAttributes attributes, NfsTime guardCtime) throws NfsException;

    /** Finds {@code name} in {@code dir}; "." is the directory, ".." its parent (the root's parent is the root). */
    NfsObject lookup(FileHandle dir, String name) throws NfsException;

    /** The contents of a symbolic link, unresolved. */
    String readlink(FileHandle fh) throws NfsException;

    /**
     * Reads from {@code offset} into {@code dst}, from its position up to its limit, and advances its position by
     * the bytes read. Borrows {@code dst} for the call only: the server passes a buffer that later becomes the
     * reply's data (for RDMA, registered memory written straight into the client's write chunk).
     */
    ReadResult read(FileHandle fh, long offset, ByteBuffer dst) throws NfsException;

    /**
     * Lends up to {@code count} bytes from {@code offset} as views of the VFS's own memory, so that a server can send
     * them without copying ({@link LentRange}); null when this VFS does not lend (the default), and the server then
     * {@linkplain #read reads} into a buffer of its own. A range that starts at or beyond the end of the file is
     * empty, with {@code eof} set.
     */
    default LentRange lend(FileHandle fh, long offset, int count) throws NfsException {
        return null;
    }

    /**
     * Writes the remaining bytes of {@code src} at {@code offset}. Borrows {@code src} for the call only (for a
     * server it is a view of the request). Data written {@link StableHow#UNSTABLE} may be lost until a
     * {@link #commit}; {@link #writeVerifier()} changes whenever it may have been.
     */
    WriteResult write(FileHandle fh, long offset, ByteBuffer src, StableHow stable) throws NfsException;

    /**
     * Writes as {@link #write(FileHandle, long, ByteBuffer, StableHow)} does, and may keep parts of the memory under
     * {@code src} that {@code memory} offers instead of copying them (a server over RDMA offers the memory a WRITE's
     * data was pulled into). The default copies.
     */
    default WriteResult write(FileHandle fh, long offset, ByteBuffer src, StableHow stable, WriteMemory memory)
            throws NfsException {
        return write(fh, offset, src, stable);
    }

    /**
     * Creates a regular file, with {@code attributes} (for {@link CreateMode#EXCLUSIVE} only their owner and group:
     * the verifier is kept in the times). A name that holds a file is left as it is: {@link CreateMode#UNCHECKED} of
     * a regular file returns it, and the server then sets the size the call asks for (a truncation) after checking
     * that the caller may, as Linux's server does; {@link CreateMode#EXCLUSIVE} returns a file this VFS made
     * exclusively with the same verifier that is still empty (a resend), else it is {@code NFS3ERR_EXIST}.
     *
     * @param verifier for {@link CreateMode#EXCLUSIVE}
     * @return the file, and whether this call made it
     */
    Created create(FileHandle dir, String name, CreateMode mode, SetAttributes attributes, long verifier)
            throws NfsException;

    NfsObject mkdir(FileHandle dir, String name, SetAttributes attributes) throws NfsException;

    NfsObject symlink(FileHandle dir, String name, String target, SetAttributes attributes) throws NfsException;

    /**
     * Makes a special file: a FIFO, a socket, or a character or block device with the numbers {@code major} and
     * {@code minor} (ignored for the others), with {@code attributes} (mode, owner, times; null fields are left
     * alone). Other types are {@code NFS3ERR_BADTYPE} ({@link VfsNames#checkSpecialType}). Whether the caller may
     * make a device is the server's to check. The default is {@code NFS3ERR_NOTSUPP}.
     */
    default NfsObject mknod(FileHandle dir, String name, FileType type, int major, int minor,
                            SetAttributes attributes) throws NfsException {
        VfsNames.checkSpecialType(type);
        throw new NfsException(Nfs3Status.NFS3ERR_NOTSUPP, "this file system does not make special files");
    }

    /**
     * Removes a name of a non-directory ({@code NFS3ERR_ISDIR} for a directory). A file with other names (hard links)
     * keeps its data and handles; it goes with its last name.
     */
    void remove(FileHandle dir, String name) throws NfsException;

    /** Removes an empty directory. */
    void rmdir(FileHandle dir, String name) throws NfsException;

    /** Renames atomically, replacing a compatible target (POSIX rename semantics). */
    void rename(FileHandle fromDir, String fromName, FileHandle toDir, String toName) throws NfsException;

    /**
     * Makes {@code name} in {@code dir} one more name of {@code file} (a hard link): the file keeps its data,
     * attributes and handle, and counts one more link. As Linux's server answers: a directory as {@code file} is
     * {@code NFS3ERR_ISDIR}, a name that is taken {@code NFS3ERR_EXIST}, a file on another file system than
     * {@code dir} {@code NFS3ERR_XDEV}, a file with {@link #linkMax()} names {@code NFS3ERR_MLINK}. The default is
     * {@code NFS3ERR_NOTSUPP}; a VFS that makes links says so with {@link #linkMax()}.
     */
    default void link(FileHandle file, FileHandle dir, String name) throws NfsException {
        throw new NfsException(Nfs3Status.NFS3ERR_NOTSUPP, "this file system does not make hard links");
    }

    /**
     * The most names a file may have (PATHCONF's {@code linkmax}, NFSv4's {@code maxlink}). More than 1 means that
     * {@link #link} makes hard links, and a server says so (FSINFO's {@code FSF3_LINK}, NFSv4's {@code link_support});
     * 1, the default, that it does not.
     */
    default int linkMax() {
        return 1;
    }

    /**
     * Lists {@code dir} from {@code cookie} (0: from the start, else the cookie of the last entry seen). Entries
     * carry their attributes and handles. A VFS whose cookies stay valid whatever changes in the directory (as
     * {@link MemoryVfs}'s and {@link LocalVfs}'s do, and as Linux's server assumes of ext4's or xfs's) resumes after
     * the cookie's entry, ignoring {@code cookieVerifier}, and fails only a cookie it never gave
     * ({@code NFS3ERR_BAD_COOKIE}). One whose cookies can move (positions in a list) should give a verifier that
     * changes with them and refuse a cookie sent with an older one ({@code NFS3ERR_BAD_COOKIE}); a verifier of 0
     * is the client's first call, never checked.
     *
     * @param maxEntries most entries to return (at least 1)
     */
    DirectoryPage readdir(FileHandle dir, long cookie, long cookieVerifier, int maxEntries) throws NfsException;

    /** Space and file counts of the file system holding {@code fh}. */
    FsStat fsstat(FileHandle fh) throws NfsException;

    /**
     * Largest file size supported: a WRITE ending beyond it, or a size attribute beyond it, is refused with
     * NFS3ERR_FBIG and changes nothing.
     */
    long maxFileSize();

    /** Makes data written unstable to {@code fh} durable ({@code count} 0: to the end of the file). */
    void commit(FileHandle fh, long offset, long count) throws NfsException;

    /** The write verifier: changes when unstable data may have been lost (e.g. after a restart). */
    long writeVerifier();

    /**
     * Whether every change to this VFS's files comes through the server (none is made beside it, as on a file system
     * other programs also write): only then may the server grant NFSv4 read delegations of its files, since it recalls
     * them before a change it makes and cannot before one made elsewhere. False by default.
     */
    default boolean changedOnlyThroughServer() {
        return false;
    }

    /**
     * Whether the objects this VFS makes can be given any owner (the uid and gid of a CREATE's attributes): the server
     * then makes a caller that is not root the owner of what it creates, as Linux's server does. False by default:
     * objects belong to the VFS's own user.
     */
    default boolean givesOwnership() {
        return false;
    }

    /**
     * Where the next data ({@code data} true) or the next hole begins at or after {@code offset}, as lseek(2)'s
     * SEEK_DATA and SEEK_HOLE answer (NFSv4.2's SEEK). The end of the file counts as a hole. An offset at or beyond
     * the end of the file, and a SEEK_DATA in the hole that ends the file, are {@code NFS3ERR_NXIO} (lseek's ENXIO).
     * The default knows no holes: every byte of a file is data.
     */
    default long seek(FileHandle fh, long offset, boolean data) throws NfsException {
        FileAttributes a = getattr(fh);
        if (a.isDirectory()) {
            throw new NfsException(Nfs3Status.NFS3ERR_ISDIR, "is a directory");
        }
        if (offset < 0 || offset >= a.size()) {
            throw new NfsException(Nfs3Status.NFS3ERR_NXIO, "offset " + offset + " at or beyond the end, " + a.size());
        }
        return data ? offset : a.size();
    }

    /**
     * Gives the file storage for {@code length} bytes from {@code offset} (NFSv4.2's ALLOCATE, as fallocate(2) with
     * mode 0): holes in the range become zeros that later writes cannot fail to store for lack of space, and a file
     * shorter than {@code offset + length} grows to it. {@code NFS3ERR_NOSPC} when the storage is not there,
     * {@code NFS3ERR_FBIG} beyond {@link #maxFileSize()}; nothing changes then. The default is
     * {@code NFS3ERR_NOTSUPP}.
     */
    default void allocate(FileHandle fh, long offset, long length) throws NfsException {
        throw new NfsException(Nfs3Status.NFS3ERR_NOTSUPP, "this file system does not reserve space");
    }

    /**
     * Makes {@code length} bytes from {@code offset} a hole (NFSv4.2's DEALLOCATE, as fallocate(2)'s punch hole with
     * the size kept): they read as zeros from now on, and their storage is freed where whole blocks are; the size does
     * not change, and the part of the range beyond the end of the file is ignored. The default is
     * {@code NFS3ERR_NOTSUPP}.
     */
    default void deallocate(FileHandle fh, long offset, long length) throws NfsException {
        throw new NfsException(Nfs3Status.NFS3ERR_NOTSUPP, "this file system does not punch holes");
    }

    /**
     * Makes {@code count} bytes of {@code dst} from {@code dstOffset} share the storage of {@code src}'s from
     * {@code srcOffset} (NFSv4.2's CLONE, as the FICLONERANGE ioctl): all of them or none, the destination growing as
     * a write would. A {@code count} of 0 reaches the source's end; a range that passes the source's end (but for
     * one of length 0 at the very end, which clones nothing) and overlapping ranges of one file are
     * {@code NFS3ERR_INVAL}, as are ranges the file system cannot share (Linux's want whole blocks). The default is
     * {@code NFS3ERR_NOTSUPP}: a file system that cannot share storage says so rather than copy.
     */
    default void clone(FileHandle src, long srcOffset, FileHandle dst, long dstOffset, long count)
            throws NfsException {
        throw new NfsException(Nfs3Status.NFS3ERR_NOTSUPP, "this file system does not share storage between files");
    }

    /**
     * Copies bytes of {@code src} from {@code srcOffset} to {@code dst} at {@code dstOffset} (NFSv4.2's COPY within
     * one server), at most {@code count} and at most what {@code src} holds from {@code srcOffset}; a source offset at
     * or beyond its end copies nothing. Overlapping ranges of one file are {@code NFS3ERR_INVAL}. The destination
     * grows as a write would grow it, under the same limits. When it returns, the bytes copied are as durable as
     * after a FILE_SYNC write (a server answers COPY with FILE_SYNC). The default reads and writes through this VFS in
     * pieces of 1 MiB, UNSTABLE, and commits the destination's range once at the end.
     *
     * @return the bytes copied
     */
    default long copy(FileHandle src, long srcOffset, FileHandle dst, long dstOffset, long count)
            throws NfsException {
        long n = CopyRanges.copied(src, srcOffset, getattr(src).size(), dst, dstOffset, count, maxFileSize());
        ByteBuffer piece = ByteBuffer.allocate((int) Math.min(n, 1 << 20));
        long done = 0;
        while (done < n) {
            piece.clear().limit((int) Math.min(piece.capacity(), n - done));
            ReadResult r = read(src, srcOffset + done, piece);
            if (r.count() == 0) {
                break; // the source shrank meanwhile
            }
            piece.flip();
            WriteResult w = write(dst, dstOffset + done, piece, StableHow.UNSTABLE);
            done += w.count();
            if (w.count() < r.count()) {
                break;
            }
        }
        if (done > 0) {
            commit(dst, dstOffset, done);
        }
        return done;
    }

    @Override
    default void close() {
    }
}
