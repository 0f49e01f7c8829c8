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
import org.rpcrdma4j.nfs.xdr.ExportsRes;
import org.rpcrdma4j.nfs.xdr.Mount3;
import org.rpcrdma4j.nfs.xdr.MountListRes;
import org.rpcrdma4j.nfs.xdr.MountPathArgs;
import org.rpcrdma4j.nfs.xdr.MountRes;
import org.rpcrdma4j.nfs.xdr.MountStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MOUNT version 3 program: MNT hands out an export's root handle (AUTH_SYS and AUTH_NONE accepted) to a host the
 * export is open to ({@code MNT3ERR_ACCES} to any other, as Linux's mountd answers), UMNT and UMNTALL forget mounts,
 * DUMP lists them and EXPORT lists the exports with the hosts each is open to. The mount list is kept for DUMP only;
 * nothing depends on it. MOUNT always runs over TCP, also when NFS runs over RDMA.
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
                Export e = exports.byPath(args.path);
                if (e == null) {
                    res.status = MountStatus.MNT3ERR_NOENT.wireValue();
                } else if (e.access(ExportTable.clientOf(call)) == ExportClients.Access.NONE) {
                    LOG.warn("refused to mount {} for {}: the export is open to {}", e.path(), host(call),
                            e.clients());
                    res.status = MountStatus.MNT3ERR_ACCES.wireValue();
                } else {
                    res.status = MountStatus.MNT3_OK.wireValue();
                    res.root = e.rootHandle();
                    res.authFlavors = new int[] {RpcAuthType.UNIX, RpcAuthType.NONE};
                    mounts.add(new MountListRes.Mount(host(call), e.path()));
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
}
