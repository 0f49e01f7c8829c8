package org.rpcrdma4j.nfs.server;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.WccAttr;
import org.rpcrdma4j.nfs.WccData;

/**
 * The server's changes of directories, each made under a hold of its directory with the directory's attributes read
 * just before and just after it, so that no other call through the server changes the directory in between: what
 * NFSv3's {@code wcc_data} (pre-operation attributes) and NFSv4's {@code change_info4} (atomic) tell a client. A client
 * whose cached attributes equal the ones before then knows its own change is the only one, and keeps what it has
 * cached of the directory (Linux's client otherwise looks every name of the directory up again). Every call that
 * changes a directory's entries or attributes goes through here: CREATE, MKDIR, SYMLINK, MKNOD, REMOVE, RMDIR, RENAME
 * (both directories), LINK, NFSv4's OPEN with create, and SETATTR of a directory. Changes of one directory so run one
 * at a time, as Linux's server runs them under the directory's inode lock; changes of different directories never
 * wait for each other. What is not held back: changes made to a {@code LocalVfs} directory on the server itself, or to
 * a VFS by the program that embeds it, in the moment between.
 * <p>
 * A directory is held by its export and VFS handle; a hold exists while someone holds it or waits for it. RENAME takes
 * its two directories in the order of their handles.
 */
public final class DirectoryChanges {
    /** A directory: its export's id and its VFS handle. */
    private record Key(int export, FileHandle fh) implements Comparable<Key> {
        static Key of(ExportTable.Target dir) {
            return new Key(dir.export().id(), dir.fh());
        }

        @Override
        public int compareTo(Key o) {
            int c = Integer.compare(export, o.export);
            return c != 0 ? c : Arrays.compare(fh.unsafeBytes(), o.fh.unsafeBytes());
        }
    }

    /** The lock of one directory and how many calls hold it or wait for it (changed only within the map's compute). */
    private static final class Hold {
        final ReentrantLock lock = new ReentrantLock();
        int users;
    }

    private final ConcurrentHashMap<Key, Hold> holds = new ConcurrentHashMap<>();

    /** A change of one or two directories, made while they are held; {@code E}: what else it may throw. */
    public interface Change<E extends Exception> {
        void run() throws NfsException, E;
    }

    /** What one directory looked like just before and just after a change; either null when it could not be read. */
    public static final class Seen {
        private FileAttributes before;
        private FileAttributes after;

        public FileAttributes before() {
            return before;
        }

        public FileAttributes after() {
            return after;
        }

        /** Whether the directory was read on both sides of a change. */
        public boolean complete() {
            return before != null && after != null;
        }

        /** NFSv3's {@code wcc_data}: the sides that were read; null when the directory was not read after a change. */
        public WccData wcc() {
            return after == null ? null : new WccData(before == null ? null : WccAttr.of(before), after);
        }
    }

    /** Runs {@code change} of {@code dir} under its hold, into {@code seen}. */
    public <E extends Exception> void change(ExportTable.Target dir, Seen seen, Change<E> change)
            throws NfsException, E {
        Key key = Key.of(dir);
        Hold hold = take(key);
        try {
            seen.before = dir.export().vfs().getattr(dir.fh());
            try {
                change.run();
            } finally {
                seen.after = attributesOrNull(dir);
            }
        } finally {
            release(key, hold);
        }
    }

    /** Runs {@code change} of {@code from} and {@code to} (RENAME) under both holds, into the two {@code Seen}. */
    public <E extends Exception> void change(ExportTable.Target from, Seen fromSeen, ExportTable.Target to,
                                             Seen toSeen, Change<E> change) throws NfsException, E {
        Key a = Key.of(from);
        Key b = Key.of(to);
        Key first = a.compareTo(b) <= 0 ? a : b;
        Key second = first == a ? b : a;
        Hold firstHold = take(first);
        try {
            Hold secondHold = take(second); // one directory twice: its lock is reentrant, its users counted twice
            try {
                bracket(from, fromSeen, to, toSeen, change);
            } finally {
                release(second, secondHold);
            }
        } finally {
            release(first, firstHold);
        }
    }

    private static <E extends Exception> void bracket(ExportTable.Target from, Seen fromSeen, ExportTable.Target to,
                                                      Seen toSeen, Change<E> change) throws NfsException, E {
        fromSeen.before = from.export().vfs().getattr(from.fh());
        toSeen.before = to.export().vfs().getattr(to.fh());
        try {
            change.run();
        } finally {
            fromSeen.after = attributesOrNull(from);
            toSeen.after = attributesOrNull(to);
        }
    }

    private Hold take(Key key) {
        Hold hold = holds.compute(key, (k, old) -> {
            Hold h = old == null ? new Hold() : old;
            h.users++;
            return h;
        });
        hold.lock.lock();
        return hold;
    }

    private void release(Key key, Hold hold) {
        hold.lock.unlock();
        holds.computeIfPresent(key, (k, h) -> --h.users == 0 ? null : h);
    }

    /** Directories held or waited for now (tests). */
    int held() {
        return holds.size();
    }

    private static FileAttributes attributesOrNull(ExportTable.Target dir) {
        try {
            return dir.export().vfs().getattr(dir.fh());
        } catch (NfsException | RuntimeException e) {
            return null;
        }
    }
}
