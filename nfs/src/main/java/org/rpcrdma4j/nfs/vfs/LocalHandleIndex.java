package org.rpcrdma4j.nfs.vfs;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;

/**
 * Where, below the export root, each file identity ({@code dev}, {@code ino}) was last seen: a parent pointer and a
 * name per identity, so that renaming a directory updates one entry. The JDK cannot open a file by inode, so a file
 * handle (which carries the identity) is turned back into a path here; after a server restart the index is empty
 * and is rebuilt by walking the export tree once, on the first handle it cannot place.
 * <p>
 * <b>Hard links.</b> A file may have several names; the index keeps up to {@link #MAX_NAMES} of them per identity,
 * the one seen last first, and {@link #locate} tries them in turn. So when the name a handle was reached by is
 * removed (or renamed away) while another name the index saw remains, the handle goes on working through that one,
 * without a walk; a name it never saw (made on the server itself) is found by a walk, as a moved file is.
 * <p>
 * Paths only ever come from walking down from the root (never from a handle's content), so no handle can name a
 * path outside the export: every name kept was read from a directory or checked by {@link VfsNames} and made in a
 * directory that was itself reached from the root. Thread-safe; rebuilds are serialized.
 * <p>
 * <b>Walks are rationed.</b> Anyone who can see the export's root identity can make handles that pass their integrity
 * check (unless the export has a secret key). So once a walk has read every directory, an identity the index has never
 * held is no file of the export: its handle is stale without a walk. A handle whose recorded path no longer leads to
 * its file (moved or removed on the server itself) needs a walk: after a walk of a millisecond or more the next may
 * start only once {@link #WALK_SHARE} times its length has passed, and such a handle is {@code NFS3ERR_JUKEBOX}
 * (NFSv4: {@code NFS4ERR_DELAY}) before then, which clients answer by asking again later. An identity that two
 * complete walks in a row did not find (nor anyone recorded meanwhile) is dropped, and stale from then on: one walk
 * could have missed a directory being moved on the server while it ran, two would have to miss it twice.
 */
final class LocalHandleIndex {
    /** A file's identity on the server. */
    record FileKey(long dev, long ino) {
    }

    /** A name of an identity: its directory's identity and the name in it. */
    private record Name(FileKey parent, String name) {
    }

    /**
     * Where an identity was seen: its names, the one seen last first; none: it has a name the index does not know (a
     * walk finds it). {@code recorded} orders records against walks; {@code missed}: the last complete walk did not
     * find it.
     */
    private record Link(List<Name> names, long recorded, boolean missed) {
        Name first() {
            return names.isEmpty() ? null : names.get(0);
        }
    }

    private static final int MAX_DEPTH = 4096;
    /** The most names of one identity kept: a file with more is found by a walk once all those kept are gone. */
    static final int MAX_NAMES = 8;
    /** A walk may start once this many times the last walk's length has passed since it ended. */
    static final int WALK_SHARE = 4;
    /** Walks shorter than this are never rationed: a small tree is walked whenever a handle asks for it. */
    static final long RATIONED_WALK_NANOS = 1_000_000L;

    private final Path root;
    private final FileKey rootKey;
    private final Map<FileKey, Link> links = new ConcurrentHashMap<>();
    private final Object rebuildLock = new Object();
    private final LongSupplier clock;
    /** Under {@link #rebuildLock}: when the next walk may start ({@link #clock}'s time). */
    private long nextWalk;
    /** A walk has read every directory of the tree: the index then holds every identity there was. */
    private boolean walkedWhole;
    private long walks;
    /** Counts records: a link recorded during a walk is newer than the walk's start. */
    private final java.util.concurrent.atomic.AtomicLong records = new java.util.concurrent.atomic.AtomicLong();

    LocalHandleIndex(Path root, FileKey rootKey) {
        this(root, rootKey, System::nanoTime);
    }

