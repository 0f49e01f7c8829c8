package org.rpcrdma4j.registration;

/**
 * The work request id convention shared by a connection's transport and its registration pool, which post to the same
 * send queue and read the same send completion queue. One place defines it:
 * <pre>
 *  63        56 55                       32 31                              0
 * +------------+---------------------------+--------------------------------+
 * | kind (8)   | epoch (24)                | index (32)                     |
 * +------------+---------------------------+--------------------------------+
 * </pre>
 * <ul>
 * <li><b>kind</b>: who posted it and why ({@link Kind}). Kinds {@code 0x40..0x4F} belong to the registration pool
 * ({@link #isRegistration}); the transport uses the others.</li>
 * <li><b>epoch</b>: the connection incarnation. The pool bumps it on every
 * {@link RegistrationPool#onDisconnect()}, so a late completion from a dead queue pair is recognised and ignored
 * instead of being applied to a handle that now has another life.</li>
 * <li><b>index</b>: the owner's slot (a handle's slot, a registration's slot, a request slot of the transport).</li>
 * </ul>
 */
public final class WrIds {
    /** Mask of the 24-bit epoch. */
    public static final int EPOCH_MASK = 0xFF_FFFF;

    private WrIds() {
    }

    /** Work request kinds, with fixed codes. */
    public enum Kind {
        /** Unknown / not assigned. */
        NONE(0x00),
        /** Transport: a Send (RPC call or reply). */
        SEND(0x01),
        /** Transport: a posted receive. */
        RECEIVE(0x02),
        /** Transport: an RDMA READ (server pulling a read chunk). */
        RDMA_READ(0x03),
        /** Transport: an RDMA WRITE (server pushing a write or reply chunk). */
        RDMA_WRITE(0x04),
        /** Registration: a fast-register (REG_MR) work request of a handle; index = handle slot. */
        FAST_REG(0x41),
        /** Registration: a LOCAL_INV work request of a handle; index = handle slot. */
        LOCAL_INV(0x42),
        /** Registration: a synthetic FMR unmap completion; index = registration slot. */
        FMR_UNMAP(0x43);

        private final int code;

        Kind(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }

        private static final Kind[] BY_CODE = new Kind[256];

        static {
            for (Kind kind : values()) {
                if (BY_CODE[kind.code] != null) {
                    throw new ExceptionInInitializerError("duplicate work request kind code " + kind.code);
                }
                BY_CODE[kind.code] = kind;
            }
        }

        /** The kind with {@code code}, or {@link #NONE} for a code nobody uses. */
        public static Kind ofCode(int code) {
            Kind kind = BY_CODE[code & 0xFF];
            return kind == null ? NONE : kind;
        }
    }

    public static long of(Kind kind, int epoch, int index) {
        return ((long) kind.code << 56) | ((long) (epoch & EPOCH_MASK) << 32) | (index & 0xFFFF_FFFFL);
    }

    public static Kind kind(long wrId) {
        return Kind.ofCode((int) (wrId >>> 56));
    }

    public static int epoch(long wrId) {
        return (int) (wrId >>> 32) & EPOCH_MASK;
    }

    public static int index(long wrId) {
        return (int) wrId;
    }

    /** Whether the work request was posted by a registration pool (kinds {@code 0x40..0x4F}). */
    public static boolean isRegistration(long wrId) {
        return (wrId >>> 60) == 0x4;
    }

    public static String toString(long wrId) {
        return kind(wrId) + "/" + epoch(wrId) + "/" + index(wrId);
    }
}
