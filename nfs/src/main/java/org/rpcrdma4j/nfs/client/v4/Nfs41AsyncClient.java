package org.rpcrdma4j.nfs.client.v4;

import io.netty.buffer.ByteBuf;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.DirEntry;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.FileType;
import org.rpcrdma4j.nfs.FsInfo;
import org.rpcrdma4j.nfs.FsStat;
import org.rpcrdma4j.nfs.NfsObject;
import org.rpcrdma4j.nfs.NfsTime;
import org.rpcrdma4j.nfs.PathConf;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.client.CallbackFuture;
import org.rpcrdma4j.nfs.client.NfsAsyncMount;
import org.rpcrdma4j.nfs.client.DirListing;
import org.rpcrdma4j.nfs.client.ReadReply;
import org.rpcrdma4j.nfs.client.RpcBadReplyException;
import org.rpcrdma4j.nfs.client.WriteReply;
import org.rpcrdma4j.nfs.v4.Bitmap4;
import org.rpcrdma4j.nfs.v4.Fattr4;
import org.rpcrdma4j.nfs.v4.Fattr4Decoded;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Status;

/**
 * The NFSv4.1 operations as asynchronous calls over an {@link Nfs41Session}, shaped like the NFSv3
 * {@link org.rpcrdma4j.nfs.client.NfsAsyncClient}: the same argument and result types where NFSv4 allows, one COMPOUND
 * per call. Each future completes with the result, or exceptionally with an {@link Nfs4StatusException} (the server
 * answered an error; it is an {@link org.rpcrdma4j.nfs.NfsException}, with the NFSv3 status of the same number where
 * there is one) or an {@link org.rpcrdma4j.nfs.client.RpcCallException} (no usable answer; a reply that does not
 * decode is an {@link RpcBadReplyException}). Futures complete on the session's threads. Thread-safe; calls may be
 * in flight together, up to the session's slots (more wait for a slot).
 *
 * <h2>Mapping from NFSv3</h2>
 * <ul>
 * <li>{@link #create} is OPEN with create (UNCHECKED4, GUARDED4, or EXCLUSIVE4_1 for {@link CreateMode#EXCLUSIVE});
 * the file stays open for the client's next READs and WRITEs (see below).</li>
 * <li>{@link #remove} and {@link #rmdir} are both REMOVE; {@link #mkdir}, {@link #symlink} and {@link #mknod} are
 * CREATE; {@link #readdirplus} is {@link #readdir} (NFSv4's READDIR returns attributes and handles).</li>
 * <li>{@link #fsstat}, {@link #fsinfo} and {@link #pathconf} are GETATTRs of the {@code space_*}/{@code files_*},
 * {@code maxread}/{@code maxwrite}/{@code maxfilesize}/..., and {@code maxlink}/{@code maxname}/... attributes.</li>
 * <li>{@link #setattr} with a ctime guard has no NFSv4 SETATTR equivalent: NFS4ERR_NOTSUPP.</li>
 * <li>{@link #read} and {@link #write} return no attributes (the data is the COMPOUND's last item).</li>
 * </ul>
 *
 * <h2>Opens</h2>
 * READ and WRITE need an open: the first READ or WRITE of a file opens it by handle (for reading, for writing, or
 * upgraded to both), later ones reuse it; it is closed after {@link Nfs41Options#openIdleTimeout()} without I/O, by
 * {@link #close(FileHandle)}, or when the client closes. Setting the size uses the open when the file is open for
 * writing, else the anonymous stateid.
 *
 * <h2>Data</h2>
 * {@link #read} places data into the caller's {@link ByteBuf} and {@link #write} sends the caller's; over RDMA these
 * are a Write chunk and a Read chunk over that memory, without a copy when it is the transport's registered memory
 * ({@link Nfs41Client#allocateBuffer}).
 */
