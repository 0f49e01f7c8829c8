package org.rpcrdma4j.nfs;

/** A file system object found or made: its handle and attributes (either may be null where the protocol allows). */
public record NfsObject(FileHandle handle, FileAttributes attributes) {
}
