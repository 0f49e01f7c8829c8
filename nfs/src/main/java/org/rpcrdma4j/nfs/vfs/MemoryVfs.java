package org.rpcrdma4j.nfs.vfs;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;
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

/**
 * A {@link Vfs} held in memory: for tests and demos. Everything lives as long as the instance; its handles
 * ({@code 'M'}, an 8-byte instance id, an 8-byte file id, an 8-byte check word) are {@code NFS3ERR_STALE} for any other instance, as after
 * a server restart. Writes are kept as asked for ({@code committed} echoes the request) and survive until the
 * instance is dropped, so COMMIT has nothing to do. Storage is capped ({@code NFS3ERR_NOSPC} beyond
 * {@code capacityBytes}). A file other than a directory may have up to {@link #MAX_LINKS} names ({@link #link}); its
 * handle stays good while it has one.
 * <p>
 * One read-write lock guards the whole tree: reads and attribute queries share it, every change takes it alone.
 */
public final class MemoryVfs implements Vfs {
    private static final byte MAGIC = 'M';
    private static final int HANDLE_SIZE = 25;
    private static final long FSID = 0x6d656d6673L;
    /** The most names a file may have, as on ext4. */
    public static final int MAX_LINKS = 65000;

    private final long capacityBytes;
    private final long instanceId;
    private final long writeVerifier;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final Map<Long, Node> nodes = new ConcurrentHashMap<>();
    private final Node root;
    private long nextFileid = 1;
    private long usedBytes;
    private final BlockMemory blockMemory;

    private static final class Node {
        final long fileid;
        final FileType type;
        int mode;
        int uid;
        int gid;
        int nlink = 1;
        NfsTime atime;
        NfsTime mtime;
        NfsTime ctime;
        Node parent;
        final DirectoryEntries<Node> children;
        final MemoryFileData data;
        String target;
        /** A device's numbers. */
        int major;
        int minor;
        /** Whether an EXCLUSIVE CREATE made it: only then does {@link #createVerifier} say anything. */
        boolean exclusive;
        long createVerifier;

        Node(long fileid, FileType type, int mode, Node parent, BlockMemory memory) {
            this.fileid = fileid;
            this.type = type;
            this.mode = mode;
            this.parent = parent;
            NfsTime now = NfsTime.now();
            atime = now;
            mtime = now;
            ctime = now;
            children = type == FileType.DIRECTORY ? new DirectoryEntries<>() : null;
            data = type == FileType.REGULAR ? new MemoryFileData(memory) : null;
            if (type == FileType.DIRECTORY) {
                nlink = 2;
            }
        }
    }

    /** A file system of at most {@code capacityBytes} of file data, kept in heap arrays. */
    public MemoryVfs(long capacityBytes) {
        this(capacityBytes, BlockMemory.HEAP);
    }

    /**
     * A file system of at most {@code capacityBytes} of file data, kept in {@code memory}'s blocks (borrowed; the
     * VFS gives a block back when no file and no reader uses it). With memory that {@linkplain BlockMemory#lends()
     * lends}, READs may take the file's bytes without a copy ({@link #lend}).
     */
    public MemoryVfs(long capacityBytes, BlockMemory memory) {
        if (capacityBytes <= 0) {
            throw new IllegalArgumentException("capacity must be positive: " + capacityBytes);
        }
        this.blockMemory = java.util.Objects.requireNonNull(memory, "memory");
        MemoryFileData.checkBlockSize(memory.blockSize());
        SecureRandom random = new SecureRandom();
        this.capacityBytes = capacityBytes;
        this.instanceId = random.nextLong();
        this.writeVerifier = random.nextLong();
        this.root = newNode(FileType.DIRECTORY, 0755, null);
        root.parent = root;
    }

    /** A file system of at most 1 GiB. */
    public MemoryVfs() {
        this(1L << 30);
    }

