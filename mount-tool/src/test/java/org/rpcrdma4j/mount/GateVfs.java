package org.rpcrdma4j.mount;

import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

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
import org.rpcrdma4j.nfs.vfs.DirectoryPage;
import org.rpcrdma4j.nfs.vfs.ReadResult;
import org.rpcrdma4j.nfs.vfs.Vfs;
import org.rpcrdma4j.nfs.vfs.WriteResult;

/**
 * A VFS that holds READs or WRITEs at a gate until released, so that a test can interrupt a transfer while it is
 * surely in the middle, or that returns READ data with its last byte changed, or half of what a READ asks.
 * Everything else passes straight through.
 */
final class GateVfs implements Vfs {
    private final Vfs delegate;
    private volatile boolean holdReads;
    private volatile boolean holdWrites;
    private volatile boolean corruptReads;
    private volatile boolean shortReads;
    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);

    GateVfs(Vfs delegate) {
        this.delegate = delegate;
    }

    void holdReads() {
        holdReads = true;
    }

    void holdWrites() {
        holdWrites = true;
    }

    /** From now on, a READ of more than 2 bytes returns at most half (short unless it reaches end of file). */
    void shortReads() {
        shortReads = true;
    }

    /** From now on, the last byte of every READ's data is wrong. */
    void corruptReads() {
        corruptReads = true;
    }

    /** Waits until a held operation reached the gate. */
    boolean awaitHeld(long seconds) throws InterruptedException {
        return entered.await(seconds, TimeUnit.SECONDS);
    }

    void release() {
        holdReads = false;
        holdWrites = false;
        released.countDown();
    }

    private void gate() {
        entered.countDown();
        try {
            released.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public FileHandle root() {
        return delegate.root();
    }

    @Override
    public FileAttributes getattr(FileHandle fh) throws NfsException {
        return delegate.getattr(fh);
    }

    @Override
    public FileAttributes setattr(FileHandle fh, SetAttributes attributes, NfsTime guardCtime) throws NfsException {
        return delegate.setattr(fh, attributes, guardCtime);
    }

    @Override
    public NfsObject lookup(FileHandle dir, String name) throws NfsException {
        return delegate.lookup(dir, name);
    }

    @Override
    public String readlink(FileHandle fh) throws NfsException {
        return delegate.readlink(fh);
    }

    @Override
    public ReadResult read(FileHandle fh, long offset, ByteBuffer dst) throws NfsException {
        if (holdReads && offset > 0) {
            gate();
        }
        if (shortReads && dst.remaining() > 2) {
            ByteBuffer half = dst.slice().limit(dst.remaining() / 2);
            ReadResult r = delegate.read(fh, offset, half);
            dst.position(dst.position() + half.position());
            return r; // end of file when the half reached it
        }
        ReadResult r = delegate.read(fh, offset, dst);
        if (corruptReads && dst.position() > 0) {
            dst.put(dst.position() - 1, (byte) ~dst.get(dst.position() - 1));
        }
        return r;
    }

    @Override
    public WriteResult write(FileHandle fh, long offset, ByteBuffer src, StableHow stable) throws NfsException {
        if (holdWrites && offset > 0) {
            gate();
        }
        return delegate.write(fh, offset, src, stable);
    }

    @Override
    public org.rpcrdma4j.nfs.vfs.Created create(FileHandle dir, String name, CreateMode mode, SetAttributes attributes, long verifier)
            throws NfsException {
        return delegate.create(dir, name, mode, attributes, verifier);
    }

    @Override
    public NfsObject mkdir(FileHandle dir, String name, SetAttributes attributes) throws NfsException {
        return delegate.mkdir(dir, name, attributes);
    }

    @Override
    public NfsObject symlink(FileHandle dir, String name, String target, SetAttributes attributes)
            throws NfsException {
        return delegate.symlink(dir, name, target, attributes);
    }

    @Override
    public NfsObject mknod(FileHandle dir, String name, FileType type, int major, int minor,
                           SetAttributes attributes) throws NfsException {
        return delegate.mknod(dir, name, type, major, minor, attributes);
    }

    @Override
    public void remove(FileHandle dir, String name) throws NfsException {
        delegate.remove(dir, name);
    }

    @Override
    public void rmdir(FileHandle dir, String name) throws NfsException {
        delegate.rmdir(dir, name);
    }

    @Override
    public void rename(FileHandle fromDir, String fromName, FileHandle toDir, String toName) throws NfsException {
        delegate.rename(fromDir, fromName, toDir, toName);
    }

    @Override
    public DirectoryPage readdir(FileHandle dir, long cookie, long cookieVerifier, int maxEntries)
            throws NfsException {
        return delegate.readdir(dir, cookie, cookieVerifier, maxEntries);
    }

    @Override
    public FsStat fsstat(FileHandle fh) throws NfsException {
        return delegate.fsstat(fh);
    }

    @Override
    public long maxFileSize() {
        return delegate.maxFileSize();
    }

    @Override
    public void commit(FileHandle fh, long offset, long count) throws NfsException {
        delegate.commit(fh, offset, count);
    }

    @Override
    public long writeVerifier() {
        return delegate.writeVerifier();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
