package org.rpcrdma4j.nfs.client;

import java.io.IOException;

import org.rpcrdma4j.nfs.client.v4.Nfs41Client;
import org.rpcrdma4j.nfs.client.v4.Nfs41Options;
import org.rpcrdma4j.nfs.client.v4.Nfs4StatusException;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Mounts an export with the NFS version the URL names ({@code ?vers=3|4|4.1|4.2}), or, without one, as
 * {@code mount.nfs} chooses: NFSv4.2, then NFSv4.1, then NFSv3 (MOUNT over TCP) when the server does not speak NFSv4
 * (the NFS program answers PROG_MISMATCH or PROG_UNAVAIL for version 4, or NFS4ERR_MINOR_VERS_MISMATCH for both minor
 * versions). Any other failure of the NFSv4 attempt is the mount's failure: a server that speaks NFSv4 but refuses the
 * client is not mounted with another version behind the caller's back. {@link NfsMount#version()} says what was
 * chosen.
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
            if (!noNfs4(e)) {
                throw e;
            }
            LOG.debug("{} does not speak NFSv4 ({}): mounting with NFSv3", url, e.getMessage());
        }
        return NfsClient.mount(url, config);
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
