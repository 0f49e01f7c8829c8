/**
 * A mount as the commands use it. {@link org.rpcrdma4j.mount.client.Session} opens the RDMA device (owning it),
 * mounts through the nfs module's {@link org.rpcrdma4j.nfs.client.NfsMounts} with a counting transport wrapper
 * ({@link org.rpcrdma4j.mount.client.CountingTransport}, per-procedure {@link org.rpcrdma4j.mount.client.OpCounters}),
 * and exposes the RDMA transport's counters. {@link org.rpcrdma4j.mount.client.Transfers} copies files without ever
 * leaving a partial file under the final name (temporary name, rename when complete, removal on failure or
 * interruption). {@link org.rpcrdma4j.mount.client.Formats} and {@link org.rpcrdma4j.mount.client.Listing} print as
 * {@code ls -l}, {@code stat} and {@code df} do; {@link org.rpcrdma4j.mount.client.Devices} turns provider failures
 * into one line ending with the way out.
 */
package org.rpcrdma4j.mount.client;
