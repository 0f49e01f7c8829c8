package org.rpcrdma4j.nfs.client.v4;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.FileType;
import org.rpcrdma4j.nfs.FsStat;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.NfsObject;
import org.rpcrdma4j.nfs.NfsTime;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.vfs.Created;
import org.rpcrdma4j.nfs.vfs.DirectoryPage;
import org.rpcrdma4j.nfs.vfs.LentRange;
import org.rpcrdma4j.nfs.vfs.ReadResult;
import org.rpcrdma4j.nfs.vfs.Vfs;
import org.rpcrdma4j.nfs.vfs.WriteMemory;
import org.rpcrdma4j.nfs.vfs.WriteResult;

/**
 * A {@link Vfs} in front of another that counts the changes made through it (WRITEs by file and offset, REMOVEs by
 * name) and can hold them: while the gate is closed, a WRITE or REMOVE waits inside the server until it opens, so a
 * test knows those calls are in flight. It can also answer a READ with no data ({@link #readsAt}).
 */
public final class GatedVfs implements Vfs {
    private final Vfs inner;
    private final Object gate = new Object();
    private boolean closed;
    private int waiting;
    private int executing;
    private int maxExecuting;
    final Map<String, AtomicInteger> writes = new ConcurrentHashMap<>();
    final Map<String, AtomicInteger> removes = new ConcurrentHashMap<>();
    /** The next READ at each of these offsets (of any file) gets this answer, without data, instead of the file's. */
    public final Map<Long, ReadResult> readsAt = new ConcurrentHashMap<>();

    public GatedVfs(Vfs inner) {
        this.inner = inner;
    }

    void closeGate() {
        synchronized (gate) {
            closed = true;
        }
    }

    void openGate() {
        synchronized (gate) {
            closed = false;
            gate.notifyAll();
        }
    }

    /** Waits until {@code n} changes wait at the closed gate. */
    void awaitWaiting(int n) throws InterruptedException {
        synchronized (gate) {
            while (waiting < n) {
                gate.wait();
            }
        }
    }

    int waiting() {
        synchronized (gate) {
            return waiting;
        }
    }

    /** The most WRITEs and REMOVEs that ran (or waited) at once. */
    int maxConcurrent() {
        synchronized (gate) {
            return maxExecuting;
        }
    }