    private Node newNode(FileType type, int mode, Node parent) {
        Node n = new Node(nextFileid++, type, mode, parent, blockMemory);
        nodes.put(n.fileid, n);
        return n;
    }

    // ---- handles ----

    private FileHandle handleOf(Node n) {
        byte[] b = new byte[HANDLE_SIZE];
        b[0] = MAGIC;
        putLong(b, 1, instanceId);
        putLong(b, 9, n.fileid);
        putLong(b, 17, check(n.fileid));
        return FileHandle.wrap(b);
    }

    private Node node(FileHandle fh) throws NfsException {
        byte[] b = fh.unsafeBytes();
        if (b.length != HANDLE_SIZE || b[0] != MAGIC) {
            throw new NfsException(Nfs3Status.NFS3ERR_BADHANDLE, "not a handle of this file system");
        }
        if (getLong(b, 1) != instanceId) {
            throw new NfsException(Nfs3Status.NFS3ERR_STALE, "handle of an earlier instance");
        }
        if (getLong(b, 17) != check(getLong(b, 9))) {
            throw new NfsException(Nfs3Status.NFS3ERR_BADHANDLE, "handle fails its check");
        }
        Node n = nodes.get(getLong(b, 9));
        if (n == null) {
            throw new NfsException(Nfs3Status.NFS3ERR_STALE, "object no longer exists");
        }
        return n;
    }

    private Node dir(FileHandle fh) throws NfsException {
        Node n = node(fh);
        if (n.type != FileType.DIRECTORY) {
            throw new NfsException(Nfs3Status.NFS3ERR_NOTDIR, "not a directory");
        }
        return n;
    }

