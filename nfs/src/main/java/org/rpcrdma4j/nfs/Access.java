package org.rpcrdma4j.nfs;

/** The ACCESS procedure's permission bits (RFC 1813 section 3.3.4). */
public final class Access {
    public static final int READ = 0x0001;
    public static final int LOOKUP = 0x0002;
    public static final int MODIFY = 0x0004;
    public static final int EXTEND = 0x0008;
    public static final int DELETE = 0x0010;
    public static final int EXECUTE = 0x0020;
    /** Every bit RFC 1813 defines. */
    public static final int ALL = READ | LOOKUP | MODIFY | EXTEND | DELETE | EXECUTE;

    private Access() {
    }
}
