package org.rpcrdma4j.nfs.vfs;

import java.nio.ByteBuffer;

/**
 * Bytes of a file lent by the VFS without a copy ({@link Vfs#lend}): read-only views of the VFS's own memory, in file
 * order, which hold what the file contained when they were lent (a later write to the same bytes does not change
 * them). The borrower owns the range until it calls {@link #release()}, exactly once, when it no longer reads the
 * views (a server: once the reply that carries them has been sent, or could not be).
 */
public interface LentRange {

    /** Bytes lent: the sum of the pieces' remaining bytes. */
    int count();

    /** Whether the range reaches the end of the file. */
    boolean eof();

    /** Number of views. */
    int pieceCount();

    /** View {@code i}: read-only, its position to its limit are the bytes. */
    ByteBuffer piece(int i);

    /** Gives the memory back to the VFS. */
    void release();
}
