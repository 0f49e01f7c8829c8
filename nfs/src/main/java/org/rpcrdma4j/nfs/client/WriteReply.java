package org.rpcrdma4j.nfs.client;

import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.StableHow;

/**
 * What a WRITE did.
 *
 * @param count      bytes the server wrote (may be fewer than sent: a short write)
 * @param committed  how durably
 * @param verifier   the server's write verifier; data written UNSTABLE is safe only once a COMMIT returns the same
 * @param attributes the file's attributes after the write, or null
 */
public record WriteReply(long count, StableHow committed, long verifier, FileAttributes attributes) {
}