    private void enter() {
        synchronized (gate) {
            executing++;
            maxExecuting = Math.max(maxExecuting, executing);
            waiting++;
            gate.notifyAll();
            try {
                while (closed) {
                    gate.wait();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                waiting--;
            }
        }
    }

    private void leave() {
        synchronized (gate) {
            executing--;
        }
    }

    static String key(FileHandle fh, long offset) {
        return fh + "@" + offset;
    }

    int writesAt(FileHandle innerHandle, long offset) {
        AtomicInteger n = writes.get(key(innerHandle, offset));
        return n == null ? 0 : n.get();
    }

    @Override
    public FileHandle root() {
        return inner.root();
    }

    @Override
    public FileAttributes getattr(FileHandle fh) throws NfsException {
        return inner.getattr(fh);
    }

    @Override
    public FileAttributes setattr(FileHandle fh, SetAttributes attributes, NfsTime guardCtime) throws NfsException {
        return inner.setattr(fh, attributes, guardCtime);
    }

    @Override
    public NfsObject lookup(FileHandle dir, String name) throws NfsException {
        return inner.lookup(dir, name);
    }

    @Override
    public String readlink(FileHandle fh) throws NfsException {
        return inner.readlink(fh);
    }

    @Override
    public ReadResult read(FileHandle fh, long offset, ByteBuffer dst) throws NfsException {
        ReadResult forced = readsAt.remove(offset);
        return forced != null ? forced : inner.read(fh, offset, dst);
    }

    @Override
    public LentRange lend(FileHandle fh, long offset, int count) throws NfsException {
        return readsAt.containsKey(offset) ? null : inner.lend(fh, offset, count);
    }

    @Override
    public WriteResult write(FileHandle fh, long offset, ByteBuffer src, StableHow stable) throws NfsException {
        enter();
        try {
            writes.computeIfAbsent(key(fh, offset), k -> new AtomicInteger()).incrementAndGet();
            return inner.write(fh, offset, src, stable);
        } finally {
            leave();
        }
    }

    @Override
    public WriteResult write(FileHandle fh, long offset, ByteBuffer src, StableHow stable, WriteMemory memory)
            throws NfsException {
        enter();
        try {
            writes.computeIfAbsent(key(fh, offset), k -> new AtomicInteger()).incrementAndGet();
            return inner.write(fh, offset, src, stable, memory);
        } finally {
            leave();
        }
    }

    @Override
    public Created create(FileHandle dir, String name, CreateMode mode, SetAttributes attributes, long verifier)
            throws NfsException {
        return inner.create(dir, name, mode, attributes, verifier);
    }

    @Override
    public NfsObject mkdir(FileHandle dir, String name, SetAttributes attributes) throws NfsException {
        return inner.mkdir(dir, name, attributes);
    }

    @Override
    public NfsObject symlink(FileHandle dir, String name, String target, SetAttributes attributes)
            throws NfsException {
        return inner.symlink(dir, name, target, attributes);
    }

    @Override
    public NfsObject mknod(FileHandle dir, String name, FileType type, int major, int minor,
                           SetAttributes attributes) throws NfsException {
        return inner.mknod(dir, name, type, major, minor, attributes);
    }

    @Override
    public void remove(FileHandle dir, String name) throws NfsException {
        enter();
        try {
            removes.computeIfAbsent(name, k -> new AtomicInteger()).incrementAndGet();
            inner.remove(dir, name);
        } finally {
            leave();
        }
    }

    @Override
    public void rmdir(FileHandle dir, String name) throws NfsException {
        inner.rmdir(dir, name);
    }

    @Override
    public void rename(FileHandle fromDir, String fromName, FileHandle toDir, String toName) throws NfsException {
        inner.rename(fromDir, fromName, toDir, toName);
    }

    @Override
    public void link(FileHandle file, FileHandle dir, String name) throws NfsException {
        inner.link(file, dir, name);
    }

    @Override
    public int linkMax() {
        return inner.linkMax();
    }

    @Override
    public DirectoryPage readdir(FileHandle dir, long cookie, long cookieVerifier, int maxEntries)
            throws NfsException {
        return inner.readdir(dir, cookie, cookieVerifier, maxEntries);
    }

    @Override
    public FsStat fsstat(FileHandle fh) throws NfsException {
        return inner.fsstat(fh);
    }

    @Override
    public long maxFileSize() {
        return inner.maxFileSize();
    }

    @Override
    public void commit(FileHandle fh, long offset, long count) throws NfsException {
        inner.commit(fh, offset, count);
    }

    @Override
    public long writeVerifier() {
        return inner.writeVerifier();
    }

    @Override
    public long seek(FileHandle fh, long offset, boolean data) throws NfsException {
        return inner.seek(fh, offset, data);
    }

    @Override
    public void allocate(FileHandle fh, long offset, long length) throws NfsException {
        inner.allocate(fh, offset, length);
    }

    @Override
    public void deallocate(FileHandle fh, long offset, long length) throws NfsException {
        inner.deallocate(fh, offset, length);
    }

    @Override
    public void clone(FileHandle src, long srcOffset, FileHandle dst, long dstOffset, long count)
            throws NfsException {
        inner.clone(src, srcOffset, dst, dstOffset, count);
    }

    @Override
    public long copy(FileHandle src, long srcOffset, FileHandle dst, long dstOffset, long count)
            throws NfsException {
        return inner.copy(src, srcOffset, dst, dstOffset, count);
    }
}
