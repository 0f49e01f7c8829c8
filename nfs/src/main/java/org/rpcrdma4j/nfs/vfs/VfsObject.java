package org.rpcrdma4j.nfs.vfs;

import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileHandle;

/** A file system object found or made: its handle and attributes. */
public record VfsObject(FileHandle handle, FileAttributes attributes) {
}
