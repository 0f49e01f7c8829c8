package org.rpcrdma4j.nfs.vfs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.FileTime;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.DirEntry;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.FileType;
import org.rpcrdma4j.nfs.FsStat;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.NfsObject;
import org.rpcrdma4j.nfs.NfsTime;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.vfs.LocalHandleIndex.FileKey;

/**
 * A {@link Vfs} over a local directory (Linux/Unix: it needs the JDK's {@code unix} attribute view).
 * <p>
 * <b>File handles</b> are 34 bytes: {@code 'L'}, a version byte, the file's device and inode numbers, a generation
 * ({@link LocalGenerations}), and the first 8 bytes of an HMAC-SHA256 over them (handles of version 1, 26 bytes without
 * the generation, are still taken, as generation 0). A client's handles of a file stay valid while it exists, across
 * restarts of the server on the same directory too. The HMAC key is given, or derived
 * from the root directory's own device and inode (stable, but then not secret: the HMAC only detects damaged handles;
 * confinement never rests on it). The JDK cannot open by inode: handles are mapped back to paths through a
 * {@link LocalHandleIndex} filled by every lookup and rebuilt by one walk of the tree after a restart. A handle whose
 * identity is no longer in the tree is {@code NFS3ERR_STALE}. Once a walk has read the whole tree, a handle of a
 * file it never saw (made up, or removed through the server) is stale without walking again; a handle of a file moved
 * or removed on the server itself needs a walk (two, to be found gone), and one too soon after the last is
 * {@code NFS3ERR_JUKEBOX} (the client asks again later). The JDK does not expose inode generation numbers: a
 * handle of a file removed through the server is stale even when the file system gives its inode number to a new file,
 * but one of a file removed on the server itself, or before a restart, names the new file ({@link LocalGenerations}).
 * <p>
 * <b>Hard links</b> ({@link #link}) keep one handle for every name of a file, as the identity is the file's. The index
 * remembers the names it has seen of each file (made by LINK, listed, looked up or walked), so when the name a
 * handle's path went through is removed while another remains, the handle goes on working through the other
 * without a walk (a name made on the server itself is found by one); either name is found by a fresh LOOKUP. Every
 * such path is checked as any other (the file's identity, no symbolic link above it) before it is used.
 * <p>
 * <b>Confinement.</b> Paths are built only from the root downwards from checked names ({@link VfsNames}: one
 * component, never "." or ".." except in LOOKUP, where ".." at the root is the root); symbolic links are never
 * followed (every call uses {@code NOFOLLOW_LINKS}, reads and writes open with {@code O_NOFOLLOW}); before a directory
 * is used its real path must equal the path the index gave, and the parent of every object a handle names must be
 * its own real path, so a directory (or any directory above an object) swapped for a symbolic link is refused
 * ({@code NFS3ERR_STALE}). The JDK offers no {@code openat}/{@code O_BENEATH}, so a check and the use of its path are
 * two steps. Clients cannot come between them: a path is checked and used (opened, its attributes read or changed)
 * under a shared hold, and REMOVE, RMDIR and RENAME, the only calls that can turn a checked directory into something
 * else, take that hold exclusively. Reads and writes keep it only while opening the file, not for the I/O. What is
 * not caught is a swap made on the server's own file system, by someone with access to it, between a check and its
 * use.
 * <p>
 * <b>Attributes.</b> A mode is set whole, as chmod(2) sets it: setuid, setgid and sticky with the permission bits
 * (the kernel drops setgid where the server's user may not set it, as for any chmod), and GETATTR reports all twelve.
 * A file owned by the server's user opens for WRITE (and a truncating SETATTR) without an owner-write bit, as Linux's
 * server lets a file's owner through: a client that created a file with mode 0444 can write to it (only a server not
 * running as root needs it; {@link OwnerOverride} says what it cannot let through).
 * <p>
 * <b>Names</b> go between NFS's UTF-8 strings and the file system's bytes through the JVM's file name encoding (its
 * locale's): one that does not convert both ways is left out of listings and is not found or cannot be made
 * ({@link LocalNames}); start the JVM in a UTF-8 locale.
 * <p>
 * <b>Durability.</b> UNSTABLE writes go to the page cache; DATA_SYNC and FILE_SYNC writes and COMMIT force the file
 * ({@link FileChannel#force}). CREATE, MKDIR, SYMLINK, LINK, REMOVE, RMDIR and RENAME force the directories they change
 * (and a new file or directory, or a linked regular file, itself) before they return, as NFS requires of every call but
 * an UNSTABLE WRITE, after they let go of their paths; where the file system refuses that (no read permission on a
 * directory, no fsync of directories), its own writeback has to do, and the call, whose change is made, does not fail
 * for it. The write verifier is drawn at random when the instance is made, so it changes when a server restarts on the
 * same directory.
 */
public final class LocalVfs implements Vfs {
    private static final byte MAGIC = 'L';
    private static final byte VERSION = 2;
    private static final int HANDLE_SIZE = 34;
    /** Version 1: no generation. */
    private static final byte VERSION_1 = 1;
    private static final int HANDLE_1_SIZE = 26;
    private static final int MAC_BYTES = 8;
    /** The largest READDIR cookie a name can have ({@link #nameCookie}). */
    static final long MAX_COOKIE = 3 + (-1L >>> 2);

