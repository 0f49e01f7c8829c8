package org.rpcrdma4j.nfs.server;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.dcache.oncrpc4j.rpc.RpcAuthStat;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcRejectStatus;
import org.dcache.oncrpc4j.xdr.XdrInt;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.xprt.server.RdmaRpcServer;

/**
 * The server's exports, by path (for MOUNT) and by handle prefix (for NFS). Immutable but for the holds of
 * {@link #directoryChanges()} and the {@link #delegations()} the NFSv4 program puts in.
 */
public final class ExportTable {
    /**
     * A wire handle resolved for one client: its export, the VFS handle inside, and what that client may do there
     * (read-only when the export is, and as whom its callers act).
     */
    public record Target(Export export, FileHandle fh, ExportClients.Grant grant) {
        /** Whether the client may only read here. */
        public boolean readOnly() {
            return grant.readOnly();
        }
    }

    private final Map<String, Export> byPath = new LinkedHashMap<>();
    private final Map<Integer, Export> byId = new LinkedHashMap<>();
    private final DirectoryChanges directoryChanges = new DirectoryChanges();
    private volatile FileDelegations delegations = FileDelegations.NONE;

    public ExportTable(List<Export> exports) {
        for (Export e : exports) {
            if (byPath.put(e.path(), e) != null) {
                throw new IllegalArgumentException("exported twice: " + e.path());
            }
            if (byId.put(e.id(), e) != null) {
                throw new IllegalArgumentException("export id collision: " + e.path());
            }
        }
    }

    /** Where the NFSv3 and NFSv4 programs change the exports' directories. */
    public DirectoryChanges directoryChanges() {
        return directoryChanges;
    }

    /** What a change of a file waits for: the NFSv4 program's delegations ({@link FileDelegations#NONE} without). */
    public FileDelegations delegations() {
        return delegations;
    }

    /** Sets {@link #delegations()}: the NFSv4 program serving these exports does, when it is made. */
    public void delegations(FileDelegations d) {
        this.delegations = java.util.Objects.requireNonNull(d, "delegations");
    }

    public Collection<Export> all() {
        return byPath.values();
    }

    /** The export mounted at {@code path} (normalized), or null. */
    public Export byPath(String path) {
        return byPath.get(Export.normalize(path));
    }

    /**
     * The export {@code path} (normalized) lies in: the one whose path is the longest whole-component prefix of it, or
     * null. {@code "/a/b"} lies in {@code "/a"}, {@code "/ab"} does not.
     */
    public Export containing(String path) {
        String p = Export.normalize(path);
        while (true) {
            Export e = byPath.get(p);
            if (e != null || p.equals("/")) {
                return e;
            }
            int slash = p.lastIndexOf('/');
            p = slash == 0 ? "/" : p.substring(0, slash);
        }
    }

    /**
     * Resolves a wire handle for {@code client} (null when unknown): {@code NFS3ERR_BADHANDLE} when malformed,
     * {@code NFS3ERR_STALE} for no export, and also when the export is not open to the client (as Linux's server
     * answers: to that client the handle names nothing).
     */
    public Target resolve(FileHandle wire, InetAddress client) throws NfsException {
        Export e = byId.get(Export.idOf(wire));
        if (e == null) {
            throw new NfsException(Nfs3Status.NFS3ERR_STALE, "no such export");
        }
        ExportClients.Grant grant = e.grant(client);
        if (grant == null) {
            throw new NfsException(Nfs3Status.NFS3ERR_STALE, "export " + e.path() + " is not open to "
                    + (client == null ? "an unknown host" : client.getHostAddress()));
        }
        return new Target(e, e.unwrap(wire), grant);
    }

    /**
     * Resolves a wire handle for the host that sent {@code call}, as {@link #resolve(FileHandle, InetAddress)} does,
     * and refuses it with {@code NFS3ERR_PERM} when the host's spec is {@code secure} and the call came over TCP or UDP
     * from an unprivileged port (as Linux's server answers).
     */
    public Target resolve(FileHandle wire, RpcCall call) throws NfsException {
        Target t = resolve(wire, clientOf(call));
        if (!portAllowed(t.grant(), call)) {
            throw new NfsException(Nfs3Status.NFS3ERR_PERM, "export " + t.export().path() + " takes calls from "
                    + "privileged ports only (secure), this came from port " + portOf(call));
        }
        return t;
    }

    /**
     * Whether {@code grant} lets {@code call} in by its port: any port unless the spec is {@code secure}, else a
     * privileged one (below 1024), or any over RDMA, which Linux's server takes as secure whatever the port.
     */
    public static boolean portAllowed(ExportClients.Grant grant, RpcCall call) {
        if (!grant.secure() || RdmaRpcServer.arrivedOverRdma(call)) {
            return true;
        }
        int port = portOf(call);
        return port > 0 && port < 1024;
    }

    private static int portOf(RpcCall call) {
        InetSocketAddress peer = call == null ? null : call.getTransport().getRemoteSocketAddress();
        return peer == null ? -1 : peer.getPort();
    }

    /**
     * Whether some export is open to {@code client}. A host none is open to gets no NFS service but NULL: its calls
     * are rejected with AUTH_ERROR (AUTH_BADCRED), as Linux's server rejects a host that matches no export.
     */
    public boolean openToAny(InetAddress client) {
        for (Export e : byPath.values()) {
            if (e.grant(client) != null) {
                return true;
            }
        }
        return false;
    }

    /**
     * Rejects {@code call} with AUTH_ERROR (AUTH_BADCRED) when no export is open to its host, and says so; false when
     * it may go on.
     */
    public boolean rejectedHost(RpcCall call) {
        if (call.getProcedure() == 0 || openToAny(clientOf(call))) {
            return false;
        }
        call.reject(RpcRejectStatus.AUTH_ERROR, new XdrInt(RpcAuthStat.AUTH_BADCRED));
        return true;
    }

    /** The address of the host that sent {@code call}, or null when its transport does not say. */
    public static InetAddress clientOf(RpcCall call) {
        if (call == null) {
            return null;
        }
        InetSocketAddress peer = call.getTransport().getRemoteSocketAddress();
        return peer == null ? null : peer.getAddress();
    }
}
