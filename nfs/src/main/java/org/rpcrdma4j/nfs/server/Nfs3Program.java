package org.rpcrdma4j.nfs.server;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.rpcrdma4j.nfs.DirEntry;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.FsInfo;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.NfsTime;
import org.rpcrdma4j.nfs.PathConf;
import org.rpcrdma4j.nfs.WccData;
import org.rpcrdma4j.nfs.server.ExportTable.Target;
import org.rpcrdma4j.nfs.vfs.Created;
import org.rpcrdma4j.nfs.vfs.DirectoryPage;
import org.rpcrdma4j.nfs.vfs.LentRange;
import org.rpcrdma4j.nfs.vfs.ReadResult;
import org.rpcrdma4j.nfs.vfs.Vfs;
import org.rpcrdma4j.nfs.vfs.VfsNames;
import org.rpcrdma4j.nfs.NfsObject;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.vfs.WriteResult;
import org.rpcrdma4j.nfs.xdr.*;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NFS version 3 program (RFC 1813) over {@link Vfs} exports, as an oncrpc4j {@link RpcDispatchable}: the same
 * object is served over TCP by {@code OncRpcSvc} and over RDMA by the RDMA server.
 * <p>
 * Arguments that do not decode are {@code GARBAGE_ARGS}; everything else is answered with an {@code nfsstat3} (a
 * VFS's {@link NfsException}, or {@code NFS3ERR_SERVERFAULT} for a bug). READ data goes from the VFS into a
 * {@link ReadBufferAllocator} buffer and from there, by reference, into the reply. WRITE data is offered to the VFS
 * to keep where it arrived ({@link WriteMemorySource}) before it is copied. A directory's {@code wcc_data}
 * carries its attributes before and after a change made under its hold ({@link DirectoryChanges}), so a client that
 * sees its cached attributes in the ones before knows its change is the only one; other objects' carries the attributes
 * after. MKNOD makes FIFOs, sockets and (for root) devices where the VFS can; LINK is where the export's VFS makes hard
 * links ({@link Vfs#linkMax()} above 1: FSINFO then claims {@code FSF3_LINK}, and PATHCONF's {@code linkmax} is
 * that), {@code NFS3ERR_NOTSUPP} elsewhere, and {@code NFS3ERR_XDEV} between two exports.
 * <p>
 * Every procedure checks the caller's permission as Linux's server does ({@link Permissions}, {@link TargetChecks}),
 * from its AUTH_SYS identity squashed as its host's grant says ({@link Caller}), and ACCESS answers from the same
 * ({@link AccessRights}); what a caller that is not root makes is its own where the VFS can give objects away. Which
 * hosts may use an export, and which of them may change it, follows its {@link ExportClients}: a handle of an export
 * not open to the caller's host is {@code NFS3ERR_STALE}, and a host no export is open to gets AUTH_ERROR for every
 * call but NULL, as from Linux's server.
 */
public final class Nfs3Program implements RpcDispatchable {
    private static final Logger LOG = LoggerFactory.getLogger(Nfs3Program.class);

    private final ExportTable exports;
    private final ServerLimits limits;
    private final ReadBufferAllocator readBuffers;
    private final WriteMemorySource writeMemory;

    public Nfs3Program(ExportTable exports, ServerLimits limits, ReadBufferAllocator readBuffers) {
        this(exports, limits, readBuffers, WriteMemorySource.NONE);
    }

    public Nfs3Program(ExportTable exports, ServerLimits limits, ReadBufferAllocator readBuffers,
                       WriteMemorySource writeMemory) {
        this.exports = exports;
        this.limits = limits;
        this.readBuffers = readBuffers;
        this.writeMemory = writeMemory;
    }

    /** What a procedure does with the VFS; an {@link NfsException} becomes the reply's status. */
    @FunctionalInterface
    private interface Op {
        void run() throws NfsException;
    }

    /** Runs {@code op} and returns the status for its reply. */
    private static int run(String what, Op op) {
        try {
            op.run();
            return Nfs3Status.NFS3_OK.wireValue();
        } catch (NfsException e) {
            LOG.debug("{}: {}", what, e.getMessage());
            return e.wireValue();
        } catch (RuntimeException e) {
            LOG.error("{} failed", what, e);
            return Nfs3Status.NFS3ERR_SERVERFAULT.wireValue();
        }
    }

    private static <T extends XdrAble> T decode(RpcCall call, T args) throws OncRpcException, IOException {
        try {
            call.retrieveCall(args);
            return args;
        } catch (RuntimeException e) {
            throw new BadXdrException("arguments do not decode: " + e);
        }
    }

    /** What a handle names, for the host that sent {@code call}; NFS3ERR_STALE when its export is not open to it. */
    private Target target(RpcCall call, FileHandle wire) throws NfsException {
        return exports.resolve(wire, call);
    }

    private static void writable(Target t) throws NfsException {
        if (t.readOnly()) {
            throw new NfsException(Nfs3Status.NFS3ERR_ROFS, t.export().readOnly() ? "read-only export"
                    : "export open to this host read-only");
        }
    }

    /** As whom {@code call} acts in {@code t}'s export. */
    private static Caller caller(RpcCall call, Target t) {
        return Caller.of(call, t.grant());
    }

    /** Attributes after an operation, or null when they cannot be had. */
    private FileAttributes postOp(RpcCall call, FileHandle wire) {
        try {
            Target t = target(call, wire);
            return t.export().vfs().getattr(t.fh());
        } catch (NfsException | RuntimeException e) {
            return null;
        }
    }

    private WccData wcc(RpcCall call, FileHandle wire) {
        return WccData.after(postOp(call, wire));
    }

    /** The directory's {@code wcc_data}: from a change made under its hold, else its attributes now. */
    private WccData wcc(RpcCall call, FileHandle wire, DirectoryChanges.Seen seen) {
        WccData w = seen.wcc();
        return w != null ? w : wcc(call, wire);
    }

    @Override
    public void dispatchOncRpcCall(RpcCall call) throws OncRpcException, IOException {
        if (exports.rejectedHost(call)) {
            return;
        }
        int proc = call.getProcedure();
        switch (proc) {
            case Nfs3.NULL -> {
                call.retrieveCall(XdrVoid.XDR_VOID);
                call.reply(XdrVoid.XDR_VOID);
            }
            case Nfs3.GETATTR -> getattr(call);
            case Nfs3.SETATTR -> setattr(call);
            case Nfs3.LOOKUP -> lookup(call);
            case Nfs3.ACCESS -> access(call);
            case Nfs3.READLINK -> readlink(call);
            case Nfs3.READ -> read(call);
            case Nfs3.WRITE -> write(call);
            case Nfs3.CREATE -> create(call);
            case Nfs3.MKDIR -> mkdir(call);
            case Nfs3.SYMLINK -> symlink(call);
            case Nfs3.MKNOD -> mknod(call);
            case Nfs3.REMOVE, Nfs3.RMDIR -> remove(call, proc == Nfs3.RMDIR);
            case Nfs3.RENAME -> rename(call);
            case Nfs3.LINK -> link(call);
            case Nfs3.READDIR, Nfs3.READDIRPLUS -> readdir(call, proc == Nfs3.READDIRPLUS);
            case Nfs3.FSSTAT -> fsstat(call);
            case Nfs3.FSINFO -> fsinfo(call);
            case Nfs3.PATHCONF -> pathconf(call);
            case Nfs3.COMMIT -> commit(call);
            default -> call.failProcedureUnavailable();
        }
    }

    private void getattr(RpcCall call) throws IOException {
        FhArgs args = decode(call, new FhArgs());
        GetattrRes res = new GetattrRes();
        res.status = run("GETATTR", () -> {
            Target t = target(call, args.object);
            res.attributes = t.export().vfs().getattr(t.fh());
        });
        call.reply(res);
    }

    private void setattr(RpcCall call) throws IOException {
        SetattrArgs args = decode(call, new SetattrArgs());
        WccRes res = new WccRes();
        DirectoryChanges.Seen seen = new DirectoryChanges.Seen();
        res.status = run("SETATTR", () -> {
            Target t = target(call, args.object);
            writable(t);
            Caller c = caller(call, t);
            FileAttributes now = t.export().vfs().getattr(t.fh());
            SetAttributes attributes = c.isRoot() ? args.attributes
                    : Permissions.requireSetattr(c, now, args.attributes);
            if (now.isDirectory()) {
                // under the directory's hold: a change of it another call brackets is its only one
                exports.directoryChanges().change(t, seen, () -> t.export().vfs().setattr(t.fh(), attributes,
                        args.guardCtime));
            } else {
                exports.delegations().beforeChange(args.object, FileDelegations.NO_CLIENT);
                res.wcc = WccData.after(t.export().vfs().setattr(t.fh(), attributes, args.guardCtime));
            }
        });
        if (seen.after() != null) {
            res.wcc = seen.wcc();
        } else if (!res.isOk()) {
            res.wcc = wcc(call, args.object);
        }
        call.reply(res);
    }

    private void lookup(RpcCall call) throws IOException {
        DirOpArgs args = decode(call, new DirOpArgs());
        LookupRes res = new LookupRes();
        res.status = run("LOOKUP", () -> {
            Target t = target(call, args.dir);
            TargetChecks.requireDir(caller(call, t), t, Permissions.EXECUTE, "search this directory");
            NfsObject o = t.export().vfs().lookup(t.fh(), args.name);
            res.object = t.export().wrap(o.handle());
            res.objectAttributes = o.attributes();
        });
        res.dirAttributes = postOp(call, args.dir);
        call.reply(res);
    }

    private void access(RpcCall call) throws IOException {
        AccessArgs args = decode(call, new AccessArgs());
        AccessRes res = new AccessRes();
        res.status = run("ACCESS", () -> {
            Target t = target(call, args.object);
            FileAttributes a = t.export().vfs().getattr(t.fh());
            res.attributes = a;
            res.access = args.access & AccessRights.allowed(caller(call, t), a, t.readOnly());
        });
        call.reply(res);
    }


    private void readlink(RpcCall call) throws IOException {
        FhArgs args = decode(call, new FhArgs());
        ReadlinkRes res = new ReadlinkRes();
        res.status = run("READLINK", () -> {
            Target t = target(call, args.object);
            res.target = t.export().vfs().readlink(t.fh());
        });
        res.attributes = postOp(call, args.object);
        call.reply(res);
    }

    private void read(RpcCall call) throws IOException {
        FileRangeArgs args = decode(call, new FileRangeArgs());
        ReadRes res = new ReadRes();
        ByteBuf[] held = new ByteBuf[1];
        LentRange[] lent = new LentRange[1];
        res.status = run("READ", () -> {
            Target t = target(call, args.file);
            int count = (int) Math.min(args.count, limits.maxRead());
            Vfs vfs = t.export().vfs();
            Caller c = caller(call, t);
            if (!c.isRoot()) {
                Permissions.requireRead(c, vfs.getattr(t.fh()));
            }
            LentRange range = vfs.lend(t.fh(), args.offset, count);
            if (range != null) {
                // the VFS's own memory goes out by reference: no copy into a READ buffer
                lent[0] = range;
                res.count = range.count();
                res.eof = range.eof();
                res.pieces = range.pieces();
                return;
            }
            ByteBuf buffer = readBuffers.allocate(call, count);
            held[0] = buffer;
            ByteBuffer dst = buffer.nioBuffer(0, count);
            ReadResult r = vfs.read(t.fh(), args.offset, dst);
            dst.flip();
            res.count = r.count();
            res.eof = r.eof();
            res.data = dst;
        });
        res.attributes = postOp(call, args.file);
        Runnable release;
        if (lent[0] != null) {
            release = lent[0].data()::release;
        } else if (held[0] != null) {
            release = held[0]::release;
        } else {
            call.reply(res);
            return;
        }
        if (!res.isOk()) {
            release.run();
            call.reply(res);
            return;
        }
        // the reply references the memory: release it only once the reply has gone out
        ReplyRelease.afterReply(call, release);
        call.reply(res);
    }

    private void write(RpcCall call) throws IOException {
        WriteArgs args = decode(call, new WriteArgs());
        WriteRes res = new WriteRes();
        res.status = run("WRITE", () -> {
            Target t = target(call, args.file);
            writable(t);
            ByteBuffer data = args.data;
            if (args.count > data.remaining()) {
                throw new NfsException(Nfs3Status.NFS3ERR_INVAL,
                        "count " + args.count + " exceeds the " + data.remaining() + " data bytes");
            }
            data.limit(data.position() + (int) Math.min(args.count, limits.maxWrite()));
            Vfs vfs = t.export().vfs();
            Caller c = caller(call, t);
            Integer cleared = null;
            if (!c.isRoot()) {
                FileAttributes a = vfs.getattr(t.fh());
                Permissions.requireWrite(c, a);
                cleared = Permissions.clearedAfterWrite(c, a);
            }
            exports.delegations().beforeChange(args.file, FileDelegations.NO_CLIENT);
            // the verifier from before the write, as Linux's server takes it: one that changes while the write runs
            // (a failed writeback reported to another thread's fsync) may have lost this write's data, and a COMMIT
            // must not confirm it under the new one
            res.verifier = vfs.writeVerifier();
            WriteResult w = vfs.write(t.fh(), args.offset, data, args.stable, writeMemory.offer(call));
            if (cleared != null) {
                vfs.setattr(t.fh(), SetAttributes.NONE.withMode(cleared), null);
            }
            res.count = w.count();
            res.committed = w.committed();
        });
        res.wcc = wcc(call, args.file);
        call.reply(res);
    }

    private void created(NewObjectRes res, Target dir, NfsObject o) {
        res.object = dir.export().wrap(o.handle());
        res.attributes = o.attributes();
    }

    private void create(RpcCall call) throws IOException {
        CreateArgs args = decode(call, new CreateArgs());
        NewObjectRes res = new NewObjectRes();
        DirectoryChanges.Seen seen = new DirectoryChanges.Seen();
        res.status = run("CREATE", () -> {
            Target t = target(call, args.dir);
            writable(t);
            Caller c = caller(call, t);
            TargetChecks.requireDir(c, t, Permissions.WRITE | Permissions.EXECUTE, "make a name in this directory");
            Vfs vfs = t.export().vfs();
            boolean exclusive = args.attributes == null;
            SetAttributes asked = exclusive ? SetAttributes.NONE : args.attributes;
            // EXCLUSIVE: the VFS takes the owner only (the verifier is kept in the times)
            Created[] found = new Created[1];
            exports.directoryChanges().change(t, seen, () -> found[0] = vfs.create(t.fh(), args.name, args.mode,
                    TargetChecks.owned(c, t, asked, false), args.verifier));
            Created made = found[0];
            NfsObject o = made.object();
            if (!made.made() && asked.size() != null && o.attributes().size() != asked.size()) {
                // UNCHECKED of an existing file: its size alone, if the caller may set it (as Linux's server)
                if (!c.isRoot()) {
                    Permissions.requireWrite(c, o.attributes());
                }
                exports.delegations().beforeChange(t.export().wrap(o.handle()), FileDelegations.NO_CLIENT);
                o = new NfsObject(o.handle(), vfs.setattr(o.handle(), SetAttributes.NONE.withSize(asked.size()),
                        null));
            }
            created(res, t, o);
        });
        res.dirWcc = wcc(call, args.dir, seen);
        call.reply(res);
    }

    private void mkdir(RpcCall call) throws IOException {
        MkdirArgs args = decode(call, new MkdirArgs());
        NewObjectRes res = new NewObjectRes();
        DirectoryChanges.Seen seen = new DirectoryChanges.Seen();
        res.status = run("MKDIR", () -> {
            Target t = target(call, args.dir);
            writable(t);
            Caller c = caller(call, t);
            TargetChecks.requireDir(c, t, Permissions.WRITE | Permissions.EXECUTE, "make a name in this directory");
            SetAttributes owned = TargetChecks.owned(c, t, args.attributes, true);
            exports.directoryChanges().change(t, seen, () -> created(res, t, t.export().vfs().mkdir(t.fh(), args.name,
                    owned)));
        });
        res.dirWcc = wcc(call, args.dir, seen);
        call.reply(res);
    }

    private void symlink(RpcCall call) throws IOException {
        SymlinkArgs args = decode(call, new SymlinkArgs());
        NewObjectRes res = new NewObjectRes();
        DirectoryChanges.Seen seen = new DirectoryChanges.Seen();
        res.status = run("SYMLINK", () -> {
            Target t = target(call, args.dir);
            writable(t);
            Caller c = caller(call, t);
            TargetChecks.requireDir(c, t, Permissions.WRITE | Permissions.EXECUTE, "make a name in this directory");
            SetAttributes owned = TargetChecks.owned(c, t, args.attributes, false);
            exports.directoryChanges().change(t, seen, () -> created(res, t, t.export().vfs().symlink(t.fh(),
                    args.name, args.target, owned)));
        });
        res.dirWcc = wcc(call, args.dir, seen);
        call.reply(res);
    }

    private void mknod(RpcCall call) throws IOException {
        MknodArgs args = decode(call, new MknodArgs());
        NewObjectRes res = new NewObjectRes();
        DirectoryChanges.Seen seen = new DirectoryChanges.Seen();
        res.status = run("MKNOD", () -> {
            Target t = target(call, args.dir);
            VfsNames.checkSpecialType(args.type);
            writable(t);
            Caller c = caller(call, t);
            TargetChecks.requireDir(c, t, Permissions.WRITE | Permissions.EXECUTE, "make a name in this directory");
            TargetChecks.requireMayMake(c, args.type);
            SetAttributes owned = TargetChecks.owned(c, t, args.attributes, false);
            exports.directoryChanges().change(t, seen, () -> created(res, t, t.export().vfs().mknod(t.fh(),
                    args.name, args.type, args.major, args.minor, owned)));
        });
        res.dirWcc = wcc(call, args.dir, seen);
        call.reply(res);
    }

    private void remove(RpcCall call, boolean directory) throws IOException {
        DirOpArgs args = decode(call, new DirOpArgs());
        WccRes res = new WccRes();
        DirectoryChanges.Seen seen = new DirectoryChanges.Seen();
        res.status = run(directory ? "RMDIR" : "REMOVE", () -> {
            Target t = target(call, args.dir);
            writable(t);
            TargetChecks.requireRemove(caller(call, t), t, args.name);
            if (!directory) {
                exports.delegations().beforeNameChange(t, args.name, FileDelegations.NO_CLIENT);
            }
            exports.directoryChanges().change(t, seen, () -> {
                if (directory) {
                    t.export().vfs().rmdir(t.fh(), args.name);
                } else {
                    t.export().vfs().remove(t.fh(), args.name);
                }
            });
        });
        res.wcc = wcc(call, args.dir, seen);
        call.reply(res);
    }

    private void rename(RpcCall call) throws IOException {
        RenameArgs args = decode(call, new RenameArgs());
        RenameRes res = new RenameRes();
        DirectoryChanges.Seen fromSeen = new DirectoryChanges.Seen();
        DirectoryChanges.Seen toSeen = new DirectoryChanges.Seen();
        res.status = run("RENAME", () -> {
            Target from = target(call, args.fromDir);
            Target to = target(call, args.toDir);
            if (from.export() != to.export()) {
                throw new NfsException(Nfs3Status.NFS3ERR_XDEV, "rename across exports");
            }
            writable(from);
            Caller c = caller(call, from);
            if (!c.isRoot()) {
                TargetChecks.requireRename(c, from, args.fromName, to, args.toName);
            }
            exports.delegations().beforeNameChange(from, args.fromName, FileDelegations.NO_CLIENT);
            exports.delegations().beforeNameChange(to, args.toName, FileDelegations.NO_CLIENT);
            exports.directoryChanges().change(from, fromSeen, to, toSeen,
                    () -> from.export().vfs().rename(from.fh(), args.fromName, to.fh(), args.toName));
        });
        res.fromDirWcc = wcc(call, args.fromDir, fromSeen);
        res.toDirWcc = wcc(call, args.toDir, toSeen);
        call.reply(res);
    }

    private void link(RpcCall call) throws IOException {
        LinkArgs args = decode(call, new LinkArgs());
        LinkRes res = new LinkRes();
        DirectoryChanges.Seen seen = new DirectoryChanges.Seen();
        res.status = run("LINK", () -> {
            Target dir = target(call, args.dir);
            writable(dir);
            // as Linux's server: a new name in the directory; nothing is asked of the file itself
            TargetChecks.requireDir(caller(call, dir), dir, Permissions.WRITE | Permissions.EXECUTE,
                    "make a name in this directory");
            Target file = target(call, args.file);
            if (file.export() != dir.export()) {
                throw new NfsException(Nfs3Status.NFS3ERR_XDEV, "link across exports");
            }
            exports.delegations().beforeChange(args.file, FileDelegations.NO_CLIENT);
            exports.directoryChanges().change(dir, seen, () -> dir.export().vfs().link(file.fh(), dir.fh(),
                    args.name));
        });
        res.attributes = postOp(call, args.file);
        res.linkDirWcc = wcc(call, args.dir, seen);
        call.reply(res);
    }

    private void readdir(RpcCall call, boolean plus) throws IOException {
        ReaddirArgs args = decode(call, new ReaddirArgs(plus));
        ReaddirRes res = new ReaddirRes(plus);
        res.status = run(plus ? "READDIRPLUS" : "READDIR", () -> {
            Target t = target(call, args.dir);
            FileAttributes dirAttributes = t.export().vfs().getattr(t.fh());
            res.dirAttributes = dirAttributes;
            Caller c = caller(call, t);
            if (dirAttributes.isDirectory()) {
                Permissions.require(c, dirAttributes, Permissions.READ, "list this directory");
            }
            // the entries' handles and attributes need search permission, as a LOOKUP of each would (Linux leaves
            // them out of READDIRPLUS then)
            boolean search = (Permissions.bits(c, dirAttributes) & Permissions.EXECUTE) != 0;
            long budget = Math.min(args.maxCount, limits.maxReaddir())
                    - Nfs3Xdr.FATTR3_SIZE - 4 - ReaddirRes.RESOK_OVERHEAD;
            long dirBudget = plus && args.dirCount > 0 ? args.dirCount : Long.MAX_VALUE;
            int want = (int) Math.max(1, Math.min(4096, budget / ReaddirRes.ENTRY_OVERHEAD + 1));
            DirectoryPage page = t.export().vfs().readdir(t.fh(), args.cookie, args.cookieVerifier, want);
            List<DirEntry> entries = new ArrayList<>(page.entries().size());
            boolean all = true;
            for (DirEntry e : page.entries()) {
                FileHandle handle = plus && search && e.handle() != null ? t.export().wrap(e.handle()) : null;
                DirEntry out = plus ? new DirEntry(e.fileid(), e.name(), e.cookie(), search ? e.attributes() : null,
                        handle) : DirEntry.of(e.fileid(), e.name(), e.cookie());
                int nameBytes = Nfs3Xdr.utf8Length(e.name());
                int size = ReaddirRes.entrySize(plus, nameBytes, out.attributes(), out.handle());
                int dirSize = 8 + 4 + ((nameBytes + 3) & ~3) + 8;
                if (size > budget || dirSize > dirBudget) {
                    all = false;
                    break;
                }
                budget -= size;
                dirBudget -= dirSize;
                entries.add(out);
            }
            if (entries.isEmpty() && !page.entries().isEmpty()) {
                throw new NfsException(Nfs3Status.NFS3ERR_TOOSMALL, "not even one entry fits");
            }
            res.cookieVerifier = page.verifier();
            res.entries = entries;
            res.eof = all && page.eof();
        });
        if (!res.isOk()) {
            res.dirAttributes = postOp(call, args.dir);
        }
        call.reply(res);
    }

    private void fsstat(RpcCall call) throws IOException {
        FhArgs args = decode(call, new FhArgs());
        FsstatRes res = new FsstatRes();
        res.status = run("FSSTAT", () -> {
            Target t = target(call, args.object);
            res.fsstat = t.export().vfs().fsstat(t.fh());
        });
        res.attributes = postOp(call, args.object);
        call.reply(res);
    }

    private void fsinfo(RpcCall call) throws IOException {
        FhArgs args = decode(call, new FhArgs());
        FsinfoRes res = new FsinfoRes();
        res.status = run("FSINFO", () -> {
            Target t = target(call, args.object);
            t.export().vfs().getattr(t.fh());
            res.fsinfo = new FsInfo(limits.maxRead(), limits.maxRead(), 4096, limits.maxWrite(), limits.maxWrite(),
                    4096, limits.maxReaddir(), t.export().vfs().maxFileSize(), new NfsTime(0, 1),
                    (t.export().vfs().linkMax() > 1 ? FsInfo.FSF3_LINK : 0)
                            | FsInfo.FSF3_SYMLINK | FsInfo.FSF3_HOMOGENEOUS | FsInfo.FSF3_CANSETTIME);
        });
        res.attributes = postOp(call, args.object);
        call.reply(res);
    }

    private void pathconf(RpcCall call) throws IOException {
        FhArgs args = decode(call, new FhArgs());
        PathconfRes res = new PathconfRes();
        res.status = run("PATHCONF", () -> {
            Target t = target(call, args.object);
            t.export().vfs().getattr(t.fh());
            res.pathconf = new PathConf(t.export().vfs().linkMax(), Nfs3.MAXNAMLEN, true, true, false, true);
        });
        res.attributes = postOp(call, args.object);
        call.reply(res);
    }

    private void commit(RpcCall call) throws IOException {
        FileRangeArgs args = decode(call, new FileRangeArgs());
        CommitRes res = new CommitRes();
        res.status = run("COMMIT", () -> {
            Target t = target(call, args.file);
            Vfs vfs = t.export().vfs();
            writable(t); // COMMIT asks for write access, as in Linux's server
            Caller c = caller(call, t);
            if (!c.isRoot()) {
                Permissions.requireWrite(c, vfs.getattr(t.fh()));
            }
            vfs.commit(t.fh(), args.offset, args.count);
            res.verifier = vfs.writeVerifier();
        });
        res.wcc = wcc(call, args.file);
        call.reply(res);
    }
}