    private final Path root;
    private final LocalHandleIndex index;
    private final LocalGenerations generations = new LocalGenerations();
    private final SecretKeySpec macKey;
    /** An HMAC-SHA256 with {@link #macKey} for each thread that makes or checks handles. */
    private final ThreadLocal<Mac> macs = ThreadLocal.withInitial(this::newMac);
    /** The root's handle (the root is never removed, so its generation stays 0). */
    private final FileHandle rootHandle;
    /** Changes when unstable data may have been lost: at start, and after a write or a sync failed. */
    private volatile long writeVerifier = new SecureRandom().nextLong();
    /** Shared while a path is checked and used; exclusive for the calls that remove or move names (class comment). */
    private final ReentrantReadWriteLock names = new ReentrantReadWriteLock();
    /**
     * By file (its identity, in stripes, so that every handle of a file finds the same lock): shared by the calls that
     * write its data, exclusive for a change of its size. A file is made longer by writing its new last byte, which
     * must not land on a WRITE's byte there.
     */
    private final ReentrantReadWriteLock[] sizes = new ReentrantReadWriteLock[64];
    /** Opens files for I/O and sets modes, letting a file's owner through (tests put in a user's kernel checks). */
    volatile OwnerOverride files = OwnerOverride.ofProcess();
    /** Runs once after the next check of a handle's path, before that path is used (tests). */
    volatile Runnable afterCheck;
    /** Directories and new objects forced to disk by the calls that change names (tests). */
    private final java.util.concurrent.atomic.AtomicLong metadataSyncs = new java.util.concurrent.atomic.AtomicLong();

