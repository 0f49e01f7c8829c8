package org.rpcrdma4j.nfs.vfs;

import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;

/** The checks every {@link Vfs#copy} makes before it copies, so that each file system refuses the same ranges. */
final class CopyRanges {
    private CopyRanges() {
    }

    /**
     * The bytes a copy of {@code count} from {@code srcOffset} moves out of a source of {@code srcSize} (none from its
     * end or beyond), once {@link #check} has let them through.
     */
    static long copied(FileHandle src, long srcOffset, long srcSize, FileHandle dst, long dstOffset, long count,
                       long maxFileSize) throws NfsException {
        long n = srcOffset < 0 || srcOffset >= srcSize ? 0 : Math.min(count, srcSize - srcOffset);
        check(src, srcOffset, dst, dstOffset, n, maxFileSize);
        return n;
    }

    /**
     * Refuses a negative offset or count, a range of one file that overlaps itself ({@code NFS3ERR_INVAL}, as
     * copy_file_range(2) does), and a destination ending beyond {@code maxFileSize} ({@code NFS3ERR_FBIG}).
     *
     * @param count the bytes that will be copied (already cut to the source's size)
     */
    static void check(FileHandle src, long srcOffset, FileHandle dst, long dstOffset, long count, long maxFileSize)
            throws NfsException {
        if (srcOffset < 0 || dstOffset < 0 || count < 0) {
            throw new NfsException(Nfs3Status.NFS3ERR_INVAL, "negative offset or count");
        }
        if (dstOffset > maxFileSize - count) {
            throw new NfsException(Nfs3Status.NFS3ERR_FBIG, "copy ends beyond the largest file size");
        }
        if (count > 0 && src.equals(dst) && srcOffset < dstOffset + count && dstOffset < srcOffset + count) {
            throw new NfsException(Nfs3Status.NFS3ERR_INVAL, "source and destination ranges of one file overlap");
        }
    }
}