public final class Nfs41AsyncClient implements NfsAsyncMount {
    /** What the client asks of every object: enough for {@link FileAttributes}. */
    static final Bitmap4 ATTRS = Bitmap4.of(Fattr4.FATTR4_TYPE, Fattr4.FATTR4_CHANGE, Fattr4.FATTR4_SIZE,
            Fattr4.FATTR4_FSID, Fattr4.FATTR4_FILEID, Fattr4.FATTR4_MODE, Fattr4.FATTR4_NUMLINKS,
            Fattr4.FATTR4_OWNER, Fattr4.FATTR4_OWNER_GROUP, Fattr4.FATTR4_RAWDEV, Fattr4.FATTR4_SPACE_USED,
            Fattr4.FATTR4_TIME_ACCESS, Fattr4.FATTR4_TIME_METADATA, Fattr4.FATTR4_TIME_MODIFY).freeze();
    /** A directory entry's: the object's attributes, its handle, and the error that kept them from it. */
    static final Bitmap4 ENTRY_ATTRS = ATTRS.or(Bitmap4.of(Fattr4.FATTR4_FILEHANDLE, Fattr4.FATTR4_RDATTR_ERROR,
            Fattr4.FATTR4_MOUNTED_ON_FILEID)).freeze();
    static final Bitmap4 FSSTAT_ATTRS = Bitmap4.of(Fattr4.FATTR4_FILES_AVAIL, Fattr4.FATTR4_FILES_FREE,
            Fattr4.FATTR4_FILES_TOTAL, Fattr4.FATTR4_SPACE_AVAIL, Fattr4.FATTR4_SPACE_FREE,
            Fattr4.FATTR4_SPACE_TOTAL).freeze();
    static final Bitmap4 FSINFO_ATTRS = Bitmap4.of(Fattr4.FATTR4_MAXREAD, Fattr4.FATTR4_MAXWRITE,
            Fattr4.FATTR4_MAXFILESIZE, Fattr4.FATTR4_TIME_DELTA, Fattr4.FATTR4_LINK_SUPPORT,
            Fattr4.FATTR4_SYMLINK_SUPPORT, Fattr4.FATTR4_HOMOGENEOUS, Fattr4.FATTR4_CANSETTIME).freeze();
    static final Bitmap4 PATHCONF_ATTRS = Bitmap4.of(Fattr4.FATTR4_MAXLINK, Fattr4.FATTR4_MAXNAME,
            Fattr4.FATTR4_NO_TRUNC, Fattr4.FATTR4_CHOWN_RESTRICTED, Fattr4.FATTR4_CASE_INSENSITIVE,
            Fattr4.FATTR4_CASE_PRESERVING).freeze();

    /** A lock's length to the end of the file, however it grows (all ones). */
    public static final long TO_END = -1L;

    private final Nfs41Session session;
    private final OpenFiles files;
    private final FileLocks locks;

    /** A client over {@code session} (borrowed), managing its opens. */
    public Nfs41AsyncClient(Nfs41Session session) {
        this.session = session;
        this.files = new OpenFiles(session, session.openIdleNanos());
        this.locks = new FileLocks(session, files);
        session.stateRecovery(files);
    }

    public Nfs41Session session() {
        return session;
    }

    OpenFiles files() {
        return files;
    }

    // ============================================================================================= plumbing

    @FunctionalInterface
    private interface ResultMapper<T> {
        T apply(CompoundRes r) throws Exception;
    }

    /** Sends {@code c}; an error status becomes an {@link Nfs4StatusException}, a bad result a bad reply. */
    private <T> CallbackFuture<T> call(Compound c, ResultMapper<T> map) {
        return session.call(c).thenApplyInline(r -> { // decoding only: on the thread that completed the call
            try {
                r.check();
                return map.apply(r);
            } catch (Nfs4StatusException | RpcBadReplyException e) {
                throw new CompletionException(e);
            } catch (Exception e) {
                throw new CompletionException(new RpcBadReplyException("the reply to " + c.tag
                        + " does not make sense: " + e.getMessage(), e));
            }
        });
    }

    /**
     * {@code f} as a future whose stages, registered while it is pending, run on the session's executor, as those of
     * {@link #call} do: a future composed from a call's completes where the call did, which may be the thread that took
     * the reply off the connection.
     */
    private <T> CallbackFuture<T> offTransport(CompletableFuture<T> f) {
        return f instanceof CallbackFuture<T> ours ? ours
                : CallbackFuture.following(f, session.executor(), session.transport().replySpin());
    }

    private static FileAttributes attributes(Fattr4Decoded d) throws RpcBadReplyException {
        if (d == null) {
            return null;
        }
        if (d.type() == null) {
            throw new RpcBadReplyException("the server left out the type attribute", null);
        }
        return d.toFileAttributes();
    }

    private static <T> CompletableFuture<T> refused(int status, int op, String why) {
        return CompletableFuture.failedFuture(new Nfs4StatusException(status, op, why));
    }

    private static String checkName(String name) {
        if (name == null || name.isEmpty() || name.indexOf('/') >= 0 || name.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("not a file name: \"" + name + "\"");
        }
        return name;
    }

    // ============================================================================================ operations

    /** The NULL procedure: a round trip without a session. */
    public CompletableFuture<Void> ping() {
        return session.transport().call(Nfs4.PROGRAM, Nfs4.VERSION, Nfs4.PROC_NULL, XdrVoid.XDR_VOID,
                XdrVoid.XDR_VOID).thenApply(v -> null);
    }

