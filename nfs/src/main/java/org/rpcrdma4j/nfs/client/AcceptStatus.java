package org.rpcrdma4j.nfs.client;

/** RFC 5531 {@code accept_stat} values other than SUCCESS, with their wire values. */
public enum AcceptStatus {
    PROG_UNAVAIL(1),
    PROG_MISMATCH(2),
    PROC_UNAVAIL(3),
    GARBAGE_ARGS(4),
    SYSTEM_ERR(5),
    UNKNOWN(-1);

    private final int value;

    AcceptStatus(int value) {
        this.value = value;
    }

    public int wireValue() {
        return value;
    }

    /** From the wire value; UNKNOWN for one RFC 5531 does not define here. */
    public static AcceptStatus fromWire(int wire) {
        for (AcceptStatus s : values()) {
            if (s != UNKNOWN && s.value == wire) {
                return s;
            }
        }
        return UNKNOWN;
    }

    /** From oncrpc4j's status name ("SYSTEM" is SYSTEM_ERR). */
    static AcceptStatus fromName(String name) {
        if (name == null) {
            return UNKNOWN;
        }
        if ("SYSTEM".equals(name)) {
            return SYSTEM_ERR;
        }
        for (AcceptStatus s : values()) {
            if (s.name().equals(name)) {
                return s;
            }
        }
        return UNKNOWN;
    }
}
