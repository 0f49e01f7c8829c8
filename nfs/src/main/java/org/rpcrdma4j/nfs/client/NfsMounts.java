package org.rpcrdma4j.nfs.client;

import java.io.IOException;

import org.rpcrdma4j.nfs.client.v4.Nfs41Client;
import org.rpcrdma4j.nfs.client.v4.Nfs41Options;
import org.rpcrdma4j.nfs.client.v4.Nfs4StatusException;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.verbs.ConnectException;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Mounts an export with the NFS version the URL names ({@code ?vers=3|4|4.1|4.2}), or, without one, as
 * {@code mount.nfs} chooses: NFSv4.2, then NFSv4.1, then NFSv3 (MOUNT over TCP). NFSv3 is tried where
 * {@code mount.nfs} tries it: when the server does not speak NFSv4 (the NFS program answers PROG_MISMATCH or
 * PROG_UNAVAIL for version 4, or NFS4ERR_MINOR_VERS_MISMATCH for both minor versions), when the export is not in its
 * NFSv4 namespace (NFS4ERR_NOENT or NFS4ERR_PERM while the export's path is looked up, as from servers that export no
 * NFSv4 pseudo-root), and when the NFS port refuses the connection; the NFSv3 attempt's failure is then the mount's.
 * Any other failure of the NFSv4 attempt is the mount's failure: a server that speaks NFSv4 but refuses the client is
 * not mounted with another version behind the caller's back. {@link NfsMount#version()} says what was chosen.
 */
public final class NfsMounts {
    private static final Logger LOG = LoggerFactory.getLogger(NfsMounts.class);

    private NfsMounts() {
    }

    public static NfsMount mount(String url) throws IOException {
        return mount(NfsUrl.parse(url), NfsClientConfig.defaults());
    }

    public static NfsMount mount(NfsUrl url, NfsClientConfig config) throws IOException {
        return switch (url.version()) {
            case "3" -> NfsClient.mount(url, config);
            case "4.1" -> Nfs41Client.mount(url, config, Nfs41Options.defaults().withMinorVersion(1));
            case "4", "4.2" -> Nfs41Client.mount(url, config, Nfs41Options.defaults().withMinorVersion(2));
            default -> firstSpoken(url, config);
        };
    }

    private static NfsMount firstSpoken(NfsUrl url, NfsClientConfig config) throws IOException {
        try {
            return Nfs41Client.mount(url, config, Nfs41Options.defaults().withMinorVersion(2));
        } catch (IOException e) {
            if (!fallsBackToNfs3(e)) {
                throw e;
            }
            LOG.debug("{} not mounted with NFSv4 ({}): mounting with NFSv3", url, e.getMessage());
        }
        return NfsClient.mount(url, config);
    }

    /** Whether {@code mount.nfs} would try NFSv3 after the NFSv4 attempt failed with {@code e}. */
    static boolean fallsBackToNfs3(Throwable e) {
        if (noNfs4(e)) {
            return true;
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof Nfs4StatusException s && (s.nfs4Status() == Nfs4Status.NFS4ERR_NOENT
                    || s.nfs4Status() == Nfs4Status.NFS4ERR_PERM)) {
                return true;
            }
            if (t instanceof java.net.ConnectException
                    || t instanceof ConnectException c && c.type() == ConnectionEventType.REJECTED) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code e} says the server has no NFSv4 at all (not that it refused this client). */
    static boolean noNfs4(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof RpcNotAcceptedException n && (n.acceptStatus() == AcceptStatus.PROG_MISMATCH
                    || n.acceptStatus() == AcceptStatus.PROG_UNAVAIL)) {
                return true;
            }
            if (t instanceof Nfs4StatusException s && s.nfs4Status() == Nfs4Status.NFS4ERR_MINOR_VERS_MISMATCH) {
                return true;
            }
        }
        return false;
    }
}
