package org.rpcrdma4j.nfs.v4.state;

import org.rpcrdma4j.nfs.FileHandle;

/**
 * A delegation to recall (CB_RECALL, RFC 8881 section 20.2): whose it is, its stateid and file, and the OPEN that
 * granted it (null when not known).
 */
public record Recall(long clientId, Stateid stateid, FileHandle file, ReferringCall grantedBy) {
}