    /** The root of the server's name space (PUTROOTFH), with its attributes. */
    public CompletableFuture<NfsObject> rootObject() {
        return call(new Compound("lookup_root").putrootfh().getfh().getattr(ATTRS),
                r -> new NfsObject(r.result(1), attributes(r.result(2))));
    }

    public CompletableFuture<FileAttributes> getattr(FileHandle fh) {
        return call(new Compound("getattr").putfh(fh).getattr(ATTRS), r -> attributes(r.result(1)));
    }

    /** GETATTR of any attributes the client can decode ({@link Fattr4#CLIENT_DECODABLE}), as NFSv4 has them. */
    public CompletableFuture<Fattr4Decoded> getattr(FileHandle fh, Bitmap4 attributes) {
        Bitmap4 unknown = attributes.andNot(Fattr4.CLIENT_DECODABLE);
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("attributes this client cannot decode: " + unknown);
        }
        return call(new Compound("getattr").putfh(fh).getattr(attributes), r -> r.result(1));
    }

    /**
     * SETATTR, then GETATTR: the attributes afterwards. A size change uses the client's open of the file when it is
     * open for writing, else the anonymous stateid. A ctime guard is NFS4ERR_NOTSUPP (NFSv4 SETATTR has none).
     */
    public CompletableFuture<FileAttributes> setattr(FileHandle fh, SetAttributes attributes, NfsTime guardCtime) {
        if (guardCtime != null) {
            return refused(Nfs4Status.NFS4ERR_NOTSUPP, Nfs4.OP_SETATTR, "NFSv4 SETATTR has no ctime guard");
        }
        StateidSource state = attributes.size() != null ? files.writeStateOf(fh) : StateidSource.ANONYMOUS;
        return call(new Compound("setattr").putfh(fh).add(new Ops.SetAttr(state, attributes)).getattr(ATTRS),
                r -> attributes(r.result(2)));
    }

    public CompletableFuture<FileAttributes> setattr(FileHandle fh, SetAttributes attributes) {
        return setattr(fh, attributes, null);
    }

    /** LOOKUP of {@code name} in {@code dir}: its handle and attributes; "." is {@code dir}, ".." LOOKUPP. */
    public CompletableFuture<NfsObject> lookup(FileHandle dir, String name) {
        Compound c = new Compound("lookup").putfh(dir);
        if ("..".equals(name)) {
            c.add(new Ops.Plain(Nfs4.OP_LOOKUPP));
        } else if (!".".equals(name)) {
            c.lookup(checkName(name));
        }
        c.getfh().getattr(ATTRS);
        int at = c.size() - 2;
        return call(c, r -> new NfsObject(r.result(at), attributes(r.result(at + 1))));
    }

    /**
     * LOOKUPs of {@code names} one after the other from {@code from}, in as few COMPOUNDs as the session's operation
     * limit allows: the last one's handle and attributes.
     */
    public CompletableFuture<NfsObject> lookupPath(FileHandle from, List<String> names) {
        int perCompound = Math.max(1, session.maxOperations() - 4);
        List<String> first = names.subList(0, Math.min(names.size(), perCompound));
        Compound c = new Compound("lookup").putfh(from);
        for (String n : first) {
            if ("..".equals(n)) {
                c.add(new Ops.Plain(Nfs4.OP_LOOKUPP));
            } else if (!".".equals(n)) {
                c.lookup(checkName(n));
            }
        }
        c.getfh().getattr(ATTRS);
        int at = c.size() - 2;
        CallbackFuture<NfsObject> f = call(c, r -> new NfsObject(r.result(at), attributes(r.result(at + 1))));
        if (first.size() == names.size()) {
            return f;
        }
        List<String> rest = new ArrayList<>(names.subList(first.size(), names.size()));
        return f.thenCompose(o -> lookupPath(o.handle(), rest)); // keeps stages off the transport's thread itself
    }

    /** LOOKUPP: the parent directory of {@code dir}. */
    public CompletableFuture<NfsObject> lookupParent(FileHandle dir) {
        return lookup(dir, "..");
    }

    /** ACCESS: which of the {@link org.rpcrdma4j.nfs.Access} bits asked for are granted (NFSv4 has the same bits). */
    public CompletableFuture<Integer> access(FileHandle fh, int bits) {
        return call(new Compound("access").putfh(fh).add(new Ops.Access(bits)),
                r -> r.<Ops.AccessOk>result(1).access());
    }

    public CompletableFuture<String> readlink(FileHandle fh) {
        return call(new Compound("readlink").putfh(fh).add(new Ops.Readlink()), r -> r.result(1));
    }

    /**
     * READ of up to {@code dst.writableBytes()} bytes (at most {@link Nfs41Session#maxReadSize()}) at
     * {@code offset}, placed at {@code dst.writerIndex()}, which advances by the count. Borrows {@code dst} until the
     * future completes. Opens the file for reading first if the client has no open of it.
     */
    public CompletableFuture<ReadReply> read(FileHandle fh, long offset, ByteBuf dst) {
        int count = Math.min(dst.writableBytes(), session.maxReadSize());
        return offTransport(files.acquire(fh, OpenFiles.READ).thenCompose(e -> {
            ByteBuf sink = sinkFor(dst, count);
            int before = sink.writerIndex();
            Compound c = new Compound("read").putfh(fh).add(new Ops.Read(e, offset, count, sink))
                    .onStaleState(() -> files.reopen(e));
            CallbackFuture<ReadReply> read = call(c, r -> {
                Ops.ReadOk ok = r.result(1);
                if (sink != dst) {
                    dst.writerIndex(dst.writerIndex() + (sink.writerIndex() - before));
                }
                return new ReadReply(ok.count(), ok.eof(), null);
            });
            read.whenCompleteInline((v, x) -> files.release(e));
            return read;
        }));
    }

    /**
     * Where READ data goes: {@code dst} itself, or, when it has more room than the READ asks and is not the RDMA
     * transport's registered memory, a view of exactly {@code count} bytes of it (a Write chunk is as large as the
     * sink's room).
     */
    private ByteBuf sinkFor(ByteBuf dst, int count) {
        if (dst.writableBytes() == count || isRegistered(dst)) {
            return dst;
        }
        return dst.slice(dst.writerIndex(), count).clear();
    }

    private boolean isRegistered(ByteBuf b) {
        return session.transport().movesWithoutCopy(b);
    }

    /**
     * WRITE of the readable bytes of {@code src} at {@code offset} (at most {@link Nfs41Session#maxWriteSize()}: a
     * larger buffer is written in part, which {@link WriteReply#count()} tells). Borrows {@code src} (indexes
     * untouched, content unchanged) until the future completes. Opens the file for writing first if the client has
     * no such open of it.
     */
    public CompletableFuture<WriteReply> write(FileHandle fh, long offset, ByteBuf src, StableHow stable) {
        int max = session.maxWriteSize();
        ByteBuf data = src.readableBytes() <= max ? src : src.slice(src.readerIndex(), max);
        return onOpen("write", fh, OpenFiles.WRITE, e -> new Ops.Write(e, offset, stable, data), r -> {
            Ops.WriteOk ok = r.result(1);
            return new WriteReply(ok.count(), ok.committed(), ok.verifier(), null);
        });
    }

    /**
     * PUTFH {@code fh} and the operation {@code op} makes with the stateid of the client's open of it for
     * {@code access} (opened first if need be, given back after); on a refused stateid, the open is made again.
     */
    private <T> CompletableFuture<T> onOpen(String tag, FileHandle fh, int access,
                                            java.util.function.Function<OpenFiles.Entry, Op> op,
                                            ResultMapper<T> result) {
        return offTransport(files.acquire(fh, access).thenCompose(e -> {
            Compound c = new Compound(tag).putfh(fh).add(op.apply(e)).onStaleState(() -> files.reopen(e));
            CallbackFuture<T> done = call(c, result);
            done.whenCompleteInline((v, x) -> files.release(e));
            return done;
        }));
    }

    /** COMMIT of {@code count} bytes at {@code offset} (0, 0: the whole file); returns the write verifier. */
    public CompletableFuture<Long> commit(FileHandle fh, long offset, long count) {
        if (count < 0 || count > 0xFFFFFFFFL) {
            throw new IllegalArgumentException("count out of range: " + count);
        }
        return call(new Compound("commit").putfh(fh).add(new Ops.Commit(offset, (int) count)), r -> r.result(1));
    }

    /**
     * OPEN with create of {@code name} in {@code dir}, for reading and writing: UNCHECKED4 (exists: opened, the
     * attributes applied), GUARDED4 (exists: NFS4ERR_EXIST), or EXCLUSIVE4_1 with {@code verifier} (a retry of the
     * same create succeeds). The file stays open for the client's I/O.
     */
    public CompletableFuture<NfsObject> create(FileHandle dir, String name, CreateMode mode, SetAttributes attributes,
                                               long verifier) {
        int how = switch (mode) {
            case UNCHECKED -> Nfs4Ops.UNCHECKED4;
            case GUARDED -> Nfs4Ops.GUARDED4;
            case EXCLUSIVE -> Nfs4Ops.EXCLUSIVE4_1;
        };
        Ops.Open open = Ops.Open.create(Nfs4Ops.SHARE_ACCESS_BOTH, files.owner(), how, attributes, verifier,
                checkName(name));
        return opened(new Compound("open").putfh(dir).add(open).getfh().getattr(ATTRS),
                Nfs4Ops.SHARE_ACCESS_BOTH);
    }

    /**
     * OPEN without create of {@code name} in {@code dir} (CLAIM_NULL), for reading, or reading and writing: its
     * handle and attributes, in one round trip. The file stays open for the client's I/O.
     */
    public CompletableFuture<NfsObject> open(FileHandle dir, String name, boolean write) {
        int access = write ? Nfs4Ops.SHARE_ACCESS_BOTH : Nfs4Ops.SHARE_ACCESS_READ;
        return opened(new Compound("open").putfh(dir).add(Ops.Open.byName(access, files.owner(), checkName(name)))
                .getfh().getattr(ATTRS), access);
    }

    private CompletableFuture<NfsObject> opened(Compound c, int access) {
        return call(c, r -> {
            FileHandle fh = r.result(2);
            files.opened(fh, r.result(1), access);
            return new NfsObject(fh, attributes(r.result(3)));
        });
    }

    /** CLOSE of the client's open of {@code fh}, once the I/O using it is done; nothing when it is not open. */
    public CompletableFuture<Void> close(FileHandle fh) {
        return files.close(fh);
    }

    /**
     * LOCK: a byte-range lock of {@code length} bytes at {@code offset} ({@link #TO_END}: to the end of the file,
     * however it grows) for this client, whose locks all belong to one lock owner (see {@link FileLocks}). Advisory:
     * it keeps other owners' locks out of those bytes, not their I/O. Opens the file first if the client has no open
     * of it with the access the type needs. Bytes the client already holds take the new type. Fails with a
     * {@link LockDeniedException} naming the lock in the way when another owner holds a conflicting one (it does not
     * wait); with {@link LocksLostException} when the file's earlier locks were lost in a recovery. The lock lasts
     * until {@link #unlock}, the CLOSE of the file, or the end of the client.
     */
    public CompletableFuture<Void> lock(FileHandle fh, LockType type, long offset, long length) {
        return offTransport(locks.lock(fh, type, offset, length));
    }

    /**
     * {@link #lock}, waiting up to {@code patience} for the locks in the way to go: a denied request is sent again
     * (as a waiting one) after pauses growing from 20 ms to 1 s, as Linux's client polls for a blocking lock. Fails
     * with the last {@link LockDeniedException} when the time is up.
     */
    public CompletableFuture<Void> lock(FileHandle fh, LockType type, long offset, long length, Duration patience) {
        return offTransport(locks.lockWaiting(fh, type, offset, length, patience));
    }

    /** LOCKU of the bytes given; what the client did not hold there stays unheld. Nothing when the file is not open. */
    public CompletableFuture<Void> unlock(FileHandle fh, long offset, long length) {
        return offTransport(locks.unlock(fh, offset, length));
    }

    /** LOCKT: the lock that would keep this client from locking the bytes given, if any. Needs no open. */
    public CompletableFuture<Optional<LockConflict>> testLock(FileHandle fh, LockType type, long offset, long length) {
        return offTransport(locks.test(fh, type, offset, length));
    }

    // ============================================================================ NFSv4.2: space and copies

    /**
     * ALLOCATE (NFSv4.2): storage for {@code length} bytes from {@code offset}, so that writes there do not fail for
     * lack of space; holes in the range read as zeros, and a shorter file grows to the range's end (as fallocate(2)
     * with mode 0 on the server). Opens the file for writing first if the client has no such open.
     */
    public CompletableFuture<Void> allocate(FileHandle fh, long offset, long length) {
        return extent(Nfs4.OP_ALLOCATE, "allocate", fh, offset, length);
    }

    /**
     * DEALLOCATE (NFSv4.2): punches a hole of {@code length} bytes from {@code offset}: they read as zeros, the server
     * may free their storage, and the size stays. Opens the file for writing first if the client has no such open.
     */
    public CompletableFuture<Void> deallocate(FileHandle fh, long offset, long length) {
        return extent(Nfs4.OP_DEALLOCATE, "deallocate", fh, offset, length);
    }

    private CompletableFuture<Void> extent(int op, String tag, FileHandle fh, long offset, long length) {
        if (offset < 0 || length <= 0 || offset > Long.MAX_VALUE - length) {
            throw new IllegalArgumentException("not a range: offset " + offset + ", length " + length);
        }
        CompletableFuture<Void> refusal = needsMinorVersion2(op);
        if (refusal != null) {
            return refusal;
        }
        return onOpen(tag, fh, OpenFiles.WRITE, e -> new Nfs42Ops.Extent(op, e, offset, length), r -> null);
    }

    /**
     * SEEK (NFSv4.2): where the next data or hole begins at or after {@code offset}, as lseek(2)'s SEEK_DATA and
     * SEEK_HOLE. An offset at or beyond the end of the file, and data asked for in the hole that ends it, fail with
     * NFS4ERR_NXIO (as lseek fails with ENXIO). Opens the file for reading first if the client has no open of it.
     */
    public CompletableFuture<SeekReply> seek(FileHandle fh, long offset, SeekReply.Content what) {
        if (offset < 0) {
            throw new IllegalArgumentException("negative offset " + offset);
        }
        CompletableFuture<SeekReply> refusal = needsMinorVersion2(Nfs4.OP_SEEK);
        if (refusal != null) {
            return refusal;
        }
        return onOpen("seek", fh, OpenFiles.READ, e -> new Nfs42Ops.Seek(e, offset, what), r -> r.result(1));
    }

    /**
     * One COPY (NFSv4.2) within the server, done before it answers: up to {@code count} bytes of {@code src} from
     * {@code srcOffset} to {@code dst} at {@code dstOffset} (a {@code count} of 0: to the end of the source). The
     * server may copy fewer, as {@link CopyReply#count()} tells; {@link Nfs41Client#copy} asks again for the rest.
     * Both files must be of one export of the server. Opens the source for reading and the destination for writing
     * first if the client has no such opens.
     */
    public CompletableFuture<CopyReply> copy(FileHandle src, long srcOffset, FileHandle dst, long dstOffset,
                                             long count) {
        if (srcOffset < 0 || dstOffset < 0 || count < 0) {
            throw new IllegalArgumentException("negative offset or count: " + srcOffset + ", " + dstOffset + ", "
                    + count);
        }
        CompletableFuture<CopyReply> refusal = needsMinorVersion2(Nfs4.OP_COPY);
        if (refusal != null) {
            return refusal;
        }
        return betweenFiles("copy", src, dst, (from, to) -> new Nfs42Ops.Copy(from, to, srcOffset, dstOffset, count),
                r -> r.result(3));
    }

    /**
     * CLONE (NFSv4.2): {@code count} bytes of {@code dst} from {@code dstOffset} come to share the storage of
     * {@code src}'s from {@code srcOffset} (a {@code count} of 0: to the end of the source), all or none, as
     * {@code cp --reflink} asks of a local file system. A server whose file system cannot share storage answers
     * NFS4ERR_NOTSUPP; copy then. Opens the source for reading and the destination for writing first if the client
     * has no such opens.
     */
    public CompletableFuture<Void> clone(FileHandle src, long srcOffset, FileHandle dst, long dstOffset, long count) {
        if (srcOffset < 0 || dstOffset < 0 || count < 0) {
            throw new IllegalArgumentException("negative offset or count: " + srcOffset + ", " + dstOffset + ", "
                    + count);
        }
        CompletableFuture<Void> refusal = needsMinorVersion2(Nfs4.OP_CLONE);
        if (refusal != null) {
            return refusal;
        }
        return betweenFiles("clone", src, dst, (from, to) -> new Nfs42Ops.Clone(from, to, srcOffset, dstOffset,
                count), r -> null);
    }

    /**
     * PUTFH {@code src}, SAVEFH, PUTFH {@code dst} and the operation {@code op} makes with the stateids of the
     * source's open for reading and the destination's for writing (opened first if need be, and given back after).
     */
    private <T> CompletableFuture<T> betweenFiles(String tag, FileHandle src, FileHandle dst,
            java.util.function.BiFunction<OpenFiles.Entry, OpenFiles.Entry, Op> op, ResultMapper<T> result) {
        return offTransport(files.acquire(src, OpenFiles.READ).thenCompose(from -> {
            CompletableFuture<T> done = files.acquire(dst, OpenFiles.WRITE).thenCompose(to -> {
                Compound c = new Compound(tag).putfh(src).savefh().putfh(dst).add(op.apply(from, to))
                        .onStaleState(() -> from == to ? files.reopen(to)
                                : files.reopen(from).thenCompose(v -> files.reopen(to)));
                CallbackFuture<T> one = call(c, result);
                one.whenCompleteInline((v, x) -> files.release(to));
                return one;
            });
            done.whenComplete((v, x) -> files.release(from));
            return done;
        }));
    }

    /** A failed future when the session's minor version lacks {@code op} (an NFSv4.2 operation); else null. */
    private <T> CompletableFuture<T> needsMinorVersion2(int op) {
        int minor = session.minorVersion();
        return minor >= 2 ? null : refused(Nfs4Status.NFS4ERR_NOTSUPP, op,
                Nfs4Ops.name(op) + " is an NFSv4.2 operation; this mount speaks NFSv4." + minor);
    }

    /** Delegations the server granted unasked (this client asks for none) and the client returned. */
    public long delegationsReturned() {
        return files.delegationsReturned();
    }

    /** Whether the client holds an open of {@code fh}. */
    public boolean isOpen(FileHandle fh) {
        return files.isOpen(fh);
    }

    /** How many files the client holds open. */
    public int openFiles() {
        return files.size();
    }

    public CompletableFuture<NfsObject> mkdir(FileHandle dir, String name, SetAttributes attributes) {
        return made(dir, new Ops.Create(Nfs4Ops.NF4DIR, null, 0, 0, checkName(name), attributes));
    }

    public CompletableFuture<NfsObject> symlink(FileHandle dir, String name, String target,
                                                SetAttributes attributes) {
        return made(dir, new Ops.Create(Nfs4Ops.NF4LNK, target, 0, 0, checkName(name), attributes));
    }

    /**
     * CREATE of a device, socket or FIFO. Regular files, directories and links have their own calls: for them this is
     * NFS4ERR_BADTYPE without a round trip.
     */
    public CompletableFuture<NfsObject> mknod(FileHandle dir, String name, FileType type, SetAttributes attributes,
                                              int major, int minor) {
        int t = switch (type) {
            case BLOCK_DEVICE -> Nfs4Ops.NF4BLK;
            case CHAR_DEVICE -> Nfs4Ops.NF4CHR;
            case SOCKET -> Nfs4Ops.NF4SOCK;
            case FIFO -> Nfs4Ops.NF4FIFO;
            default -> -1;
        };
        if (t < 0) {
            return refused(Nfs4Status.NFS4ERR_BADTYPE, Nfs4.OP_CREATE, "mknod of " + type);
        }
        return made(dir, new Ops.Create(t, null, major, minor, checkName(name), attributes));
    }

    private CompletableFuture<NfsObject> made(FileHandle dir, Ops.Create create) {
        return call(new Compound("create").putfh(dir).add(create).getfh().getattr(ATTRS),
                r -> new NfsObject(r.result(2), attributes(r.result(3))));
    }

    /** REMOVE of a file (or any other object) in {@code dir}. */
    public CompletableFuture<Void> remove(FileHandle dir, String name) {
        return call(new Compound("remove").putfh(dir).add(new Ops.NameOp(Nfs4.OP_REMOVE, checkName(name))),
                r -> null);
    }

    /** REMOVE of a directory: the same operation as {@link #remove} in NFSv4 (the server checks it is empty). */
    public CompletableFuture<Void> rmdir(FileHandle dir, String name) {
        return remove(dir, name);
    }

    public CompletableFuture<Void> rename(FileHandle fromDir, String fromName, FileHandle toDir, String toName) {
        return call(new Compound("rename").putfh(fromDir).savefh().putfh(toDir)
                .add(new Ops.Rename(checkName(fromName), checkName(toName))), r -> null);
    }

    /** LINK: a hard link {@code name} in {@code dir} to {@code file}. */
    public CompletableFuture<Void> link(FileHandle file, FileHandle dir, String name) {
        return call(new Compound("link").putfh(file).savefh().putfh(dir)
                .add(new Ops.NameOp(Nfs4.OP_LINK, checkName(name))), r -> null);
    }

    /**
     * READDIR from {@code cookie} (0 and verifier 0 to start), a reply of at most {@code count} bytes (also capped by
     * the session and, over RDMA, by the transport's reply chunk). Entries come with their attributes and handles;
     * the directory's attributes too. An entry the server could not get attributes for has none.
     */
    public CompletableFuture<DirListing> readdir(FileHandle dir, long cookie, long cookieVerifier, int count) {
        int max = Math.max(512, Math.min(count, session.maxUnboundedReply()));
        Compound c = new Compound("readdir").putfh(dir).getattr(ATTRS)
                .add(new Ops.Readdir(cookie, cookieVerifier, max, max, ENTRY_ATTRS));
        return call(c, r -> {
            Ops.ReaddirOk ok = r.result(2);
            List<DirEntry> entries = new ArrayList<>(ok.entries().size());
            for (Ops.RawEntry e : ok.entries()) {
                entries.add(entry(e));
            }
            return new DirListing(entries, ok.eof(), ok.verifier(), attributes(r.result(1)));
        });
    }

    private static DirEntry entry(Ops.RawEntry e) {
        Fattr4Decoded a = e.attributes();
        boolean usable = a.type() != null && (a.rdattrError() == null || a.rdattrError() == 0);
        FileAttributes attrs = usable ? a.toFileAttributes() : null;
        FileHandle fh = null;
        byte[] raw = a.fileHandle();
        if (raw != null && raw.length > 0 && raw.length <= FileHandle.MAX_SIZE) {
            fh = FileHandle.of(raw);
        }
        long fileid = a.fileid() != null ? a.fileid() : a.mountedOnFileid() != null ? a.mountedOnFileid() : 0;
        return new DirEntry(fileid, e.name(), e.cookie(), attrs, fh);
    }

    /** {@link #readdir} with {@code maxCount} as the reply size (NFSv4's READDIR is READDIRPLUS already). */
    public CompletableFuture<DirListing> readdirplus(FileHandle dir, long cookie, long cookieVerifier, int dirCount,
                                                     int maxCount) {
        return readdir(dir, cookie, cookieVerifier, maxCount);
    }

    /** The space and file counts ({@code space_*}, {@code files_*}); NFS4ERR_ATTRNOTSUPP when the server has none. */
    public CompletableFuture<FsStat> fsstat(FileHandle fh) {
        return call(new Compound("fsstat").putfh(fh).getattr(FSSTAT_ATTRS), r -> {
            FsStat s = r.<Fattr4Decoded>result(1).toFsStat();
            if (s == null) {
                throw new Nfs4StatusException(Nfs4Status.NFS4ERR_ATTRNOTSUPP, Nfs4.OP_GETATTR,
                        "the server returned no space and file counts");
            }
            return s;
        });
    }

    /**
     * FSINFO from attributes: {@code maxread} and {@code maxwrite} (within what the session carries),
     * {@code maxfilesize}, {@code time_delta}, and the link, symlink, homogeneous and cansettime properties.
     */
    public CompletableFuture<FsInfo> fsinfo(FileHandle fh) {
        return call(new Compound("fsinfo").putfh(fh).getattr(FSINFO_ATTRS), r -> {
            Fattr4Decoded a = r.result(1);
            int rtmax = clamp(a.maxRead(), session.maxReadSize());
            int wtmax = clamp(a.maxWrite(), session.maxWriteSize());
            int props = (Boolean.TRUE.equals(a.linkSupport()) ? FsInfo.FSF3_LINK : 0)
                    | (Boolean.TRUE.equals(a.symlinkSupport()) ? FsInfo.FSF3_SYMLINK : 0)
                    | (!Boolean.FALSE.equals(a.homogeneous()) ? FsInfo.FSF3_HOMOGENEOUS : 0)
                    | (Boolean.TRUE.equals(a.cansettime()) ? FsInfo.FSF3_CANSETTIME : 0);
            long maxFile = a.maxFileSize() == null || a.maxFileSize() < 0 ? Long.MAX_VALUE : a.maxFileSize();
            return new FsInfo(rtmax, rtmax, 4096, wtmax, wtmax, 4096, session.maxUnboundedReply(), maxFile,
                    a.timeDelta() == null ? NfsTime.ZERO : a.timeDelta(), props);
        });
    }

    private static int clamp(Long attribute, int session) {
        if (attribute == null || attribute <= 0) {
            return session;
        }
        return (int) Math.min(attribute, session);
    }

    /** PATHCONF from attributes: {@code maxlink}, {@code maxname}, {@code no_trunc}, and the case and chown ones. */
    public CompletableFuture<PathConf> pathconf(FileHandle fh) {
        return call(new Compound("pathconf").putfh(fh).getattr(PATHCONF_ATTRS), r -> {
            Fattr4Decoded a = r.result(1);
            return new PathConf(a.maxLink() == null ? 1 : a.maxLink(), a.maxName() == null ? 255 : a.maxName(),
                    !Boolean.FALSE.equals(a.noTrunc()), !Boolean.FALSE.equals(a.chownRestricted()),
                    Boolean.TRUE.equals(a.caseInsensitive()), !Boolean.FALSE.equals(a.casePreserving()));
        });
    }

    /** Closes every open of the client (the session stays). */
    public CompletableFuture<Void> closeAll() {
        return files.closeAll();
    }
}
