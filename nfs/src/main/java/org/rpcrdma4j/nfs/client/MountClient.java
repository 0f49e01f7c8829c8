package org.rpcrdma4j.nfs.client;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.xdr.ExportsRes;
import org.rpcrdma4j.nfs.xdr.Mount3;
import org.rpcrdma4j.nfs.xdr.MountListRes;
import org.rpcrdma4j.nfs.xdr.MountPathArgs;
import org.rpcrdma4j.nfs.xdr.MountRes;
import org.rpcrdma4j.nfs.xdr.MountStatus;

/** MOUNT version 3 calls over a {@link DataTransport} (always TCP, also for NFS over RDMA). Blocking. */
public final class MountClient {
    private final DataTransport transport;

    /** Borrows {@code transport}: closing it stays with the caller. */
    public MountClient(DataTransport transport) {
        this.transport = transport;
    }

    /** MNT: the root handle of {@code export}; a status other than MNT3_OK is a {@link MountException}. */
    public FileHandle mount(String export) throws IOException {
        MountRes res = Calls.await(transport.call(Mount3.PROGRAM, Mount3.VERSION, Mount3.MNT,
                new MountPathArgs(export), new MountRes()));
        if (!res.isOk()) {
            throw new MountException(MountStatus.fromWire(res.status), export);
        }
        return res.root;
    }

    /** UMNT. */
    public void unmount(String export) throws IOException {
        Calls.await(transport.call(Mount3.PROGRAM, Mount3.VERSION, Mount3.UMNT, new MountPathArgs(export),
                XdrVoid.XDR_VOID));
    }

    /** EXPORT: what the server exports. */
    public List<ExportsRes.Export> exports() throws IOException {
        return Calls.await(transport.call(Mount3.PROGRAM, Mount3.VERSION, Mount3.EXPORT, XdrVoid.XDR_VOID,
                new ExportsRes())).exports;
    }

    /** DUMP: who mounted what (as far as the server remembers). */
    public List<MountListRes.Mount> dump() throws IOException {
        return Calls.await(transport.call(Mount3.PROGRAM, Mount3.VERSION, Mount3.DUMP, XdrVoid.XDR_VOID,
                new MountListRes())).mounts;
    }

    /** Blocking on futures of the client: the cause's own type is thrown. */
    static final class Calls {
        private Calls() {
        }

        static <T> T await(java.util.concurrent.CompletableFuture<T> f) throws IOException {
            try {
                return f.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted while waiting for a reply");
            } catch (ExecutionException | CompletionException e) {
                throw unwrap(e.getCause());
            }
        }

        static IOException unwrap(Throwable t) {
            while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
                t = t.getCause();
            }
            if (t instanceof IOException io) {
                return io;
            }
            if (t instanceof RuntimeException r) {
                throw r;
            }
            if (t instanceof Error err) {
                throw err;
            }
            return new IOException(t);
        }
    }
}
