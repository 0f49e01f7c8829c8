package org.rpcrdma4j.nfs.client;

import java.util.List;
import org.rpcrdma4j.nfs.DirEntry;
import org.rpcrdma4j.nfs.FileAttributes;

/**
 * One READDIR or READDIRPLUS reply.
 *
 * @param entries        the entries, in the server's order (with "." and ".." when the server sends them)
 * @param eof            whether the listing ends here
 * @param cookieVerifier to send back with the last entry's cookie to continue
 * @param dirAttributes  the directory's attributes, or null
 */
public record DirListing(List<DirEntry> entries, boolean eof, long cookieVerifier, FileAttributes dirAttributes) {
}
