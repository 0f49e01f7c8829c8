package org.rpcrdma4j.nfs;

/** The POSIX path configuration of PATHCONF (RFC 1813 section 3.3.20). */
public record PathConf(int linkMax, int nameMax, boolean noTrunc, boolean chownRestricted, boolean caseInsensitive,
                       boolean casePreserving) {
}
