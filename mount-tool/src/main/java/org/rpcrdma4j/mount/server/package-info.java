/**
 * The embedded server of {@code serve} and {@code demo}: {@link org.rpcrdma4j.mount.server.EmbeddedServer} exports a
 * local directory through the nfs module's {@link org.rpcrdma4j.nfs.server.rdma.NfsRdmaServer} (NFSv3 over RDMA and
 * TCP, MOUNT over TCP) on a device it opens, and says how to mount it (URLs, the Linux mount command).
 */
package org.rpcrdma4j.mount.server;
