package org.rpcrdma4j.nfs.server;

import java.util.Arrays;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeUnix;
import org.dcache.oncrpc4j.rpc.RpcCall;

/**
 * The identity a call acts as in an export: its AUTH_SYS user and groups, squashed as the export's grant for the
 * calling host says ({@link ExportClients.Grant}), as Linux's server maps them. A call without AUTH_SYS acts as the
 * anonymous user. Immutable.
 *
 * @param uid  the user
 * @param gid  the primary group
 * @param gids the other groups
 */
public record Caller(int uid, int gid, int[] gids) {
    /** Root, unsquashed: what the server acts as where no grant applies. */
    public static final Caller ROOT = new Caller(0, 0, new int[0]);

    /** The identity {@code call} acts as under {@code grant}; its raw AUTH_SYS identity when {@code grant} is null. */
    public static Caller of(RpcCall call, ExportClients.Grant grant) {
        ExportClients.Grant g = grant != null ? grant : ExportClients.Grant.EVERYTHING;
        if (g.allSquash() || call == null || !(call.getCredential() instanceof RpcAuthTypeUnix unix)) {
            return new Caller(g.anonUid(), g.anonGid(), new int[0]);
        }
        if (!g.rootSquash()) {
            return new Caller(unix.uid(), unix.gid(), unix.gids());
        }
        int[] gids = unix.gids().clone();
        for (int i = 0; i < gids.length; i++) {
            if (gids[i] == 0) {
                gids[i] = g.anonGid();
            }
        }
        return new Caller(unix.uid() == 0 ? g.anonUid() : unix.uid(), unix.gid() == 0 ? g.anonGid() : unix.gid(),
                gids);
    }

    /** Whether the caller is root (after squashing): mode bits do not bind it. */
    public boolean isRoot() {
        return uid == 0;
    }

    /** Whether the caller is in group {@code g}, as its primary group or another. */
    public boolean inGroup(int g) {
        if (g == gid) {
            return true;
        }
        for (int x : gids) {
            if (x == g) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Caller c && c.uid == uid && c.gid == gid && Arrays.equals(c.gids, gids);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * uid + gid) + Arrays.hashCode(gids);
    }

    @Override
    public String toString() {
        return "uid " + uid + ", gid " + gid + (gids.length == 0 ? "" : ", groups " + Arrays.toString(gids));
    }
}
