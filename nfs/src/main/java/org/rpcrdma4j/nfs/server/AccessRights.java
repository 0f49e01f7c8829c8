package org.rpcrdma4j.nfs.server;

import org.dcache.oncrpc4j.rpc.RpcAuthTypeUnix;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.rpcrdma4j.nfs.Access;
import org.rpcrdma4j.nfs.FileAttributes;

/**
 * What ACCESS answers (NFSv3 and NFSv4 share the bits): the rights the caller's AUTH_SYS identity has on an object,
 * from its mode bits; uid 0 may do everything the type allows, and a read-only export allows no change.
 */
public final class AccessRights {
    private static final int NOBODY = 65534;

    private AccessRights() {
    }

    /** The ACCESS bits the caller's AUTH_SYS identity has on an object with attributes {@code a}. */
    public static int allowed(RpcCall call, FileAttributes a, boolean readOnly) {
        int uid = NOBODY;
        int gid = NOBODY;
        int[] gids = new int[0];
        if (call.getCredential() instanceof RpcAuthTypeUnix unix) {
            uid = unix.uid();
            gid = unix.gid();
            gids = unix.gids();
        }
        int bits;
        if (uid == 0) {
            bits = 7;
            if ((a.mode() & 0111) == 0 && !a.isDirectory()) {
                bits &= ~1; // root may execute only what someone may
            }
        } else if (uid == a.uid()) {
            bits = (a.mode() >> 6) & 7;
        } else if (gid == a.gid() || contains(gids, a.gid())) {
            bits = (a.mode() >> 3) & 7;
        } else {
            bits = a.mode() & 7;
        }
        boolean r = (bits & 4) != 0;
        boolean w = (bits & 2) != 0 && !readOnly;
        boolean x = (bits & 1) != 0;
        int access = 0;
        if (r) {
            access |= Access.READ;
        }
        if (a.isDirectory()) {
            if (x) {
                access |= Access.LOOKUP;
            }
            if (w && x) {
                access |= Access.MODIFY | Access.EXTEND | Access.DELETE;
            }
        } else {
            if (w) {
                access |= Access.MODIFY | Access.EXTEND;
            }
            if (x) {
                access |= Access.EXECUTE;
            }
        }
        return access;
    }

    private static boolean contains(int[] values, int v) {
        for (int x : values) {
            if (x == v) {
                return true;
            }
        }
        return false;
    }
}