    /**
     * A check word over the instance and the file id (a bijective mix of their XOR), so that a damaged handle never
     * names another object: any change to either changes the expected word.
     */
    private long check(long fileid) {
        long z = instanceId ^ fileid;
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
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

    private FileAttributes attributes(Node n) {
        long size = switch (n.type) {
            case REGULAR -> n.data.size();
            case DIRECTORY -> 4096;
            case SYMLINK -> org.rpcrdma4j.nfs.xdr.Nfs3Xdr.utf8Length(n.target);
            default -> 0;
        };
        long used = n.type == FileType.REGULAR ? n.data.allocatedBytes() : size;
        return new FileAttributes(n.type, n.mode & 07777, n.nlink, n.uid, n.gid, size, used, n.major, n.minor, FSID,
                n.fileid, n.atime, n.mtime, n.ctime);
    }

    private NfsObject object(Node n) {
        return new NfsObject(handleOf(n), attributes(n));
    }

    /** Refuses a size attribute beyond {@link #maxFileSize()} with NFS3ERR_FBIG (nothing is changed). */
    private void checkSize(SetAttributes s) throws NfsException {
        if (s != null && s.size() != null && (s.size() < 0 || s.size() > maxFileSize())) {
            throw new NfsException(Nfs3Status.NFS3ERR_FBIG, "size beyond the largest file size");
        }
    }

    private void apply(Node n, SetAttributes s) throws NfsException {
        if (s == null || s.isEmpty()) {
            return;
        }
        NfsTime now = NfsTime.now();
        if (s.size() != null) {
            if (n.type == FileType.DIRECTORY) {
                throw new NfsException(Nfs3Status.NFS3ERR_ISDIR, "cannot set the size of a directory");
            }
            if (n.type != FileType.REGULAR) {
                throw new NfsException(Nfs3Status.NFS3ERR_INVAL, "size of a " + n.type);
            }
            checkSize(s);
            // a grown file reads zeros, and no storage is allocated for the hole; but growing drops blocks past the
            // old size that an ALLOCATE which failed part-way left, and those are counted too
            counted(n.data, () -> n.data.truncate(s.size()));
            n.mtime = now;
        }
        if (s.mode() != null) {
            n.mode = s.mode() & 07777;
        }
        if (s.uid() != null) {
            n.uid = s.uid();
        }
        if (s.gid() != null) {
            n.gid = s.gid();
        }
        if (s.atime() != null) {
            n.atime = s.atime().isServerTime() ? now : s.atime().time();
        }
        if (s.mtime() != null) {
            n.mtime = s.mtime().isServerTime() ? now : s.mtime().time();
        }
        n.ctime = now;
    }

    private static void touch(Node dir) {
        NfsTime now = NfsTime.now();
        dir.mtime = now;
        dir.ctime = now;
    }

    // ---- Vfs ----

    @Override
    public FileHandle root() {
        return handleOf(root);
    }

    @Override
    public FileAttributes getattr(FileHandle fh) throws NfsException {
        lock.readLock().lock();
        try {
            return attributes(node(fh));
        } finally {
            lock.readLock().unlock();
        }
    }

    @Override
    public FileAttributes setattr(FileHandle fh, SetAttributes attributes, NfsTime guardCtime) throws NfsException {
        lock.writeLock().lock();
        try {
            Node n = node(fh);
            if (guardCtime != null && !guardCtime.equals(n.ctime)) {
                throw new NfsException(Nfs3Status.NFS3ERR_NOT_SYNC, "ctime guard does not match");
            }
            apply(n, attributes);
            return attributes(n);
        } finally {
            lock.writeLock().unlock();
        }
    }

    @Override
    public NfsObject lookup(FileHandle dirFh, String name) throws NfsException {
        lock.readLock().lock();
        try {
            Node dir = dir(dirFh);
            VfsNames.checkLookup(name);
            if (".".equals(name)) {
                return object(dir);
            }
            if ("..".equals(name)) {
                return object(dir.parent);
            }
            Node n = dir.children.get(name);
            if (n == null) {
                throw new NfsException(Nfs3Status.NFS3ERR_NOENT, name);
            }
            return object(n);
        } finally {
            lock.readLock().unlock();
        }
    }

    @Override
    public String readlink(FileHandle fh) throws NfsException {
        lock.readLock().lock();
        try {
            Node n = node(fh);
            if (n.type != FileType.SYMLINK) {
                throw new NfsException(Nfs3Status.NFS3ERR_INVAL, "not a symbolic link");
            }
            return n.target;
        } finally {
            lock.readLock().unlock();
        }
    }

    private static Node regular(Node n) throws NfsException {
        if (n.type == FileType.DIRECTORY) {
            throw new NfsException(Nfs3Status.NFS3ERR_ISDIR, "is a directory");
        }
        if (n.type != FileType.REGULAR) {
            throw new NfsException(Nfs3Status.NFS3ERR_INVAL, "not a regular file");
        }
        return n;
    }

    @Override
    public ReadResult read(FileHandle fh, long offset, ByteBuffer dst) throws NfsException {
        if (offset < 0) {
            throw new NfsException(Nfs3Status.NFS3ERR_INVAL, "offset beyond 2^63");
        }
        lock.readLock().lock();
        try {
            Node n = regular(node(fh));
            int count = n.data.read(offset, dst);
            return new ReadResult(count, offset + count >= n.data.size());
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * Lends the file's own blocks when this VFS's memory {@linkplain BlockMemory#lends() lends} (null otherwise):
     * the views keep the bytes the file held now even if it is written or truncated before they are released.
     */
    @Override
    public LentRange lend(FileHandle fh, long offset, int count) throws NfsException {
        if (!blockMemory.lends()) {
            return null;
        }
        if (offset < 0) {
            throw new NfsException(Nfs3Status.NFS3ERR_INVAL, "offset beyond 2^63");
        }
        if (count < 0) {
            throw new NfsException(Nfs3Status.NFS3ERR_INVAL, "negative count " + count);
        }
        lock.readLock().lock();
        try {
            return regular(node(fh)).data.lend(offset, count);
        } finally {
            lock.readLock().unlock();
        }
    }

    @Override
    public WriteResult write(FileHandle fh, long offset, ByteBuffer src, StableHow stable) throws NfsException {
        return write(fh, offset, src, stable, WriteMemory.NONE);
    }

    /**
     * Writes {@code src} at {@code offset}; each whole block the write covers (a block-aligned range of
     * {@link BlockMemory#blockSize()} bytes) is first asked of {@code memory}, and a block it gives becomes the
     * file's block as it is, in place of a copy (the block it replaces is let go, a reader holding it keeps it).
     */
    @Override
    public WriteResult write(FileHandle fh, long offset, ByteBuffer src, StableHow stable, WriteMemory memory)
            throws NfsException {
        int count = src.remaining();
        if (offset < 0 || offset > maxFileSize() - count) {
            throw new NfsException(Nfs3Status.NFS3ERR_FBIG, "beyond the largest file size");
        }
        lock.writeLock().lock();
        try {
            Node n = regular(node(fh));
            checkRoom(n, offset, count);
            // counted as it happens: memory that runs out halfway leaves the blocks taken so far counted
            counted(n.data, () -> n.data.write(offset, src, memory));
            changed(n);
            return new WriteResult(count, stable);
        } finally {
            lock.writeLock().unlock();
        }
    }

    private Node insert(Node dir, String name, FileType type, int mode) {
        Node n = newNode(type, mode, dir);
        dir.children.put(name, n);
        if (type == FileType.DIRECTORY) {
            dir.nlink++;
        }
        touch(dir);
        return n;
    }

    @Override
    public Created create(FileHandle dirFh, String name, CreateMode mode, SetAttributes attributes, long verifier)
            throws NfsException {
        lock.writeLock().lock();
        try {
            Node dir = dir(dirFh);
            VfsNames.checkEntry(name, true);
            Node existing = dir.children.get(name);
            if (existing != null) {
                switch (mode) {
                    case UNCHECKED -> {
                        if (existing.type != FileType.REGULAR) {
                            throw new NfsException(existing.type == FileType.DIRECTORY ? Nfs3Status.NFS3ERR_ISDIR
                                    : Nfs3Status.NFS3ERR_EXIST, name);
                        }
                        return Created.found(object(existing)); // left as it is: the server sets its size
                    }
                    case EXCLUSIVE -> {
                        if (existing.type == FileType.REGULAR && existing.exclusive
                                && existing.createVerifier == verifier && existing.data.size() == 0) {
                            return Created.found(object(existing));
                        }
                        throw new NfsException(Nfs3Status.NFS3ERR_EXIST, name);
                    }
                    default -> throw new NfsException(Nfs3Status.NFS3ERR_EXIST, name);
                }
            }
            if (mode != CreateMode.EXCLUSIVE) {
                checkSize(attributes);
            }
            Node n = insert(dir, name, FileType.REGULAR, 0644);
            if (mode == CreateMode.EXCLUSIVE) {
                n.exclusive = true;
                n.createVerifier = verifier;
                if (attributes != null) {
                    apply(n, new SetAttributes(null, attributes.uid(), attributes.gid(), null, null, null));
                }
            } else {
                apply(n, attributes);
            }
            return Created.made(object(n));
        } finally {
            lock.writeLock().unlock();
        }
    }

    @Override
    public NfsObject mkdir(FileHandle dirFh, String name, SetAttributes attributes) throws NfsException {
        lock.writeLock().lock();
        try {
            Node dir = dir(dirFh);
            Node n = newEntry(dir, name, FileType.DIRECTORY, (dir.mode & 02000) | 0755); // setgid is inherited
            apply(n, withoutSize(attributes));
            return object(n);
        } finally {
            lock.writeLock().unlock();
        }
    }

    @Override
    public NfsObject symlink(FileHandle dirFh, String name, String target, SetAttributes attributes)
            throws NfsException {
        lock.writeLock().lock();
        try {
            Node dir = dir(dirFh);
            VfsNames.checkLinkTarget(target);
            Node n = newEntry(dir, name, FileType.SYMLINK, 0777);
            n.target = target;
            if (attributes != null) {
                apply(n, new SetAttributes(null, attributes.uid(), attributes.gid(), null, null, null));
            }
            return object(n);
        } finally {
            lock.writeLock().unlock();
        }
    }

    @Override
    public NfsObject mknod(FileHandle dirFh, String name, FileType type, int major, int minor,
                           SetAttributes attributes) throws NfsException {
        VfsNames.checkSpecialType(type);
        lock.writeLock().lock();
        try {
            Node n = newEntry(dir(dirFh), name, type, 0644);
            if (type.isDevice()) {
                n.major = major;
                n.minor = minor;
            }
            apply(n, withoutSize(attributes));
            return object(n);
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** A new entry {@code name} of {@code type} in {@code dir}: NFS3ERR_EXIST when the name is taken. */
    private Node newEntry(Node dir, String name, FileType type, int mode) throws NfsException {
        VfsNames.checkEntry(name, true);
        if (dir.children.containsKey(name)) {
            throw new NfsException(Nfs3Status.NFS3ERR_EXIST, name);
        }
        return insert(dir, name, type, mode);
    }

    /** What a new object that is not a regular file takes of a call's attributes: all but a size. */
    private static SetAttributes withoutSize(SetAttributes a) {
        return a == null ? null : new SetAttributes(a.mode(), a.uid(), a.gid(), null, a.atime(), a.mtime());
    }

    /** Removes {@code name} of {@code n} from {@code dir}; {@code n} goes with its last name. */
    private void unlink(Node dir, String name, Node n) {
        dir.children.remove(name);
        touch(dir);
        if (n.type == FileType.DIRECTORY) {
            dir.nlink--;
        } else if (--n.nlink > 0) {
            n.ctime = dir.ctime; // another name keeps it
            return;
        }
        if (n.type == FileType.REGULAR) {
            usedBytes -= n.data.allocatedBytes();
            n.data.drop();
        }
        nodes.remove(n.fileid);
    }

    @Override
    public void remove(FileHandle dirFh, String name) throws NfsException {
        lock.writeLock().lock();
        try {
            Node dir = dir(dirFh);
            VfsNames.checkEntry(name, false);
            Node n = dir.children.get(name);
            if (n == null) {
                throw new NfsException(Nfs3Status.NFS3ERR_NOENT, name);
            }
            if (n.type == FileType.DIRECTORY) {
                throw new NfsException(Nfs3Status.NFS3ERR_ISDIR, name);
            }
            unlink(dir, name, n);
        } finally {
            lock.writeLock().unlock();
        }
    }

    @Override
    public void rmdir(FileHandle dirFh, String name) throws NfsException {
        lock.writeLock().lock();
        try {
            Node dir = dir(dirFh);
            VfsNames.checkEntry(name, false);
            Node n = dir.children.get(name);
            if (n == null) {
                throw new NfsException(Nfs3Status.NFS3ERR_NOENT, name);
            }
            if (n.type != FileType.DIRECTORY) {
                throw new NfsException(Nfs3Status.NFS3ERR_NOTDIR, name);
            }
            if (!n.children.isEmpty()) {
                throw new NfsException(Nfs3Status.NFS3ERR_NOTEMPTY, name);
            }
            unlink(dir, name, n);
        } finally {
            lock.writeLock().unlock();
        }
    }

    @Override
    public void rename(FileHandle fromFh, String fromName, FileHandle toFh, String toName) throws NfsException {
        lock.writeLock().lock();
        try {
            Node from = dir(fromFh);
            Node to = dir(toFh);
            VfsNames.checkEntry(fromName, false);
            VfsNames.checkEntry(toName, true);
            Node n = from.children.get(fromName);
            if (n == null) {
                throw new NfsException(Nfs3Status.NFS3ERR_NOENT, fromName);
            }
            Node target = to.children.get(toName);
            if (target == n) {
                return;
            }
            if (n.type == FileType.DIRECTORY) {
                for (Node a = to; ; a = a.parent) {
                    if (a == n) {
                        throw new NfsException(Nfs3Status.NFS3ERR_INVAL, "cannot move a directory into itself");
                    }
                    if (a == root) {
                        break;
                    }
                }
            }
            if (target != null) {
                if (n.type == FileType.DIRECTORY && target.type != FileType.DIRECTORY) {
                    throw new NfsException(Nfs3Status.NFS3ERR_NOTDIR, toName);
                }
                if (n.type != FileType.DIRECTORY && target.type == FileType.DIRECTORY) {
                    throw new NfsException(Nfs3Status.NFS3ERR_ISDIR, toName);
                }
                if (target.type == FileType.DIRECTORY && !target.children.isEmpty()) {
                    throw new NfsException(Nfs3Status.NFS3ERR_NOTEMPTY, toName);
                }
                unlink(to, toName, target);
            }
            from.children.remove(fromName);
            to.children.put(toName, n);
            if (n.type == FileType.DIRECTORY) {
                from.nlink--;
                to.nlink++;
                n.parent = to;
            }
            n.ctime = NfsTime.now();
            touch(from);
            touch(to);
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * Puts {@code file} in {@code dir} under {@code name} as well: both names reach one node, its data and its
     * attributes. Directories have one name only ({@code NFS3ERR_ISDIR}); a file has at most {@link #MAX_LINKS}.
     */
    @Override
    public void link(FileHandle fileFh, FileHandle dirFh, String name) throws NfsException {
        lock.writeLock().lock();
        try {
            Node dir = dir(dirFh);
            Node n = node(fileFh);
            if (n.type == FileType.DIRECTORY) {
                throw new NfsException(Nfs3Status.NFS3ERR_ISDIR, "a directory has one name only");
            }
            VfsNames.checkEntry(name, true);
            if (dir.children.containsKey(name)) {
                throw new NfsException(Nfs3Status.NFS3ERR_EXIST, name);
            }
            if (n.nlink >= MAX_LINKS) {
                throw new NfsException(Nfs3Status.NFS3ERR_MLINK, "a file has at most " + MAX_LINKS + " names");
            }
            dir.children.put(name, n);
            n.nlink++;
            touch(dir);
            n.ctime = dir.ctime;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** {@link #MAX_LINKS}. */
    @Override
    public int linkMax() {
        return MAX_LINKS;
    }

    @Override
    public DirectoryPage readdir(FileHandle dirFh, long cookie, long cookieVerifier, int maxEntries)
            throws NfsException {
        lock.readLock().lock();
        try {
            Node dir = dir(dirFh);
            // a cookie stays where it was whatever changes (DirectoryEntries): the verifier is not needed, and one
            // that came from before a change is as good as any; only a cookie never given cannot be resumed
            if (!dir.children.issued(cookie)) {
                throw new NfsException(Nfs3Status.NFS3ERR_BAD_COOKIE, "cookie " + cookie + " was never given");
            }
            List<DirEntry> entries = new ArrayList<>();
            if (cookie == 0) {
                entries.add(entry(".", dir, 1));
            }
            if (cookie <= 1 && entries.size() < maxEntries) {
                entries.add(entry("..", dir.parent, 2));
            }
            for (Map.Entry<Long, String> e : dir.children.after(cookie).entrySet()) {
                if (entries.size() >= maxEntries) {
                    break;
                }
                entries.add(entry(e.getValue(), dir.children.get(e.getValue()), e.getKey()));
            }
            long last = entries.isEmpty() ? cookie : entries.get(entries.size() - 1).cookie();
            boolean eof = last >= 2 && dir.children.after(last).isEmpty();
            return new DirectoryPage(entries, eof, 0);
        } finally {
            lock.readLock().unlock();
        }
    }

    private DirEntry entry(String name, Node n, long cookie) {
        return new DirEntry(n.fileid, name, cookie, attributes(n), handleOf(n));
    }

    @Override
    public FsStat fsstat(FileHandle fh) throws NfsException {
        lock.readLock().lock();
        try {
            node(fh);
            long free = Math.max(0, capacityBytes - usedBytes);
            long files = nodes.size();
            return new FsStat(capacityBytes, free, free, files + free / MemoryFileData.BLOCK,
                    free / MemoryFileData.BLOCK, free / MemoryFileData.BLOCK, 0);
        } finally {
            lock.readLock().unlock();
        }
    }

    @Override
    public boolean givesOwnership() {
        return true;
    }

    /** True: what lives in memory changes only through the server (and the embedding program's own calls). */
    @Override
    public boolean changedOnlyThroughServer() {
        return true;
    }

    @Override
    public long maxFileSize() {
        return Math.min(capacityBytes, MemoryFileData.MAX_SIZE);
    }

    @Override
    public void commit(FileHandle fh, long offset, long count) throws NfsException {
        lock.readLock().lock();
        try {
            regular(node(fh));
        } finally {
            lock.readLock().unlock();
        }
    }

    /** SEEK_DATA and SEEK_HOLE at the granularity of the file's blocks (a block any write reached is data). */
    @Override
    public long seek(FileHandle fh, long offset, boolean data) throws NfsException {
        lock.readLock().lock();
        try {
            long at = regular(node(fh)).data.seek(offset, data);
            if (at < 0) {
                throw new NfsException(Nfs3Status.NFS3ERR_NXIO, data ? "no data at or after " + offset
                        : "offset " + offset + " at or beyond the end of the file");
            }
            return at;
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Allocates zeroed blocks for the holes of the range (counted against the capacity) and grows the file. */
    @Override
    public void allocate(FileHandle fh, long offset, long length) throws NfsException {
        checkExtent(offset, length);
        lock.writeLock().lock();
        try {
            Node n = regular(node(fh));
            checkRoom(n, offset, length);
            counted(n.data, () -> n.data.allocate(offset, length));
            changed(n);
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Lets go of the blocks the range covers whole and zeros the rest of it; the size stays. */
    @Override
    public void deallocate(FileHandle fh, long offset, long length) throws NfsException {
        if (offset < 0 || length < 0) {
            throw new NfsException(Nfs3Status.NFS3ERR_INVAL, "negative offset or length");
        }
        lock.writeLock().lock();
        try {
            Node n = regular(node(fh));
            counted(n.data, () -> n.data.deallocate(offset, length));
            changed(n);
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * Copies within this file system without moving the bytes where it can: a whole block whose source is a whole
     * block is shared by both files until either changes it, and holes stay holes. The capacity is checked as for a
     * write of the range; what is counted afterwards is what the destination holds.
     */
    @Override
    public long copy(FileHandle src, long srcOffset, FileHandle dst, long dstOffset, long count) throws NfsException {
        lock.writeLock().lock();
        try {
            Node from = regular(node(src));
            Node to = regular(node(dst));
            long n = CopyRanges.copied(src, srcOffset, from.data.size(), dst, dstOffset, count, maxFileSize());
            if (n == 0) {
                return 0;
            }
            checkRoom(to, dstOffset, n);
            counted(to.data, () -> to.data.copyFrom(from.data, srcOffset, dstOffset, n));
            changed(to);
            return n;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * Shares the source's blocks with the destination, as Linux's file systems with reflinks do, and under their
     * rules: the offsets, and the length unless the range reaches the source's end, are multiples of the block size
     * ({@link BlockMemory#blockSize()}), and the range lies within the source (NFS3ERR_INVAL else; a length of 0 at
     * the source's end clones nothing and succeeds). So the only memory a clone may need is the block of a tail that
     * ends the source; it is taken first, and a clone that cannot have it changes nothing.
     */
    @Override
    public void clone(FileHandle src, long srcOffset, FileHandle dst, long dstOffset, long count) throws NfsException {
        if (srcOffset < 0 || dstOffset < 0 || count < 0) {
            throw new NfsException(Nfs3Status.NFS3ERR_INVAL, "negative offset or length");
        }
        lock.writeLock().lock();
        try {
            Node from = regular(node(src));
            Node to = regular(node(dst));
            long size = from.data.size();
            long n = count;
            if (n == 0) {
                if (srcOffset == size) {
                    return; // nothing from the end to the end
                }
                n = srcOffset < size ? size - srcOffset : -1;
            }
            if (n < 0 || srcOffset >= size || n > size - srcOffset) {
                throw new NfsException(Nfs3Status.NFS3ERR_INVAL, "the range passes the source's end, " + size);
            }
            int block = blockMemory.blockSize();
            if (srcOffset % block != 0 || dstOffset % block != 0 || (n % block != 0 && srcOffset + n != size)) {
                throw new NfsException(Nfs3Status.NFS3ERR_INVAL, "a clone's offsets, and its length unless it reaches "
                        + "the source's end, are multiples of the block size, " + block);
            }
            CopyRanges.check(src, srcOffset, dst, dstOffset, n, maxFileSize());
            checkRoom(to, dstOffset, n);
            long tail = n % block;
            long body = n - tail;
            counted(to.data, () -> {
                if (tail > 0) {
                    to.data.copyFrom(from.data, srcOffset + body, dstOffset + body, tail); // the block it may need
                }
                to.data.copyFrom(from.data, srcOffset, dstOffset, body); // shared: takes no memory
            });
            changed(to);
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * Refuses with NFS3ERR_NOSPC a change of {@code length} bytes at {@code offset} of {@code n} that could take more
     * storage than the capacity has left; returns the most it can take.
     */
    private long checkRoom(Node n, long offset, long length) throws NfsException {
        long more = n.data.allocationFor(offset, length);
        if (usedBytes + more > capacityBytes) {
            throw new NfsException(Nfs3Status.NFS3ERR_NOSPC, "in-memory file system full");
        }
        return more;
    }

    /** Makes {@code change} to {@code data} and counts the storage it took or gave back, also when it failed. */
    private void counted(MemoryFileData data, Runnable change) {
        long before = data.allocatedBytes();
        try {
            change.run();
        } finally {
            usedBytes += data.allocatedBytes() - before;
        }
    }

    private void checkExtent(long offset, long length) throws NfsException {
        if (offset < 0 || length < 0) {
            throw new NfsException(Nfs3Status.NFS3ERR_INVAL, "negative offset or length");
        }
        if (offset > maxFileSize() - length) {
            throw new NfsException(Nfs3Status.NFS3ERR_FBIG, "beyond the largest file size");
        }
    }

    private static void changed(Node n) {
        NfsTime now = NfsTime.now();
        n.mtime = now;
        n.ctime = now;
    }

    @Override
    public long writeVerifier() {
        return writeVerifier;
    }

    /**
     * Lets go of every file's memory (blocks lent to readers live on until they are released; blocks kept from a
     * server's call buffers go back to it): the file system is empty afterwards and the handles of its files are
     * stale. Calling it again does nothing.
     */
    @Override
    public void close() {
        lock.writeLock().lock();
        try {
            for (Node n : nodes.values()) {
                if (n.type == FileType.REGULAR) {
                    n.data.drop();
                }
            }
            nodes.values().removeIf(n -> n != root);
            root.children.clear();
            root.nlink = 2;
            usedBytes = 0;
        } finally {
            lock.writeLock().unlock();
        }
    }
}
