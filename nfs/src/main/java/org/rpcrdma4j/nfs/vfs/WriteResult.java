package org.rpcrdma4j.nfs.vfs;

import org.rpcrdma4j.nfs.StableHow;

/**
 * What {@link Vfs#write} did.
 *
 * @param count     bytes written
 * @param committed how durably they were stored (at least as durable as asked)
 */
public record WriteResult(int count, StableHow committed) {
}
