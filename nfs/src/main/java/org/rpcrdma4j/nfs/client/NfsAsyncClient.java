package org.rpcrdma4j.nfs.client;

import io.netty.buffer.ByteBuf;
import java.util.concurrent.CompletableFuture;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.FileType;
import org.rpcrdma4j.nfs.FsInfo;
import org.rpcrdma4j.nfs.FsStat;
import org.rpcrdma4j.nfs.NfsObject;
import org.rpcrdma4j.nfs.NfsTime;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.PathConf;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.xdr.*;

/**
 * Every NFSv3 procedure as an asynchronous call over a {@link DataTransport}. Each returns a future that completes
 * with the procedure's result, or exceptionally with an {@link org.rpcrdma4j.nfs.NfsException} (the server answered
 * with an error status) or an {@link RpcCallException} (no answer). Thread-safe; calls may be pipelined freely.
 * <p>
 * A call the server answers {@code NFS3ERR_JUKEBOX} ("not now": the file is being recalled from an NFSv4 client
 * that holds a delegation of it, or is on its way back from slower storage) did nothing, and is sent again after
 * 100 ms, then after twice as long each time up to 2 s, for about a minute ({@link #JUKEBOX_TRIES} tries), as NFS
 * clients do; only then does it fail with that status.
 * <p>
 * The data calls are shaped for zero copy: {@link #read} places the data into the caller's {@link ByteBuf} and
 * {@link #write} sends the caller's {@link ByteBuf}; over RDMA these become a write chunk and a read chunk over the
 * caller's memory.
 */
public final class NfsAsyncClient implements NfsAsyncMount {
    private final DataTransport transport;

    /** Borrows {@code transport}. */
    public NfsAsyncClient(DataTransport transport) {
        this.transport = transport;
    }

    public DataTransport transport() {
        return transport;
    }

    /** How often a call answered NFS3ERR_JUKEBOX is sent in all before the status is the caller's. */
    public static final int JUKEBOX_TRIES = 32;
    static final long JUKEBOX_FIRST_PAUSE_MILLIS = 100;
    static final long JUKEBOX_LONGEST_PAUSE_MILLIS = 2000;

    private <R extends Nfs3Result, T> CompletableFuture<T> call(int procedure, XdrAble args, R result,
                                                                CheckedFunction<R, T> onOk) {
        CompletableFuture<R> reply = transport.call(Nfs3.PROGRAM, Nfs3.VERSION, procedure, args, result);
        // the status check and result mapping are short: on the thread that completed the reply, not one more hop
        CompletableFuture<T> out = reply instanceof CallbackFuture<R> f ? f.sibling() : new CompletableFuture<>();
        settleWhenDone(reply, out, procedure, args, result, onOk, 1);
        return out;
    }

    private <R extends Nfs3Result, T> void settleWhenDone(CompletableFuture<R> reply, CompletableFuture<T> out,
            int procedure, XdrAble args, R result, CheckedFunction<R, T> onOk, int tries) {
        java.util.function.BiConsumer<R, Throwable> settle = (r, failure) -> {
            if (failure != null) {
                out.completeExceptionally(failure instanceof java.util.concurrent.CompletionException ? failure
                        : new java.util.concurrent.CompletionException(failure));
                return;
            }
            if (r.status == Nfs3Status.NFS3ERR_JUKEBOX.wireValue() && tries < JUKEBOX_TRIES) {
                long pause = Math.min(JUKEBOX_LONGEST_PAUSE_MILLIS, JUKEBOX_FIRST_PAUSE_MILLIS << Math.min(tries - 1,
                        16));
                // sent again from the common pool after the pause (sending may wait for credits or a reconnect)
                CompletableFuture.delayedExecutor(pause, java.util.concurrent.TimeUnit.MILLISECONDS).execute(() -> {
                    try {
                        settleWhenDone(transport.call(Nfs3.PROGRAM, Nfs3.VERSION, procedure, args, result), out,
                                procedure, args, result, onOk, tries + 1);
                    } catch (Throwable t) {
                        out.completeExceptionally(new java.util.concurrent.CompletionException(t));
                    }
                });
                return;
            }
            try {
                r.throwIfFailed(Nfs3.procedureName(procedure));
                out.complete(onOk.apply(r));
            } catch (Throwable e) {
                out.completeExceptionally(new java.util.concurrent.CompletionException(e));
            }
        };
        if (reply instanceof CallbackFuture<R> f) {
            f.whenCompleteInline(settle);
        } else {
            reply.whenComplete(settle);
        }
    }

