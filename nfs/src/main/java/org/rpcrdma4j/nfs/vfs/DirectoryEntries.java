package org.rpcrdma4j.nfs.vfs;

import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * A directory's entries of an in-memory file system: by name, and by the READDIR cookie each got when it was linked
 * into the directory. Cookies only grow and are never given twice, so a listing resumed from a cookie goes on after
 * the entry it named, whatever was created or removed meanwhile: nothing it had not reached yet is skipped, nothing it
 * listed comes again. (A cookie that was a position in the sorted names moved with every earlier create or remove, and
 * a client that resumed without a cookie verifier, as Linux's does after it drops a directory's cache, lost or
 * repeated entries.) Cookies 1 and 2 are "." and "..", so the entries' start at 3. Not thread-safe: the VFS's lock.
 *
 * @param <N> the node type
 */
final class DirectoryEntries<N> {
    static final long FIRST_COOKIE = 3;

    private final Map<String, N> byName = new HashMap<>();
    private final Map<String, Long> cookieOf = new HashMap<>();
    private final TreeMap<Long, String> byCookie = new TreeMap<>();
    private long next = FIRST_COOKIE;

    N get(String name) {
        return byName.get(name);
    }

    boolean containsKey(String name) {
        return byName.containsKey(name);
    }

    int size() {
        return byName.size();
    }

    boolean isEmpty() {
        return byName.isEmpty();
    }

    /** Links {@code node} as {@code name} with a new cookie (a name linked again is listed as new). */
    void put(String name, N node) {
        remove(name);
        byName.put(name, node);
        cookieOf.put(name, next);
        byCookie.put(next, name);
        next++;
    }

    N remove(String name) {
        N n = byName.remove(name);
        Long cookie = cookieOf.remove(name);
        if (cookie != null) {
            byCookie.remove(cookie);
        }
        return n;
    }

    void clear() {
        byName.clear();
        cookieOf.clear();
        byCookie.clear();
    }

    /** The entries after {@code cookie}, in cookie order: cookie to name. */
    NavigableMap<Long, String> after(long cookie) {
        return byCookie.tailMap(cookie, false);
    }

    /** Whether {@code cookie} was ever given out here (or is one of "." and ".."'s). */
    boolean issued(long cookie) {
        return cookie >= 0 && cookie < next;
    }
}