    private LocalVfs(Path root, byte[] handleKey) throws IOException {
        this.root = root;
        FileKey rootKey = LocalHandleIndex.keyOf(root);
        this.index = new LocalHandleIndex(root, rootKey);
        byte[] key = handleKey;
        if (key == null) {
            try {
                MessageDigest sha = MessageDigest.getInstance("SHA-256");
                sha.update(("rpcrdma4j local export " + rootKey.dev() + ":" + rootKey.ino()).getBytes());
                key = sha.digest();
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("SHA-256 is required", e);
            }
        }
        this.macKey = new SecretKeySpec(key.clone(), "HmacSHA256");
        this.rootHandle = handleOf(rootKey);
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = new ReentrantReadWriteLock();
        }
    }

    private ReentrantReadWriteLock sizeLock(long dev, long ino) {
        long h = dev * 0x9E3779B97F4A7C15L ^ ino;
        int x = (int) (h ^ (h >>> 32));
        return sizes[(x ^ (x >>> 16)) & (sizes.length - 1)];
    }

    /** The size lock of a handle's file; the handle was checked ({@link #keyOf}) when its file was opened. */
    private ReentrantReadWriteLock sizeLock(FileHandle checked) {
        byte[] b = checked.unsafeBytes(); // both handle versions: dev at 2, ino at 10
        return sizeLock(getLong(b, 2), getLong(b, 10));
    }

    /** Exports {@code directory}; handles are keyed by the directory's identity (see the class comment). */
    public static LocalVfs open(Path directory) throws IOException {
        return open(directory, null);
    }

    /**
     * Exports {@code directory} with a secret handle key: clients cannot forge handles without it. The same key must
     * be given after a restart for old handles to stay valid.
     */
    public static LocalVfs open(Path directory, byte[] handleKey) throws IOException {
        Path real = directory.toRealPath();
        if (!Files.isDirectory(real, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException("not a directory: " + directory);
        }
        if (!real.getFileSystem().supportedFileAttributeViews().contains("unix")) {
            throw new IOException("the local file system does not offer unix attributes");
        }
        return new LocalVfs(real, handleKey);
    }

    /** The exported directory (its real path). */
    public Path directory() {
        return root;
    }

    // ---- handles ----

    private FileHandle handleOf(FileKey key) {
        byte[] b = new byte[HANDLE_SIZE];
        b[0] = MAGIC;
        b[1] = VERSION;
        putLong(b, 2, key.dev());
        putLong(b, 10, key.ino());
        putLong(b, 18, generations.of(key));
        System.arraycopy(mac(b, HANDLE_SIZE - MAC_BYTES), 0, b, HANDLE_SIZE - MAC_BYTES, MAC_BYTES);
        return FileHandle.wrap(b);
    }

    private byte[] mac(byte[] handle, int length) {
        Mac mac = macs.get();
        mac.update(handle, 0, length);
        return mac.doFinal(); // and ready for the next
    }

    private Mac newMac() {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(macKey);
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is required", e);
        }
    }

    /** The identity a handle names; stale when that identity was removed through the server since it was made. */
    private FileKey keyOf(FileHandle fh) throws NfsException {
        byte[] b = fh.unsafeBytes();
        int size = b.length == HANDLE_SIZE && b[1] == VERSION ? HANDLE_SIZE
                : b.length == HANDLE_1_SIZE && b[1] == VERSION_1 ? HANDLE_1_SIZE : -1;
        if (size < 0 || b[0] != MAGIC) {
            throw new NfsException(Nfs3Status.NFS3ERR_BADHANDLE, "not a handle of this export");
        }
        int signed = size - MAC_BYTES;
        if (!MessageDigest.isEqual(java.util.Arrays.copyOfRange(mac(b, signed), 0, MAC_BYTES),
                java.util.Arrays.copyOfRange(b, signed, size))) {
            throw new NfsException(Nfs3Status.NFS3ERR_BADHANDLE, "handle fails its integrity check");
        }
        FileKey key = new FileKey(getLong(b, 2), getLong(b, 10));
        if (!generations.current(key, size == HANDLE_SIZE ? getLong(b, 18) : 0)) {
            throw new NfsException(Nfs3Status.NFS3ERR_STALE, "its file was removed through the server");
        }
        return key;
    }

    /**
     * The path of a handle's object, verified to be that object and to be reached from the root without a symbolic
     * link in between (the last component is never followed by any use of the path).
     */
    private Path path(FileHandle fh) throws NfsException {
        FileKey key = keyOf(fh);
        Path p = index.locate(key, c -> key.equals(LocalHandleIndex.keyOrNull(c)) && reachedDirectly(c));
        if (p == null) {
            p = index.rebuild(key);
            if (p == null || !reachedDirectly(p)) {
                throw new NfsException(Nfs3Status.NFS3ERR_STALE, "no longer in the export");
            }
        }
        Runnable hook = afterCheck;
        if (hook != null) {
            afterCheck = null;
            hook.run();
        }
        return p;
    }

    /** How many names (hard links) the object at {@code p} has. */
    private static int links(Path p) throws IOException {
        return (Integer) Files.getAttribute(p, "unix:nlink", LinkOption.NOFOLLOW_LINKS);
    }

    /** What a call does with the paths it checks: runs under the hold of its paths. */
    private interface PathUse<T> {
        T run() throws IOException, NfsException;
    }

    /** A call that changes names: a {@link PathUse} that adds what it changed to {@code sync}. */
    private interface NameChange<T> {
        T run(MetadataSync sync) throws IOException, NfsException;
    }

    /**
     * Runs {@code use} under {@code hold} (the shared hold, or the exclusive one): a path checked under it stays what
     * it was until it is released. An I/O error is the NFS status for {@code what}.
     */
    private static <T> T under(Lock hold, String what, PathUse<T> use) throws NfsException {
        hold.lock();
        try {
            return use.run();
        } catch (IOException e) {
            throw IoErrors.map(e, what);
        } finally {
            hold.unlock();
        }
    }

    /** {@link #under} the shared hold. */
    private <T> T using(String what, PathUse<T> use) throws NfsException {
        return under(names.readLock(), what, use);
    }

    /**
     * Runs {@code change} under the shared hold, or the exclusive one for calls that remove or move names, then
     * forces what it changed to disk once the hold is let go (an fsync holds up no other call).
     */
    private <T> T changeNames(boolean exclusive, String what, NameChange<T> change) throws NfsException {
        try (MetadataSync sync = new MetadataSync(metadataSyncs)) {
            T result = under(exclusive ? names.writeLock() : names.readLock(), what, () -> change.run(sync));
            sync.force();
            return result;
        }
    }

    long metadataSyncs() {
        return metadataSyncs.get();
    }

    /** Walks of the export the handle index made (tests). */
    long walks() {
        return index.walks();
    }

    /** Whether no component of {@code p} but the last is a symbolic link (its parent is its own real path). */
    private boolean reachedDirectly(Path p) {
        if (p.equals(root)) {
            return true;
        }
        try {
            Path parent = p.getParent();
            return parent.toRealPath().equals(parent);
        } catch (IOException e) {
            return false;
        }
    }

    /** The path of a directory handle, checked to be a directory reached without symbolic links. */
    private Path dirPath(FileHandle fh) throws NfsException {
        Path p = path(fh);
        if (!Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
            throw new NfsException(Nfs3Status.NFS3ERR_NOTDIR, "not a directory");
        }
        try {
            if (!p.toRealPath().equals(p)) {
                throw new NfsException(Nfs3Status.NFS3ERR_STALE, "directory moved behind a symbolic link");
            }
        } catch (IOException e) {
            throw IoErrors.map(e, "directory");
        }
        return p;
    }

    private static void putLong(byte[] b, int at, long v) {
        for (int i = 7; i >= 0; i--) {
            b[at + i] = (byte) v;
            v >>>= 8;
        }
    }

    private static long getLong(byte[] b, int at) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (b[at + i] & 0xFF);
        }
        return v;
    }

    // ---- attributes ----

    /**
     * The attributes {@link #attributes} reads: named, not {@code unix:*}, which also looks the owner and group up by
     * name (the system's user and group databases, for every file) for nothing.
     */
    private static final String ATTRIBUTES = "unix:mode,nlink,uid,gid,size,rdev,dev,ino,lastAccessTime,"
            + "lastModifiedTime,ctime";

    private static FileAttributes attributes(Path p) throws IOException {
        Map<String, Object> a = Files.readAttributes(p, ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
        int mode = (Integer) a.get("mode");
        FileType type = switch (mode & 0170000) {
            case 0040000 -> FileType.DIRECTORY;
            case 0120000 -> FileType.SYMLINK;
            case 0060000 -> FileType.BLOCK_DEVICE;
            case 0020000 -> FileType.CHAR_DEVICE;
            case 0010000 -> FileType.FIFO;
            case 0140000 -> FileType.SOCKET;
            default -> FileType.REGULAR;
        };
        long size = (Long) a.get("size");
        long rdev = (Long) a.get("rdev");
        int major = (int) (((rdev >>> 8) & 0xfff) | ((rdev >>> 32) & ~0xfffL));
        int minor = (int) ((rdev & 0xff) | ((rdev >>> 12) & ~0xffL));
        return new FileAttributes(type, mode & 07777, (Integer) a.get("nlink"), (Integer) a.get("uid"),
                (Integer) a.get("gid"), size, (size + 4095) & ~4095L, major, minor, (Long) a.get("dev"),
                (Long) a.get("ino"), time((FileTime) a.get("lastAccessTime")),
                time((FileTime) a.get("lastModifiedTime")), time((FileTime) a.get("ctime")));
    }

    private static NfsTime time(FileTime t) {
        return NfsTime.of(t.toInstant());
    }

    private NfsObject record(Path child, FileKey parent, String name) throws IOException {
        FileAttributes a = attributes(child);
        FileKey key = new FileKey(a.fsid(), a.fileid());
        index.record(key, parent, name);
        return new NfsObject(handleOf(key), a);
    }

    private void apply(Path p, FileAttributes current, SetAttributes s) throws IOException {
        if (s == null || s.isEmpty()) {
            return;
        }
        if (s.size() != null) {
            if (current.type() == FileType.DIRECTORY) {
                throw new NfsException(Nfs3Status.NFS3ERR_ISDIR, "cannot set the size of a directory");
            }
            if (current.type() != FileType.REGULAR) {
                throw new NfsException(Nfs3Status.NFS3ERR_INVAL, "size of a " + current.type());
            }
            if (s.size() < 0) {
                throw new NfsException(Nfs3Status.NFS3ERR_FBIG, "size beyond 2^63");
            }
            Lock exclusive = sizeLock(current.fsid(), current.fileid()).writeLock();
            exclusive.lock();
            try (FileChannel ch = files.open(p, StandardOpenOption.WRITE)) {
                long size = s.size();
                if (size < ch.size()) {
                    ch.truncate(size);
                } else if (size > ch.size()) {
                    ch.write(ByteBuffer.allocate(1), size - 1);
                }
                try {
                    // stable when it returns, as NFS's calls but an UNSTABLE WRITE are: a truncation must not come
                    // undone, nor the old bytes come back, after a crash
                    ch.force(true);
                } catch (IOException e) {
                    dataMayBeLost(); // the kernel's one report of lost writeback of the file's unstable writes
                    throw e;
                }
            } finally {
                exclusive.unlock();
            }
        }
        // the owner first: a change of owner clears setuid and setgid, which a mode set with it then keeps
        if (s.uid() != null) {
            Files.setAttribute(p, "unix:uid", s.uid(), LinkOption.NOFOLLOW_LINKS);
        }
        if (s.gid() != null) {
            Files.setAttribute(p, "unix:gid", s.gid(), LinkOption.NOFOLLOW_LINKS);
        }
        boolean special = current.type().isSpecial(); // never opened: a FIFO's open would block
        if (s.mode() != null && current.type() != FileType.SYMLINK) {
            // the whole mode (chmod(2)): setuid, setgid and sticky with the permission bits
            if (special) {
                SpecialFiles.setMode(p, s.mode());
            } else {
                files.setMode(p, s.mode());
            }
        }
        if (s.atime() != null || s.mtime() != null) {
            FileTime now = FileTime.from(java.time.Instant.now());
            FileTime atime = s.atime() == null ? null
                    : s.atime().isServerTime() ? now : FileTime.from(s.atime().time().toInstant());
            FileTime mtime = s.mtime() == null ? null
                    : s.mtime().isServerTime() ? now : FileTime.from(s.mtime().time().toInstant());
            if (special) {
                SpecialFiles.setTimes(p, atime, mtime);
            } else {
                Files.getFileAttributeView(p, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                        .setTimes(mtime, atime, null);
            }
        }
    }

    // ---- Vfs ----

    @Override
    public FileHandle root() {
        return rootHandle;
    }

    @Override
    public FileAttributes getattr(FileHandle fh) throws NfsException {
        return using("getattr", () -> attributes(path(fh)));
    }

    @Override
    public FileAttributes setattr(FileHandle fh, SetAttributes attributes, NfsTime guardCtime) throws NfsException {
        return using("setattr", () -> {
            Path p = path(fh);
            FileAttributes current = attributes(p);
            if (guardCtime != null && !guardCtime.equals(current.ctime())) {
                throw new NfsException(Nfs3Status.NFS3ERR_NOT_SYNC, "ctime guard does not match");
            }
            apply(p, current, attributes);
            if (!current.type().isSpecial() && current.type() != FileType.SYMLINK
                    && (attributes.mode() != null || attributes.uid() != null || attributes.gid() != null
                    || attributes.atime() != null || attributes.mtime() != null)) {
                // the inode's new owner, mode or times to disk before the reply (best effort, as for directories)
                try (MetadataSync sync = new MetadataSync(metadataSyncs)) {
                    sync.add(p);
                    sync.force();
                }
            }
            return attributes(p);
        });
    }

    @Override
    public NfsObject lookup(FileHandle dirFh, String name) throws NfsException {
        return using(name, () -> {
            Path dir = dirPath(dirFh);
            VfsNames.checkLookup(name);
            if (".".equals(name)) {
                return new NfsObject(dirFh, attributes(dir));
            }
            if ("..".equals(name)) {
                Path parent = dir.equals(root) ? root : dir.getParent();
                FileKey key = LocalHandleIndex.keyOf(parent);
                return new NfsObject(handleOf(key), attributes(parent));
            }
            return record(LocalNames.child(dir, name, Nfs3Status.NFS3ERR_NOENT), LocalHandleIndex.keyOf(dir), name);
        });
    }

    @Override
    public String readlink(FileHandle fh) throws NfsException {
        return using("readlink", () -> {
            Path p = path(fh);
            if (!Files.isSymbolicLink(p)) {
                throw new NfsException(Nfs3Status.NFS3ERR_INVAL, "not a symbolic link");
            }
            return Files.readSymbolicLink(p).toString();
        });
    }

    private Path regularFile(FileHandle fh) throws NfsException {
        Path p = path(fh);
        if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
            throw new NfsException(Nfs3Status.NFS3ERR_ISDIR, "is a directory");
        }
        if (!Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
            throw new NfsException(Nfs3Status.NFS3ERR_INVAL, "not a regular file");
        }
        return p;
    }

    /**
     * Opens the regular file a handle names, under the shared hold (released before the caller's I/O: the open file
     * stays the one that was checked whatever happens to its names).
     */
    private FileChannel open(FileHandle fh, StandardOpenOption mode, String what) throws NfsException {
        return using(what, () -> files.open(regularFile(fh), mode));
    }

    @Override
    public ReadResult read(FileHandle fh, long offset, ByteBuffer dst) throws NfsException {
        if (offset < 0) {
            throw new NfsException(Nfs3Status.NFS3ERR_INVAL, "offset beyond 2^63");
        }
        try (FileChannel ch = open(fh, StandardOpenOption.READ, "read")) {
            int count = 0;
            while (dst.hasRemaining()) {
                int n = ch.read(dst, offset + count);
                if (n < 0) {
                    break;
                }
                count += n;
            }
            return new ReadResult(count, offset + count >= ch.size());
        } catch (IOException e) {
            throw IoErrors.map(e, "read");
        }
    }

    @Override
    public WriteResult write(FileHandle fh, long offset, ByteBuffer src, StableHow stable) throws NfsException {
        int count = src.remaining();
        if (offset < 0 || offset + count < 0) {
            throw new NfsException(Nfs3Status.NFS3ERR_FBIG, "beyond the largest file size");
        }
        FileChannel channel = open(fh, StandardOpenOption.WRITE, "write"); // a refusal here loses no data
        try (FileChannel ch = channel) {
            Lock size = sizeLock(fh).readLock();
            size.lock();
            try {
                long pos = offset;
                while (src.hasRemaining()) {
                    pos += ch.write(src, pos);
                }
            } finally {
                size.unlock();
            }
            if (stable != StableHow.UNSTABLE) {
                ch.force(stable == StableHow.FILE_SYNC);
            }
            return new WriteResult(count, stable);
        } catch (IOException e) {
            dataMayBeLost();
            throw IoErrors.map(e, "write");
        }
    }

    /**
     * Copies in the kernel ({@link FileChannel#transferTo}: copy_file_range or sendfile on Linux), the bytes never
     * passing through this process, and forces the destination to disk before it returns.
     */
    @Override
    public long copy(FileHandle src, long srcOffset, FileHandle dst, long dstOffset, long count) throws NfsException {
        try (FileChannel in = open(src, StandardOpenOption.READ, "copy");
             FileChannel out = open(dst, StandardOpenOption.WRITE, "copy")) {
            long n = CopyRanges.copied(src, srcOffset, in.size(), dst, dstOffset, count, maxFileSize());
            long done = 0;
            Lock size = sizeLock(dst).readLock();
            size.lock();
            try {
                while (done < n) {
                    long moved = in.transferTo(srcOffset + done, n - done, out.position(dstOffset + done));
                    if (moved <= 0) {
                        break; // the source shrank meanwhile
                    }
                    done += moved;
                }
            } finally {
                size.unlock();
            }
            if (done > 0) {
                out.force(true);
            }
            return done;
        } catch (IOException e) {
            // a failed force may have been the kernel's report of lost writeback of the file's earlier unstable
            // writes, which it does not repeat to the COMMIT that comes for them
            dataMayBeLost();
            throw IoErrors.map(e, "copy");
        }
    }

    @Override
    public Created create(FileHandle dirFh, String name, CreateMode mode, SetAttributes attributes, long verifier)
            throws NfsException {
        return changeNames(false, name, sync -> {
            Path dir = dirPath(dirFh);
            VfsNames.checkEntry(name, true);
            Path child = LocalNames.child(dir, name, Nfs3Status.NFS3ERR_INVAL);
            FileKey dirKey = LocalHandleIndex.keyOf(dir);
            if (Files.exists(child, LinkOption.NOFOLLOW_LINKS)) {
                return existing(child, dirKey, name, mode, verifier);
            }
            try {
                Files.createFile(child);
            } catch (FileAlreadyExistsException madeMeanwhile) {
                // another call made it since the look: as for a file that was there
                return existing(child, dirKey, name, mode, verifier);
            }
            if (mode == CreateMode.EXCLUSIVE) {
                if (attributes != null && (attributes.uid() != null || attributes.gid() != null)) {
                    apply(child, attributes(child), new SetAttributes(null, attributes.uid(), attributes.gid(), null,
                            null, null));
                }
                // the verifier is kept in the times (as Linux does) until the client sets real ones
                Files.getFileAttributeView(child, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS).setTimes(
                        FileTime.fromMillis(verifierMtime(verifier) * 1000),
                        FileTime.fromMillis(verifierAtime(verifier) * 1000), null);
            } else {
                apply(child, attributes(child), attributes);
            }
            sync.add(child);
            sync.add(dir);
            return Created.made(record(child, dirKey, name));
        });
    }

    /**
     * The seconds of the access time that keep an EXCLUSIVE CREATE's verifier: its upper half, less its top bit (as
     * Linux's server keeps each half in 31 bits, so that a file system whose times end in 2038 keeps it whole).
     */
    static long verifierAtime(long verifier) {
        return (verifier >>> 32) & 0x7fffffffL;
    }

    /** The seconds of the modification time that keep the verifier's lower half, less its top bit. */
    static long verifierMtime(long verifier) {
        return verifier & 0x7fffffffL;
    }

    /**
     * CREATE of a name that is taken: UNCHECKED returns a regular file as it is (the server sets its size), EXCLUSIVE
     * matches a resend: the verifier in the times, and still empty (as Linux's server checks it).
     */
    private Created existing(Path child, FileKey dirKey, String name, CreateMode mode, long verifier)
            throws IOException {
        FileAttributes existing = attributes(child);
        if (mode == CreateMode.UNCHECKED && existing.isRegularFile()) {
            return Created.found(record(child, dirKey, name));
        }
        if (mode == CreateMode.EXCLUSIVE && existing.isRegularFile() && existing.size() == 0
                && existing.atime().seconds() == verifierAtime(verifier)
                && existing.mtime().seconds() == verifierMtime(verifier)) {
            return Created.found(record(child, dirKey, name));
        }
        throw new NfsException(mode == CreateMode.UNCHECKED && existing.isDirectory()
                ? Nfs3Status.NFS3ERR_ISDIR : Nfs3Status.NFS3ERR_EXIST, name);
    }

    @Override
    public NfsObject mkdir(FileHandle dirFh, String name, SetAttributes attributes) throws NfsException {
        return changeNames(false, name, sync -> {
            Path dir = dirPath(dirFh);
            VfsNames.checkEntry(name, true);
            Path child = LocalNames.child(dir, name, Nfs3Status.NFS3ERR_INVAL);
            Files.createDirectory(child);
            if (attributes != null) {
                apply(child, attributes(child), new SetAttributes(attributes.mode(), attributes.uid(),
                        attributes.gid(), null, attributes.atime(), attributes.mtime()));
            }
            sync.add(child);
            sync.add(dir);
            return record(child, LocalHandleIndex.keyOf(dir), name);
        });
    }

    @Override
    public NfsObject symlink(FileHandle dirFh, String name, String target, SetAttributes attributes)
            throws NfsException {
        return changeNames(false, name, sync -> {
            Path dir = dirPath(dirFh);
            VfsNames.checkEntry(name, true);
            VfsNames.checkLinkTarget(target);
            Path child = LocalNames.child(dir, name, Nfs3Status.NFS3ERR_INVAL);
            try {
                Files.createSymbolicLink(child, child.getFileSystem().getPath(target));
            } catch (java.nio.file.InvalidPathException e) {
                throw new NfsException(Nfs3Status.NFS3ERR_INVAL, "symbolic link contents", e);
            }
            if (attributes != null && (attributes.uid() != null || attributes.gid() != null)) {
                // the link itself (lchown): a symbolic link has no mode of its own to set
                apply(child, attributes(child), new SetAttributes(null, attributes.uid(), attributes.gid(), null,
                        null, null));
            }
            sync.add(dir);
            return record(child, LocalHandleIndex.keyOf(dir), name);
        });
    }

    /**
     * Makes a FIFO, socket or device through {@link SpecialFiles} (the JDK cannot): devices need the server to run as
     * root, as mknod(2) does ({@code NFS3ERR_PERM} otherwise).
     */
    @Override
    public NfsObject mknod(FileHandle dirFh, String name, FileType type, int major, int minor,
                           SetAttributes attributes) throws NfsException {
        VfsNames.checkSpecialType(type);
        return changeNames(false, name, sync -> {
            Path dir = dirPath(dirFh);
            VfsNames.checkEntry(name, true);
            Path child = LocalNames.child(dir, name, Nfs3Status.NFS3ERR_INVAL);
            if (Files.exists(child, LinkOption.NOFOLLOW_LINKS)) {
                throw new FileAlreadyExistsException(child.toString());
            }
            SpecialFiles.make(child, type, major, minor, attributes == null ? null : attributes.mode());
            if (attributes != null) {
                apply(child, attributes(child), new SetAttributes(null, attributes.uid(), attributes.gid(), null,
                        attributes.atime(), attributes.mtime()));
            }
            sync.add(dir);
            return record(child, LocalHandleIndex.keyOf(dir), name);
        });
    }

    @Override
    public void remove(FileHandle dirFh, String name) throws NfsException {
        unlink(dirFh, name, false);
    }

    @Override
    public void rmdir(FileHandle dirFh, String name) throws NfsException {
        unlink(dirFh, name, true);
    }

    private void unlink(FileHandle dirFh, String name, boolean directory) throws NfsException {
        changeNames(true, name, sync -> {
            Path dir = dirPath(dirFh);
            VfsNames.checkEntry(name, false);
            Path child = LocalNames.child(dir, name, Nfs3Status.NFS3ERR_NOENT);
            FileKey key = LocalHandleIndex.keyOf(child);
            boolean isDirectory = Files.isDirectory(child, LinkOption.NOFOLLOW_LINKS);
            if (isDirectory != directory) {
                throw new NfsException(directory ? Nfs3Status.NFS3ERR_NOTDIR : Nfs3Status.NFS3ERR_ISDIR, name);
            }
            boolean lastName = isDirectory || links(child) <= 1;
            Files.delete(child);
            nameRemoved(key, LocalHandleIndex.keyOf(dir), name, lastName);
            sync.add(dir);
            return null;
        });
    }

    /**
     * The name {@code name} in {@code parent} of {@code key}'s file is gone: the handle index forgets it, and when it
     * was the file's {@code last} name the file's handles made until now are stale ({@link LocalGenerations}).
     */
    private void nameRemoved(FileKey key, FileKey parent, String name, boolean last) {
        index.forget(key, parent, name, last);
        if (last) {
            generations.removed(key);
        }
    }

    @Override
    public void rename(FileHandle fromFh, String fromName, FileHandle toFh, String toName) throws NfsException {
        changeNames(true, fromName + " -> " + toName, sync -> {
            Path from = dirPath(fromFh);
            Path to = dirPath(toFh);
            VfsNames.checkEntry(fromName, false);
            VfsNames.checkEntry(toName, true);
            Path src = LocalNames.child(from, fromName, Nfs3Status.NFS3ERR_NOENT);
            Path dst = LocalNames.child(to, toName, Nfs3Status.NFS3ERR_INVAL);
            FileKey key = LocalHandleIndex.keyOf(src);
            FileKey replaced = LocalHandleIndex.keyOrNull(dst);
            boolean replacedLastName = replaced != null
                    && (Files.isDirectory(dst, LinkOption.NOFOLLOW_LINKS) || links(dst) <= 1);
            Files.move(src, dst, StandardCopyOption.ATOMIC_MOVE);
            FileKey toKey = LocalHandleIndex.keyOf(to);
            if (key.equals(replaced)) {
                // two names of one file: rename(2) leaves both as they are
                index.record(key, toKey, toName);
            } else {
                if (replaced != null) {
                    nameRemoved(replaced, toKey, toName, replacedLastName);
                }
                index.renamed(key, LocalHandleIndex.keyOf(from), fromName, toKey, toName);
            }
            sync.add(to);
            if (!from.equals(to)) {
                sync.add(from);
            }
            return null;
        });
    }

    /**
     * A hard link ({@link Files#createLink}, link(2), which does not follow a symbolic link it is given): the new
     * name joins the handle index's names of the file, so its handles keep working through either name whichever is
     * removed. A file on another file system than {@code dir} (one mounted within the export) is
     * {@code NFS3ERR_XDEV}, as link(2)'s EXDEV.
     */
    @Override
    public void link(FileHandle fileFh, FileHandle dirFh, String name) throws NfsException {
        changeNames(false, name, sync -> {
            Path dir = dirPath(dirFh);
            Path file = path(fileFh);
            if (Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) {
                throw new NfsException(Nfs3Status.NFS3ERR_ISDIR, "a directory has one name only");
            }
            VfsNames.checkEntry(name, true);
            Path child = LocalNames.child(dir, name, Nfs3Status.NFS3ERR_INVAL);
            Files.createLink(child, file);
            index.record(LocalHandleIndex.keyOf(child), LocalHandleIndex.keyOf(dir), name);
            if (Files.isRegularFile(child, LinkOption.NOFOLLOW_LINKS)) {
                sync.add(child); // its link count; a FIFO or device is not opened
            }
            sync.add(dir);
            return null;
        });
    }

    /**
     * 255, as Linux's server answers for most file systems: at least that many names are allowed where hard links
     * are; beyond the file system's own limit a LINK is {@code NFS3ERR_MLINK}.
     */
    @Override
    public int linkMax() {
        return 255;
    }

    @Override
    public DirectoryPage readdir(FileHandle dirFh, long cookie, long cookieVerifier, int maxEntries)
            throws NfsException {
        return using("readdir", () -> {
            Path dir = dirPath(dirFh);
            FileAttributes dirAttributes = attributes(dir);
            if (cookie < 0 || cookie > MAX_COOKIE) {
                throw new NfsException(Nfs3Status.NFS3ERR_BAD_COOKIE, "cookie " + cookie + " was never given");
            }
            // each name's cookie is a hash of it, and a listing goes in cookie order (as ext4's does): a listing
            // resumed from a cookie goes on after that name, whatever was created or removed meanwhile, so the
            // cookie verifier is not needed and one from before a change is as good as any
            java.util.TreeMap<Long, String> names = new java.util.TreeMap<>();
            try (DirectoryStream<Path> children = Files.newDirectoryStream(dir)) {
                for (Path c : children) {
                    String name = LocalNames.nameOf(c); // null: not one this VFS can serve (LocalNames)
                    if (name != null) {
                        names.merge(nameCookie(name), name, (x, y) -> x.compareTo(y) <= 0 ? x : y);
                    }
                }
            }
            FileKey dirKey = LocalHandleIndex.keyOf(dir);
            List<DirEntry> entries = new ArrayList<>();
            if (cookie == 0) {
                entries.add(new DirEntry(dirAttributes.fileid(), ".", 1, dirAttributes, dirFh));
            }
            if (cookie <= 1 && entries.size() < maxEntries) {
                Path parent = dir.equals(root) ? root : dir.getParent();
                FileAttributes pa = attributes(parent);
                entries.add(new DirEntry(pa.fileid(), "..", 2, pa,
                        handleOf(new FileKey(pa.fsid(), pa.fileid()))));
            }
            boolean more = false;
            for (java.util.Map.Entry<Long, String> e : names.tailMap(Math.max(cookie, 2), false).entrySet()) {
                if (entries.size() >= maxEntries) {
                    more = true;
                    break;
                }
                String name = e.getValue();
                try {
                    NfsObject o = record(dir.resolve(name), dirKey, name);
                    entries.add(new DirEntry(o.attributes().fileid(), name, e.getKey(), o.attributes(), o.handle()));
                } catch (IOException vanished) {
                    // removed while listing: leave it out
                }
            }
            // at the end when nothing is left after this page, "." and ".." included
            boolean eof = !more && (cookie >= 2 || entries.size() >= 2 - cookie);
            return new DirectoryPage(entries, eof, 0);
        });
    }

    /**
     * The READDIR cookie of {@code name}: 64-bit FNV-1a of its UTF-8 bytes, mixed, above the cookies of "." and ".."
     * (1 and 2) and below 2^62. Two names of one directory with the same cookie would list as one (the lesser).
     */
    static long nameCookie(String name) {
        long h = 0xcbf29ce484222325L;
        for (byte b : name.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        return 3 + (h >>> 2);
    }

    @Override
    public FsStat fsstat(FileHandle fh) throws NfsException {
        return using("fsstat", () -> {
            FileStore store = Files.getFileStore(path(fh));
            long unknownFiles = 0xFFFFFFFFL; // the JDK does not expose inode counts
            return new FsStat(store.getTotalSpace(), store.getUnallocatedSpace(), store.getUsableSpace(),
                    unknownFiles, unknownFiles, unknownFiles, 0);
        });
    }

    @Override
    public boolean givesOwnership() {
        return OwnerOverride.processUid() == 0; // only root gives files away
    }

    @Override
    public long maxFileSize() {
        return Long.MAX_VALUE;
    }

    @Override
    public void commit(FileHandle fh, long offset, long count) throws NfsException {
        FileChannel channel = open(fh, StandardOpenOption.READ, "commit"); // a refusal here loses no data
        try (FileChannel ch = channel) {
            ch.force(true);
        } catch (IOException e) {
            dataMayBeLost();
            throw IoErrors.map(e, "commit");
        }
    }

    @Override
    public long writeVerifier() {
        return writeVerifier;
    }

    /**
     * A write or a sync failed: unstable data of any client may be gone (the kernel reports a failed writeback to one
     * sync only), so every client must write again what it has not seen committed, as Linux's server does.
     */
    private void dataMayBeLost() {
        writeVerifier = new SecureRandom().nextLong();
    }
}