    @FunctionalInterface
    private interface CheckedFunction<A, B> {
        B apply(A a) throws java.io.IOException;
    }

    /** NULL: a round trip that does nothing. */
    public CompletableFuture<Void> ping() {
        return transport.call(Nfs3.PROGRAM, Nfs3.VERSION, Nfs3.NULL, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID)
                .thenApply(v -> null);
    }

    public CompletableFuture<FileAttributes> getattr(FileHandle fh) {
        return call(Nfs3.GETATTR, new FhArgs(fh), new GetattrRes(), r -> r.attributes);
    }

    /** SETATTR; returns the attributes afterwards (null if the server did not send them). */
    public CompletableFuture<FileAttributes> setattr(FileHandle fh, SetAttributes attributes, NfsTime guardCtime) {
        return call(Nfs3.SETATTR, new SetattrArgs(fh, attributes, guardCtime), new WccRes(),
                r -> r.wcc == null ? null : r.wcc.after());
    }

    public CompletableFuture<NfsObject> lookup(FileHandle dir, String name) {
        return call(Nfs3.LOOKUP, new DirOpArgs(dir, name), new LookupRes(),
                r -> new NfsObject(r.object, r.objectAttributes));
    }

    /** ACCESS: which of the {@link org.rpcrdma4j.nfs.Access} bits asked for are granted. */
    public CompletableFuture<Integer> access(FileHandle fh, int bits) {
        return call(Nfs3.ACCESS, new AccessArgs(fh, bits), new AccessRes(), r -> r.access);
    }

    public CompletableFuture<String> readlink(FileHandle fh) {
        return call(Nfs3.READLINK, new FhArgs(fh), new ReadlinkRes(), r -> r.target);
    }

    /**
     * READ of up to {@code dst.writableBytes()} bytes at {@code offset}, placed at {@code dst.writerIndex()} (which
     * advances by the count). Borrows {@code dst} until the future completes.
     */
    public CompletableFuture<ReadReply> read(FileHandle fh, long offset, ByteBuf dst) {
        ReadRes res = new ReadRes(dst);
        return call(Nfs3.READ, new FileRangeArgs(fh, offset, dst.writableBytes()), res,
                r -> new ReadReply((int) r.count, r.eof, r.attributes));
    }

    /**
     * WRITE of the readable bytes of {@code src} at {@code offset}. Borrows {@code src} (indexes untouched, content
     * not to be changed) until the future completes. The server may write fewer bytes ({@link WriteReply#count()}).
     */
    public CompletableFuture<WriteReply> write(FileHandle fh, long offset, ByteBuf src, StableHow stable) {
        return call(Nfs3.WRITE, new WriteArgs(fh, offset, stable, src), new WriteRes(),
                r -> new WriteReply(r.count, r.committed, r.verifier, r.wcc == null ? null : r.wcc.after()));
    }

    /** CREATE; for EXCLUSIVE, {@code verifier} identifies this attempt (attributes are not sent). */
    public CompletableFuture<NfsObject> create(FileHandle dir, String name, CreateMode mode, SetAttributes attributes,
                                               long verifier) {
        return made(dir, name, call(Nfs3.CREATE, new CreateArgs(dir, name, mode, attributes, verifier),
                new NewObjectRes(), r -> r));
    }

