package org.rpcrdma4j.verbs;

/**
 * Memory access rights, as bit flags (the values of the kernel's {@code IB_ACCESS_*}).
 * Local read is always granted.
 */
public final class Access {
    public static final int LOCAL_WRITE = 1;
    public static final int REMOTE_WRITE = 1 << 1;
    public static final int REMOTE_READ = 1 << 2;

    private Access() {
    }

    public static boolean has(int access, int flag) {
        return (access & flag) == flag;
    }

    public static String toString(int access) {
        StringBuilder sb = new StringBuilder("LOCAL_READ");
        if (has(access, LOCAL_WRITE)) {
            sb.append("|LOCAL_WRITE");
        }
        if (has(access, REMOTE_WRITE)) {
            sb.append("|REMOTE_WRITE");
        }
        if (has(access, REMOTE_READ)) {
            sb.append("|REMOTE_READ");
        }
        return sb.toString();
    }
}
