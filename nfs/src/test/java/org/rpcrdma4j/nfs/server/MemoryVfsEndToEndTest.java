package org.rpcrdma4j.nfs.server;

import java.nio.file.Path;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.nfs.vfs.Vfs;

class MemoryVfsEndToEndTest extends AbstractNfsEndToEndTest {
    @Override
    protected Vfs newVfs(Path dir) {
        return new MemoryVfs(512L << 20);
    }
}
