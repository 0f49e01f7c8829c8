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

/**
 * Where, below the export root, each file identity ({@code dev}, {@code ino}) was last seen: a parent pointer and a
 * name per identity, so that renaming a directory updates one entry. The JDK cannot open a file by inode, so a file
 * handle (which carries the identity) is turned back into a path here; after a server restart the index is empty
 * and is rebuilt by walking the export tree once, on the first handle it cannot place.
 * <p>
 * Paths only ever come from walking down from the root (never from a handle's content), so no handle can name a
 * path outside the export. Thread-safe; rebuilds are serialized.
 */
final class LocalHandleIndex {
    /** A file's identity on the server. */
    record FileKey(long dev, long ino) {
    }

    private record Link(FileKey parent, String name) {
    }

    private static final int MAX_DEPTH = 4096;

    private final Path root;
    private final FileKey rootKey;
    private final Map<FileKey, Link> links = new ConcurrentHashMap<>();
    private final Object rebuildLock = new Object();

    LocalHandleIndex(Path root, FileKey rootKey) {
        this.root = root;
        this.rootKey = rootKey;
    }

    FileKey rootKey() {
        return rootKey;
    }

    void record(FileKey key, FileKey parent, String name) {
        if (!key.equals(rootKey)) {
            links.put(key, new Link(parent, name));
        }
    }

    void forget(FileKey key) {
        links.remove(key);
    }

    /** The path last recorded for {@code key}, or null. Not verified: the caller checks the identity it finds. */
    Path pathOf(FileKey key) {
        if (key.equals(rootKey)) {
            return root;
        }
        List<String> names = new ArrayList<>();
        FileKey k = key;
        for (int depth = 0; !k.equals(rootKey); depth++) {
            Link link = links.get(k);
            if (link == null || depth > MAX_DEPTH) {
                return null;
            }
            names.add(link.name());
            k = link.parent();
        }
        Path p = root;
        for (int i = names.size() - 1; i >= 0; i--) {
            p = p.resolve(names.get(i));
        }
        return p;
    }

    /**
     * Walks the whole export (not following symbolic links), recording every identity, and returns the path of
     * {@code wanted} or null when it is not in the tree.
     */
    Path rebuild(FileKey wanted) {
        synchronized (rebuildLock) {
            Path known = pathOf(wanted);
            if (known != null && wanted.equals(keyOrNull(known))) {
                return known; // another thread's rebuild found it meanwhile
            }
            Path found = null;
            ArrayDeque<Path> dirs = new ArrayDeque<>();
            dirs.add(root);
            while (!dirs.isEmpty()) {
                Path dir = dirs.poll();
                FileKey dirKey = keyOrNull(dir);
                if (dirKey == null) {
                    continue;
                }
                try (DirectoryStream<Path> children = Files.newDirectoryStream(dir)) {
                    for (Path child : children) {
                        FileKey childKey = keyOrNull(child);
                        if (childKey == null) {
                            continue;
                        }
                        record(childKey, dirKey, child.getFileName().toString());
                        if (childKey.equals(wanted)) {
                            found = child;
                        }
                        if (Files.isDirectory(child, LinkOption.NOFOLLOW_LINKS)) {
                            dirs.add(child);
                        }
                    }
                } catch (IOException e) {
                    // a directory that vanished or cannot be read: skip it
                }
            }
            return found;
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
