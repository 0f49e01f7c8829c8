package org.rpcrdma4j.nfs.client;

import org.rpcrdma4j.nfs.FileAttributes;

/**
 * What a READ returned (its data is in the caller's buffer).
 *
 * @param count      bytes placed into the buffer
 * @param eof        whether the read reached the end of the file
 * @param attributes the file's attributes after the read, or null
 */
public record ReadReply(int count, boolean eof, FileAttributes attributes) {
}
