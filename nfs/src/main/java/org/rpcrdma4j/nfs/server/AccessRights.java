package org.rpcrdma4j.nfs.server;

import org.rpcrdma4j.nfs.Access;
import org.rpcrdma4j.nfs.FileAttributes;

/**
 * What ACCESS answers (NFSv3 and NFSv4 share the bits): the rights the caller's identity ({@link Caller}, squashed as
 * its host's grant says) has on an object, from its mode bits ({@link Permissions#bits}); root may do everything the
 * type allows, and a read-only export (or host) allows no change.
 */
public final class AccessRights {
    private AccessRights() {
    }

    /** The ACCESS bits {@code c} has on an object with attributes {@code a}. */
    public static int allowed(Caller c, FileAttributes a, boolean readOnly) {
        int bits = Permissions.bits(c, a);
        boolean r = (bits & Permissions.READ) != 0;
        boolean w = (bits & Permissions.WRITE) != 0 && !readOnly;
        boolean x = (bits & Permissions.EXECUTE) != 0;
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
}
