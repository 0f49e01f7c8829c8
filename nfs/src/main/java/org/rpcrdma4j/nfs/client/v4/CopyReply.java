package org.rpcrdma4j.nfs.client.v4;

import org.rpcrdma4j.nfs.StableHow;

/**
 * What one COPY within the server did (RFC 7862 section 15.2): a server may copy fewer bytes than asked, as a WRITE
 * may write fewer; {@link Nfs41Client#copy} asks again for the rest.
 *
 * @param count     bytes copied; 0 when the source has none at the offset
 * @param committed how durably the copied bytes are stored
 * @param verifier  the server's write verifier; bytes copied UNSTABLE are safe only once a COMMIT returns the same
 */
public record CopyReply(long count, StableHow committed, long verifier) {
}