    LocalHandleIndex(Path root, FileKey rootKey, LongSupplier clock) {
        this.root = root;
        this.rootKey = rootKey;
        this.clock = clock;
    }

    /** Walks of the whole tree made so far. */
    long walks() {
        synchronized (rebuildLock) {
            return walks;
        }
    }

    FileKey rootKey() {
        return rootKey;
    }

    /** {@code key} was seen as {@code name} in {@code parent}: that name comes first, the others it had stay. */
    void record(FileKey key, FileKey parent, String name) {
        if (!key.equals(rootKey)) {
            Name seen = new Name(parent, name);
            // the stamp is taken within the entry's update: a record racing a walk's is ordered with it
            links.compute(key, (k, old) -> new Link(withFirst(old == null ? List.of() : old.names(), seen),
                    records.incrementAndGet(), false));
        }
    }

    /**
     * The name {@code name} in {@code parent} of {@code key}'s file was removed. When it was the file's {@code last}
     * name the index lets the file go (its handles are stale); else the file keeps its place under its other names,
     * and when the index knows none of them, with its other name unknown, for a walk to find.
     */
    void forget(FileKey key, FileKey parent, String name, boolean last) {
        if (last) {
            links.remove(key);
            return;
        }
        Name gone = new Name(parent, name);
        links.compute(key, (k, old) -> old == null ? new Link(List.of(), records.incrementAndGet(), false)
                : old.names().contains(gone) ? new Link(without(old.names(), gone), records.incrementAndGet(), false)
                : old);
    }

    /** {@code key}'s file was renamed from {@code fromName} in {@code from} to {@code toName} in {@code to}. */
    void renamed(FileKey key, FileKey from, String fromName, FileKey to, String toName) {
        Name gone = new Name(from, fromName);
        Name seen = new Name(to, toName);
        links.compute(key, (k, old) -> new Link(withFirst(old == null ? List.of() : without(old.names(), gone), seen),
                records.incrementAndGet(), false));
    }

    private static List<Name> withFirst(List<Name> names, Name first) {
        List<Name> out = new ArrayList<>(Math.min(names.size() + 1, MAX_NAMES));
        out.add(first);
        for (Name n : names) {
            if (out.size() < MAX_NAMES && !n.equals(first)) {
                out.add(n);
            }
        }
        return List.copyOf(out);
    }

    private static List<Name> without(List<Name> names, Name gone) {
        List<Name> out = new ArrayList<>(names);
        out.remove(gone);
        return List.copyOf(out);
    }

    /** The path last recorded for {@code key}, or null. Not verified: the caller checks the identity it finds. */
    Path pathOf(FileKey key) {
        if (key.equals(rootKey)) {
            return root;
        }
        Link link = links.get(key);
        return link == null ? null : pathOf(link.first());
    }

    /** The path of {@code name} through the names recorded for its directory and theirs, or null. */
    private Path pathOf(Name name) {
        if (name == null) {
            return null;
        }
        List<String> names = new ArrayList<>();
        names.add(name.name());
        FileKey k = name.parent();
        for (int depth = 0; !k.equals(rootKey); depth++) {
            Link link = links.get(k);
            Name n = link == null ? null : link.first();
            if (n == null || depth > MAX_DEPTH) {
                return null;
            }
            names.add(n.name());
            k = n.parent();
        }
        Path p = root;
        try {
            for (int i = names.size() - 1; i >= 0; i--) {
                p = p.resolve(names.get(i));
            }
        } catch (java.nio.file.InvalidPathException e) {
            return null; // recorded under another file name encoding
        }
        return p;
    }

    /**
     * The first of the paths recorded for {@code key} (the one seen last first, then its other names) that
     * {@code leadsToIt} accepts, which then comes first; null when none does (the caller then {@linkplain #rebuild
     * walks}).
     */
    Path locate(FileKey key, Predicate<Path> leadsToIt) {
        if (key.equals(rootKey)) {
            return leadsToIt.test(root) ? root : null;
        }
        Link link = links.get(key);
        if (link == null) {
            return null;
        }
        for (Name n : link.names()) {
            Path p = pathOf(n);
            if (p != null && leadsToIt.test(p)) {
                if (!n.equals(link.first())) {
                    record(key, n.parent(), n.name());
                }
                return p;
            }
        }
        return null;
    }

