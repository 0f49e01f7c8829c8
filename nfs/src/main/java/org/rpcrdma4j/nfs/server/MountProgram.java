package org.rpcrdma4j.nfs.server;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.RpcAuthType;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.NfsObject;
import org.rpcrdma4j.nfs.xdr.ExportsRes;
import org.rpcrdma4j.nfs.xdr.Mount3;
import org.rpcrdma4j.nfs.xdr.MountListRes;
import org.rpcrdma4j.nfs.xdr.MountPathArgs;
import org.rpcrdma4j.nfs.xdr.MountRes;
import org.rpcrdma4j.nfs.xdr.MountStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MOUNT version 3 program: MNT hands out the handle of an export's root, or of a directory within it, as Linux's
 * mountd does (AUTH_SYS and AUTH_NONE accepted), to a host the export is open to; {@code MNT3ERR_ACCES} to any other
 * and for a path no export holds, {@code MNT3ERR_NOENT} for a directory the export does not have. UMNT and UMNTALL
 * forget mounts, DUMP lists them and EXPORT lists the exports with the hosts each is open to. The mount list is kept
 * for DUMP only; nothing depends on it. MOUNT always runs over TCP, also when NFS runs over RDMA.
 */
public final class MountProgram implements RpcDispatchable {
    private static final Logger LOG = LoggerFactory.getLogger(MountProgram.class);

    private final ExportTable exports;
    private final Set<MountListRes.Mount> mounts = ConcurrentHashMap.newKeySet();

    public MountProgram(ExportTable exports) {
        this.exports = exports;
    }

    private static String host(RpcCall call) {
        InetSocketAddress peer = call.getTransport().getRemoteSocketAddress();
        return peer == null ? "unknown" : peer.getAddress().getHostAddress();
    }

    @Override
    public void dispatchOncRpcCall(RpcCall call) throws OncRpcException, IOException {
        switch (call.getProcedure()) {
            case Mount3.NULL -> {
                call.retrieveCall(XdrVoid.XDR_VOID);
                call.reply(XdrVoid.XDR_VOID);
            }
            case Mount3.MNT -> {
                MountPathArgs args = new MountPathArgs();
                call.retrieveCall(args);
                MountRes res = new MountRes();
                String path = Export.normalize(args.path);
                Export e = exports.containing(path);
                ExportClients.Grant grant = e == null ? null : e.grant(ExportTable.clientOf(call));
                if (e == null) {
                    // as Linux's mountd: a path no export holds is refused, whether it exists or not
                    LOG.info("refused to mount {} for {}: not exported", path, host(call));
                    res.status = MountStatus.MNT3ERR_ACCES.wireValue();
                } else if (grant == null) {
                    LOG.warn("refused to mount {} for {}: the export is open to {}", path, host(call),
                            e.clients());
                    res.status = MountStatus.MNT3ERR_ACCES.wireValue();
                } else if (!ExportTable.portAllowed(grant, call)) {
                    // as Linux's mountd: an unprivileged port is refused where the host's spec says secure
                    LOG.warn("refused to mount {} for {}: it called from an unprivileged port, the export takes "
                            + "privileged ports only (secure)", path, host(call));
                    res.status = MountStatus.MNT3ERR_ACCES.wireValue();
                } else {
                    try {
                        res.root = e.wrap(directoryIn(e, path.substring(e.path().length())));
                        res.status = MountStatus.MNT3_OK.wireValue();
                        res.authFlavors = new int[] {RpcAuthType.UNIX, RpcAuthType.NONE};
                        mounts.add(new MountListRes.Mount(host(call), path));
                    } catch (MountRefused r) {
                        LOG.info("refused to mount {} for {}: {}", path, host(call), r.getMessage());
                        res.status = r.status.wireValue();
                    }
                }
                call.reply(res);
            }
            case Mount3.DUMP -> {
                call.retrieveCall(XdrVoid.XDR_VOID);
                MountListRes res = new MountListRes();
                res.mounts = new ArrayList<>(mounts);
                call.reply(res);
            }
            case Mount3.UMNT -> {
                MountPathArgs args = new MountPathArgs();
                call.retrieveCall(args);
                mounts.remove(new MountListRes.Mount(host(call), org.rpcrdma4j.nfs.server.Export.normalize(args.path)));
                call.reply(XdrVoid.XDR_VOID);
            }
            case Mount3.UMNTALL -> {
                call.retrieveCall(XdrVoid.XDR_VOID);
                String host = host(call);
                mounts.removeIf(m -> m.host().equals(host));
                call.reply(XdrVoid.XDR_VOID);
            }
            case Mount3.EXPORT -> {
                call.retrieveCall(XdrVoid.XDR_VOID);
                ExportsRes res = new ExportsRes();
                List<ExportsRes.Export> list = new ArrayList<>();
                for (Export e : exports.all()) {
                    List<String> groups = new ArrayList<>();
                    for (ExportClients.Spec spec : e.clients().specs()) {
                        groups.add(spec.host());
                    }
                    list.add(new ExportsRes.Export(e.path(), groups));
                }
                res.exports = list;
                call.reply(res);
            }
            default -> call.failProcedureUnavailable();
        }
    }

    /** A MNT refused with {@code status}, for the reason in the message. */
    private static final class MountRefused extends Exception {
        private static final long serialVersionUID = 1L;
        final transient MountStatus status;

        MountRefused(MountStatus status, String reason) {
            super(reason, null, false, false);
            this.status = status;
        }
    }

    /**
     * The VFS handle of the directory {@code rest} ("" or "/a/b") names below the root of export {@code e}, as Linux's
     * mountd mounts a directory within an export: {@code MNT3ERR_NOENT} when a component does not exist,
     * {@code MNT3ERR_NOTDIR} when one is not a directory, {@code MNT3ERR_ACCES} for "." and "..".
     */
    private static FileHandle directoryIn(Export e, String rest) throws MountRefused {
        FileHandle fh = e.vfs().root();
        for (String name : rest.split("/")) {
            if (name.isEmpty()) {
                continue;
            }
            if (name.equals(".") || name.equals("..")) {
                throw new MountRefused(MountStatus.MNT3ERR_ACCES, "'" + name + "' in the path");
            }
            NfsObject o;
            try {
                o = e.vfs().lookup(fh, name);
            } catch (NfsException x) {
                throw new MountRefused(x.status() == Nfs3Status.NFS3ERR_NOENT ? MountStatus.MNT3ERR_NOENT
                        : x.status() == Nfs3Status.NFS3ERR_NOTDIR ? MountStatus.MNT3ERR_NOTDIR
                        : MountStatus.MNT3ERR_ACCES, name + ": " + x.getMessage());
            }
            if (o.attributes() == null || !o.attributes().isDirectory()) {
                throw new MountRefused(MountStatus.MNT3ERR_NOTDIR, name + " is not a directory");
            }
            fh = o.handle();
        }
        return fh;
    }
}
