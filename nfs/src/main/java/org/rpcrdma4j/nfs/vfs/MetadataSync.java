package org.rpcrdma4j.nfs.vfs;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The directories (and new objects) one call of {@link LocalVfs} changed, forced to disk after the call: opened while
 * the call holds its paths, forced once it has let them go, so an fsync never holds up other calls. Best effort: an
 * object that cannot be opened (no read permission, a file system that does not open directories) or forced (one
 * that refuses fsync on a directory) is left to the file system's own writeback, and the call does not fail for it,
 * since its change has been made. One call, one thread; closing closes what is still open.
 */
final class MetadataSync implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MetadataSync.class);
    private static final java.util.concurrent.atomic.AtomicBoolean WARNED = new java.util.concurrent.atomic.AtomicBoolean();

    private final AtomicLong forced;
    /** A call changes at most two directories, or a directory and a new object. */
    private final FileChannel[] channels = new FileChannel[2];
    private int count;

    /** @param forced counts the objects forced */
    MetadataSync(AtomicLong forced) {
        this.forced = forced;
    }

    /** Opens {@code p} to be forced later; while the caller still holds the path. */
    void add(Path p) {
        try {
            FileChannel opened = FileChannel.open(p, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
            channels[count++] = opened;
        } catch (IOException | UnsupportedOperationException e) {
            LOG.debug("cannot open {} to force it to disk: {}", p, e.toString());
        }
    }

    /** Forces and closes what was added. */
    void force() {
        for (int i = 0; i < count; i++) {
            try {
                channels[i].force(true);
                forced.incrementAndGet();
            } catch (IOException e) {
                // a file system that does not sync directories would say so on every call: once at WARN, then DEBUG
                if (WARNED.compareAndSet(false, true)) {
                    LOG.warn("forcing a directory or new object to disk failed (the change stands; further failures are "
                            + "logged at DEBUG): {}", e.toString());
                } else {
                    LOG.debug("forcing a directory or new object to disk failed: {}", e.toString());
                }
            }
        }
        close();
    }

    @Override
    public void close() {
        for (int i = 0; i < count; i++) {
            try {
                channels[i].close();
            } catch (IOException e) {
                LOG.debug("closing: {}", e.toString());
            }
        }
        count = 0;
    }
}
