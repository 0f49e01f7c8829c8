package org.rpcrdma4j.nfs.server;

import java.io.IOException;
import java.nio.file.Path;
import org.rpcrdma4j.nfs.vfs.LocalVfs;
import org.rpcrdma4j.nfs.vfs.Vfs;

class LocalVfsEndToEndTest extends AbstractNfsEndToEndTest {
    @Override
    protected Vfs newVfs(Path dir) throws IOException {
        return LocalVfs.open(dir);
    }
}
