package org.rpcrdma4j.nfs;

/** {@code wcc_attr}: the attributes a client needs to validate its cache across an operation. */
public record WccAttr(long size, NfsTime mtime, NfsTime ctime) {
    public static WccAttr of(FileAttributes attributes) {
        return new WccAttr(attributes.size(), attributes.mtime(), attributes.ctime());
    }
}
