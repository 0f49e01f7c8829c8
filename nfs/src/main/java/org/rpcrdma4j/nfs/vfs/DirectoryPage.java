package org.rpcrdma4j.nfs.vfs;

import java.util.List;
import org.rpcrdma4j.nfs.DirEntry;

/**
 * One page of a directory listing.
 *
 * @param entries  the entries, each with its cookie, attributes and handle
 * @param eof      whether the listing ends with the last entry
 * @param verifier the cookie verifier the client must send back with a cookie from this page
 */
public record DirectoryPage(List<DirEntry> entries, boolean eof, long verifier) {
}
