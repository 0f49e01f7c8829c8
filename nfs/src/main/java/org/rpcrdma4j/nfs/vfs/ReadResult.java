package org.rpcrdma4j.nfs.vfs;

/**
 * What {@link Vfs#read} did.
 *
 * @param count bytes read into the buffer
 * @param eof   whether the read reached the end of the file
 */
public record ReadResult(int count, boolean eof) {
}
