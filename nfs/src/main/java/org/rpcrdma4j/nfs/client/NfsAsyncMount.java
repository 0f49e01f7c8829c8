package org.rpcrdma4j.nfs.client;

import io.netty.buffer.ByteBuf;
import java.util.concurrent.CompletableFuture;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.NfsObject;
import org.rpcrdma4j.nfs.StableHow;

/**
 * The pipelined operations the NFSv3 ({@link NfsAsyncClient}) and NFSv4.1 asynchronous clients share: many may be
 * outstanding at once, each completing its future (exceptionally with the same typed errors as the blocking calls).
 * The buffers are borrowed until the future completes.
 */
public interface NfsAsyncMount {
    CompletableFuture<FileAttributes> getattr(FileHandle fh);

    CompletableFuture<NfsObject> lookup(FileHandle dir, String name);

    CompletableFuture<ReadReply> read(FileHandle fh, long offset, ByteBuf dst);

    CompletableFuture<WriteReply> write(FileHandle fh, long offset, ByteBuf src, StableHow stable);

    CompletableFuture<Long> commit(FileHandle fh, long offset, long count);

    CompletableFuture<Void> remove(FileHandle dir, String name);
}
