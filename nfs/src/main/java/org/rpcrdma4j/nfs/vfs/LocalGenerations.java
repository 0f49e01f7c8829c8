package org.rpcrdma4j.nfs.vfs;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.rpcrdma4j.nfs.vfs.LocalHandleIndex.FileKey;

/**
 * Generation numbers for the file identities ({@code dev}, {@code ino}) of a {@link LocalVfs}, standing in for the
 * inode generation numbers the JDK does not expose. A file system may give a new file the inode number of one just
 * removed; a handle of the removed file would then name the new one, and a client still holding it would read and
 * write the new file as its own. So when a call through the server removes an identity's last name (REMOVE, RMDIR,
 * a RENAME over it), the identity's generation becomes a fresh stamp, larger than every stamp given before, in this
 * run or an earlier one (stamps follow the clock), and a handle carries the generation its identity had when it was
 * made: one older than its identity's generation was made before the removal and is stale.
 * <p>
 * Only identities removed through this instance have a generation; the others are at 0, and a handle of such an
 * identity is taken whatever generation it carries (so that handles made before a restart keep working). What is not
 * caught: a file removed on the server itself, or before a restart, whose inode number a new file takes. At most
 * {@link #MAX_KEPT} identities are kept, the ones removed longest ago let go first (their handles are then taken
 * again, as before a removal). Thread-safe.
 */
final class LocalGenerations {
    /** The most identities whose generation is kept (about 100 bytes each). */
    static final int MAX_KEPT = 1 << 17;

    private final Map<FileKey, Long> generations = new ConcurrentHashMap<>();
    /** Identities in the order they were removed, to let the oldest go: a ring of {@link #capacity}. */
    private final FileKey[] removed;
    private int next;
    private final AtomicLong lastStamp = new AtomicLong();

    LocalGenerations() {
        this(MAX_KEPT);
    }

    LocalGenerations(int capacity) {
        this.removed = new FileKey[capacity];
    }

    /** The generation a new handle of {@code key} carries: 0 unless the identity was removed through the server. */
    long of(FileKey key) {
        Long g = generations.get(key);
        return g == null ? 0 : g;
    }

    /** Whether a handle of {@code key} carrying {@code generation} names the identity's present file. */
    boolean current(FileKey key, long generation) {
        Long g = generations.get(key);
        return g == null || generation >= g;
    }

    /** The last name of {@code key}'s file was removed: its handles made until now are stale. */
    synchronized void removed(FileKey key) {
        if (generations.put(key, stamp()) == null) {
            FileKey oldest = removed[next];
            if (oldest != null) {
                generations.remove(oldest);
            }
            removed[next] = key;
            next = (next + 1) % removed.length;
        }
    }

    /** Identities whose generation is kept (tests). */
    int kept() {
        return generations.size();
    }

    /** Larger than every stamp before, in this run (counted) and in earlier ones (microseconds of the clock). */
    private long stamp() {
        long now = System.currentTimeMillis() * 1000;
        return lastStamp.updateAndGet(last -> Math.max(last + 1, now));
    }
}
