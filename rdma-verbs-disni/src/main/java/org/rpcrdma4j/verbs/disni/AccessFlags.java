package org.rpcrdma4j.verbs.disni;

import com.ibm.disni.verbs.IbvMr;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * Maps the SPI's {@link Access} flags to libibverbs' {@code IBV_ACCESS_*} flags as DiSNI defines them in
 * {@link IbvMr}, and back. Pure; no native code.
 * <p>
 * libibverbs refuses a registration that grants REMOTE_WRITE without LOCAL_WRITE (EINVAL); this mapping refuses it
 * first, with a message that says why, instead of letting the native call fail with a bare errno.
 */
final class AccessFlags {
    private static final int KNOWN = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;

    private AccessFlags() {
    }

    /** The {@code IBV_ACCESS_*} flags for SPI access flags. */
    static int toIbv(int access) throws VerbsException {
        if ((access & ~KNOWN) != 0) {
            throw new VerbsException("unknown access flags 0x" + Integer.toHexString(access & ~KNOWN)
                    + " (known: LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ)");
        }
        if (Access.has(access, Access.REMOTE_WRITE) && !Access.has(access, Access.LOCAL_WRITE)) {
            throw new VerbsException("REMOTE_WRITE requires LOCAL_WRITE on libibverbs devices (ibv_reg_mr refuses "
                    + "it with EINVAL); asked for " + Access.toString(access));
        }
        int ibv = 0;
        if (Access.has(access, Access.LOCAL_WRITE)) {
            ibv |= IbvMr.IBV_ACCESS_LOCAL_WRITE;
        }
        if (Access.has(access, Access.REMOTE_WRITE)) {
            ibv |= IbvMr.IBV_ACCESS_REMOTE_WRITE;
        }
        if (Access.has(access, Access.REMOTE_READ)) {
            ibv |= IbvMr.IBV_ACCESS_REMOTE_READ;
        }
        return ibv;
    }

    /** The SPI flags for {@code IBV_ACCESS_*} flags; bits the SPI does not model (atomics, MW bind, ODP) are dropped. */
    static int fromIbv(int ibv) {
        int access = 0;
        if ((ibv & IbvMr.IBV_ACCESS_LOCAL_WRITE) != 0) {
            access |= Access.LOCAL_WRITE;
        }
        if ((ibv & IbvMr.IBV_ACCESS_REMOTE_WRITE) != 0) {
            access |= Access.REMOTE_WRITE;
        }
        if ((ibv & IbvMr.IBV_ACCESS_REMOTE_READ) != 0) {
            access |= Access.REMOTE_READ;
        }
        return access;
    }
}
