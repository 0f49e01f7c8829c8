package org.rpcrdma4j.mount;

import java.io.IOException;
import java.nio.file.Path;

import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.vfs.LocalVfs;
import org.rpcrdma4j.nfs.vfs.Vfs;

/** The nfs module's embedded server over TCP on loopback, exporting a directory (or a VFS) as {@code /export}. */
public final class TcpServerFixture implements AutoCloseable {
    private final Vfs vfs;
    private final NfsServer server;

    public TcpServerFixture(Path dir) throws IOException {
        this(dir, null);
    }

    /** With NFSv4 as {@code nfs4} sets it up (null: the server's default). */
    public TcpServerFixture(Path dir, org.rpcrdma4j.nfs.v4.state.StateConfig nfs4) throws IOException {
        this.vfs = LocalVfs.open(dir);
        NfsServer.Builder b = NfsServer.builder().bindAddress("127.0.0.1").port(0).export("/export", vfs);
        if (nfs4 != null) {
            b.nfs4(nfs4);
        }
        this.server = b.build().start();
    }

    /**
     * Exporting {@code vfs} (closed with the server), with workers to spare while a {@link GateVfs} holds one of them.
     */
    public TcpServerFixture(Vfs vfs) throws IOException {
        this.vfs = vfs;
        this.server = NfsServer.builder().bindAddress("127.0.0.1").port(0).export("/export", vfs).workerThreads(4)
                .build().start();
    }

    public NfsServer server() {
        return server;
    }

    public int port() {
        return server.port();
    }

    public String url() {
        return "tcp://127.0.0.1:" + server.port() + "/export";
    }

    @Override
    public void close() throws IOException {
        server.close();
        vfs.close();
    }
}