    public CompletableFuture<NfsObject> mkdir(FileHandle dir, String name, SetAttributes attributes) {
        return made(dir, name, call(Nfs3.MKDIR, new MkdirArgs(dir, name, attributes), new NewObjectRes(), r -> r));
    }

    public CompletableFuture<NfsObject> symlink(FileHandle dir, String name, String target,
                                                SetAttributes attributes) {
        return made(dir, name, call(Nfs3.SYMLINK, new SymlinkArgs(dir, name, attributes, target),
                new NewObjectRes(), r -> r));
    }

    public CompletableFuture<NfsObject> mknod(FileHandle dir, String name, FileType type, SetAttributes attributes,
                                              int major, int minor) {
        return made(dir, name, call(Nfs3.MKNOD, new MknodArgs(dir, name, type, attributes, major, minor),
                new NewObjectRes(), r -> r));
    }

    /** The new object; when the server left out its handle (allowed by RFC 1813), a LOOKUP fetches it. */
    private CompletableFuture<NfsObject> made(FileHandle dir, String name, CompletableFuture<NewObjectRes> f) {
        return f.thenCompose(r -> r.object != null ? CompletableFuture.completedFuture(new NfsObject(r.object,
                r.attributes)) : lookup(dir, name));
    }

    public CompletableFuture<Void> remove(FileHandle dir, String name) {
        return call(Nfs3.REMOVE, new DirOpArgs(dir, name), new WccRes(), r -> null);
    }

    public CompletableFuture<Void> rmdir(FileHandle dir, String name) {
        return call(Nfs3.RMDIR, new DirOpArgs(dir, name), new WccRes(), r -> null);
    }

    public CompletableFuture<Void> rename(FileHandle fromDir, String fromName, FileHandle toDir, String toName) {
        return call(Nfs3.RENAME, new RenameArgs(fromDir, fromName, toDir, toName), new RenameRes(), r -> null);
    }

    public CompletableFuture<Void> link(FileHandle file, FileHandle dir, String name) {
        return call(Nfs3.LINK, new LinkArgs(file, dir, name), new LinkRes(), r -> null);
    }

    /** READDIR from {@code cookie} (0 and verifier 0 to start), a reply of at most {@code count} bytes. */
    public CompletableFuture<DirListing> readdir(FileHandle dir, long cookie, long cookieVerifier, int count) {
        return call(Nfs3.READDIR, new ReaddirArgs(false, dir, cookie, cookieVerifier, 0, count),
                new ReaddirRes(false), listing());
    }

    /** READDIRPLUS: entries with attributes and handles. */
    public CompletableFuture<DirListing> readdirplus(FileHandle dir, long cookie, long cookieVerifier, int dirCount,
                                                     int maxCount) {
        return call(Nfs3.READDIRPLUS, new ReaddirArgs(true, dir, cookie, cookieVerifier, dirCount, maxCount),
                new ReaddirRes(true), listing());
    }

    private static CheckedFunction<ReaddirRes, DirListing> listing() {
        return r -> new DirListing(r.entries, r.eof, r.cookieVerifier, r.dirAttributes);
    }

    public CompletableFuture<FsStat> fsstat(FileHandle fh) {
        return call(Nfs3.FSSTAT, new FhArgs(fh), new FsstatRes(), r -> r.fsstat);
    }

    public CompletableFuture<FsInfo> fsinfo(FileHandle fh) {
        return call(Nfs3.FSINFO, new FhArgs(fh), new FsinfoRes(), r -> r.fsinfo);
    }

    public CompletableFuture<PathConf> pathconf(FileHandle fh) {
        return call(Nfs3.PATHCONF, new FhArgs(fh), new PathconfRes(), r -> r.pathconf);
    }

    /** COMMIT of {@code count} bytes at {@code offset} (0, 0: the whole file); returns the write verifier. */
    public CompletableFuture<Long> commit(FileHandle fh, long offset, long count) {
        return call(Nfs3.COMMIT, new FileRangeArgs(fh, offset, count), new CommitRes(), r -> r.verifier);
    }
}
