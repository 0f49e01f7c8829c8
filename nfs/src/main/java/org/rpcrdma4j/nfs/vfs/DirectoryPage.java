package org.rpcrdma4j.nfs.vfs;

import java.util.List;
import org.rpcrdma4j.nfs.DirEntry;

/**
 * One page of a directory listing.
 *
 * @param entries  the entries, each with its cookie, attributes and handle
 * @param eof      whether the listing ends with the last entry
 * @param verifier the cookie verifier the client sends back with a cookie from this page (0 from a VFS whose
 *                 cookies never move, which does not check it)
 */
public record DirectoryPage(List<DirEntry> entries, boolean eof, long verifier) {
}
