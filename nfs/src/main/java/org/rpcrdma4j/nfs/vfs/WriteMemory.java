package org.rpcrdma4j.nfs.vfs;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;

/**
 * The memory a WRITE's data arrived in, offered to the VFS to keep instead of copying it: a server over RDMA pulls a
 * WRITE's data with RDMA READ into registered memory, and a VFS that holds its data in blocks ({@link MemoryVfs})
 * takes whole blocks of that memory as they are ({@link Vfs#write(FileHandle, long, java.nio.ByteBuffer, StableHow,
 * WriteMemory)}).
 * <p>
 * An offer is good for one write call, made on the thread that serves the WRITE before it is answered.
 */
@FunctionalInterface
public interface WriteMemory {

    /** Nothing to keep: the VFS copies. */
    WriteMemory NONE = bytes -> null;

    /**
     * Keeps {@code bytes} (borrowed: a view of part of the WRITE's data, its position..limit) as a block whose buffer
     * shares that memory, with capacity = {@code bytes.remaining()}. The caller owns the reference and releases it
     * once.
     *
     * @return the block, or null when that memory cannot be kept (the VFS then copies the bytes)
     */
    ByteBuf keep(ByteBuffer bytes);
}