    /**
     * The path of {@code wanted} when its recorded one does not lead to it: null when it is no file of the export (not
     * held since a walk, or not found by one), else found by walking the whole export (not following symbolic links),
     * which leaves the index holding what it found (and what was recorded meanwhile).
     *
     * @throws NfsException NFS3ERR_JUKEBOX when a walk is needed and the last was too recent (class comment)
     */
    Path rebuild(FileKey wanted) throws NfsException {
        synchronized (rebuildLock) {
            Path known = pathOf(wanted);
            if (known != null && wanted.equals(keyOrNull(known))) {
                return known; // another thread's rebuild found it meanwhile
            }
            if (walkedWhole && !links.containsKey(wanted)) {
                return null; // not in the tree when it was walked whole, nor made since: no file of the export
            }
            long start = clock.getAsLong();
            if (walks > 0 && start - nextWalk < 0) {
                throw new NfsException(Nfs3Status.NFS3ERR_JUKEBOX, "this handle's file has moved since the "
                        + "export was last walked, moments ago; ask again later");
            }
            long before = records.get();
            Walk w = new Walk(wanted);
            w.run();
            if (w.whole) {
                // what the walk did not find, and nobody recorded meanwhile: dropped when the walk before missed it too
                links.entrySet().removeIf(e -> e.getValue().recorded() <= before && e.getValue().missed());
                links.replaceAll((k, l) -> l.recorded() <= before ? new Link(l.names(), l.recorded(), true) : l);
                walkedWhole = true;
            }
            long end = clock.getAsLong();
            walks++;
            long length = end - start;
            nextWalk = length < RATIONED_WALK_NANOS ? end : end + WALK_SHARE * length;
            return w.found;
        }
    }

    /** One walk of the whole tree: records every identity it finds. */
    private final class Walk {
        private final FileKey wanted;
        /** The path of {@link #wanted}, or null. */
        Path found;
        /** Whether every directory was read (none vanished, none refused, none failed halfway). */
        boolean whole = true;

        Walk(FileKey wanted) {
            this.wanted = wanted;
        }

        void run() {
            ArrayDeque<Path> dirs = new ArrayDeque<>();
            dirs.add(root);
            while (!dirs.isEmpty()) {
                Path dir = dirs.poll();
                FileKey dirKey = keyOrNull(dir);
                if (dirKey == null) {
                    whole = false;
                    continue;
                }
                try (DirectoryStream<Path> children = Files.newDirectoryStream(dir)) {
                    for (Path child : children) {
                        String name = LocalNames.nameOf(child);
                        FileKey childKey = name == null ? null : keyOrNull(child);
                        if (childKey == null) {
                            continue; // removed while listed, or a name no client can use (LocalNames)
                        }
                        record(childKey, dirKey, name);
                        if (childKey.equals(wanted)) {
                            found = child;
                        }
                        if (Files.isDirectory(child, LinkOption.NOFOLLOW_LINKS)) {
                            dirs.add(child);
                        }
                    }
                } catch (IOException | java.nio.file.DirectoryIteratorException e) {
                    whole = false; // a directory that vanished or cannot be read: what is below it is kept as it was
                }
            }
        }
    }

    static FileKey keyOf(Path p) throws IOException {
        Map<String, Object> a = Files.readAttributes(p, "unix:dev,ino", LinkOption.NOFOLLOW_LINKS);
        return new FileKey((Long) a.get("dev"), (Long) a.get("ino"));
    }

    static FileKey keyOrNull(Path p) {
        try {
            return keyOf(p);
        } catch (IOException e) {
            return null;
        }
    }
}
