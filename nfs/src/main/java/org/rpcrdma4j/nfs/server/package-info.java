/**
 * The embedded NFSv3 server.
 * <p>
 * {@link org.rpcrdma4j.nfs.server.Nfs3Program}, {@link org.rpcrdma4j.nfs.server.MountProgram} and
 * {@link org.rpcrdma4j.nfs.server.PortmapProgram} are oncrpc4j {@code RpcDispatchable}s: one-method dispatch on the
 * procedure number, XDR codecs from {@code nfs.xdr}, no transport types. {@link org.rpcrdma4j.nfs.server.NfsServer}
 * serves them over oncrpc4j TCP (NFS and MOUNT on one port) and exposes the same objects through
 * {@link org.rpcrdma4j.nfs.server.NfsServer#programs()} for an RDMA server to register.
 * <p>
 * <b>Zero-copy READ.</b> A READ's data is read by the VFS straight into a buffer from the server's
 * {@link org.rpcrdma4j.nfs.server.ReadBufferAllocator}, and the reply references that buffer
 * ({@code Xdr.xdrEncodeShallowByteBuffer}) instead of copying it; the buffer is released when the reply's send
 * completes. Over TCP the buffer is pooled direct memory the socket writes from; an RDMA server passes an allocator
 * that returns registered memory, which it then RDMA-writes into the client's write chunk. A VFS that lends its own
 * memory ({@code Vfs.lend}, e.g. a {@code MemoryVfs} whose blocks are registered memory) saves even that copy: the
 * reply references the lent views (one Grizzly composite), the RDMA server writes straight from the file's blocks,
 * and the range is released when the reply's send completes. WRITE data is handed to the VFS as a view of the
 * received message, with an offer of the memory it lies in ({@link org.rpcrdma4j.nfs.server.WriteMemorySource}): an
 * RDMA server offers the registered memory it pulled the data into, and a {@code MemoryVfs} keeps whole blocks of it
 * as the file's blocks instead of copying them.
 * <p>
 * <b>Handles.</b> A wire handle is a 4-byte export id followed by the VFS's handle, so one server may export several
 * trees ({@link org.rpcrdma4j.nfs.server.ExportTable}).
 * <p>
 * <b>Access.</b> An export is open to the hosts its {@link org.rpcrdma4j.nfs.server.ExportClients} name, each with a
 * grant (read-only or not, and how its root or all its users are squashed), as Linux's {@code /etc/exports} has it.
 * Every call acts as a {@link org.rpcrdma4j.nfs.server.Caller}, its AUTH_SYS identity squashed by that grant, and is
 * checked against the objects' modes ({@link org.rpcrdma4j.nfs.server.Permissions},
 * {@link org.rpcrdma4j.nfs.server.TargetChecks}) before the VFS, which acts as the server's own user, is asked.
 */
package org.rpcrdma4j.nfs.server;
