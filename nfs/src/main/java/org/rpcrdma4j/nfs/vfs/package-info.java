/**
 * The file system interface of the embedded NFS server, {@link org.rpcrdma4j.nfs.vfs.Vfs}, and its two
 * implementations: {@link org.rpcrdma4j.nfs.vfs.MemoryVfs} (in memory, for tests and demos) and
 * {@link org.rpcrdma4j.nfs.vfs.LocalVfs} (a local directory, with handles that survive server restarts and
 * confinement to the exported tree).
 * <p>
 * A VFS speaks NFS semantics directly: failures are {@link org.rpcrdma4j.nfs.NfsException}s with the status the
 * server sends, handles are opaque bytes of at most {@link org.rpcrdma4j.nfs.vfs.Vfs#MAX_HANDLE_SIZE}, and the READ
 * and WRITE methods take {@link java.nio.ByteBuffer}s that they borrow for the call only, so that the server can hand
 * them memory that later goes straight to the wire (see {@code server.ReadBufferAllocator}). A VFS may also lend its
 * own memory for a READ ({@link org.rpcrdma4j.nfs.vfs.Vfs#lend}, {@link org.rpcrdma4j.nfs.vfs.LentRange}), as a
 * kernel server sends from its page cache: {@code MemoryVfs} does when its {@link org.rpcrdma4j.nfs.vfs.BlockMemory}
 * lends (blocks counted by their users, a lent block copied before it is changed). The other way round, a WRITE may
 * come with an offer of the memory its data arrived in ({@link org.rpcrdma4j.nfs.vfs.WriteMemory}), and
 * {@code MemoryVfs} keeps whole blocks of it as the file's blocks instead of copying them. Implementations are
 * thread-safe.
 */
package org.rpcrdma4j.nfs.vfs;
