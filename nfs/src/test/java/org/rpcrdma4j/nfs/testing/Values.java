package org.rpcrdma4j.nfs.testing;

import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileType;
import org.rpcrdma4j.nfs.NfsTime;
import org.rpcrdma4j.nfs.WccAttr;
import org.rpcrdma4j.nfs.WccData;

/** Sample values for tests. */
public final class Values {
    private Values() {
    }

    public static FileAttributes attributes(FileType type, long size) {
        NfsTime t = new NfsTime(1_700_000_000L, 123);
        return new FileAttributes(type, 0644, 1, 1000, 1000, size, size, 0, 0, 42, 7, t, t, t);
    }

    public static WccData fullWcc() {
        FileAttributes a = attributes(FileType.DIRECTORY, 4096);
        return new WccData(WccAttr.of(a), a);
    }
}
