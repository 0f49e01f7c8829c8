package org.rpcrdma4j.mount.client;

import java.util.ArrayDeque;
import java.util.Deque;

/** Paths inside an export: always absolute ("/" is the export's root), normalised, with "." and ".." resolved. */
public final class RemotePaths {
    private RemotePaths() {
    }

    /** {@code path} resolved against the directory {@code cwd} (both inside the export). */
    public static String resolve(String cwd, String path) {
        String joined = path.startsWith("/") ? path : cwd + "/" + path;
        Deque<String> parts = new ArrayDeque<>();
        for (String p : joined.split("/")) {
            if (p.isEmpty() || p.equals(".")) {
                continue;
            }
            if (p.equals("..")) {
                parts.pollLast(); // ".." of the root is the root
            } else {
                parts.addLast(p);
            }
        }
        return "/" + String.join("/", parts);
    }

    /** The last component ("" for the root). */
    public static String name(String path) {
        String p = resolve("/", path);
        return p.substring(p.lastIndexOf('/') + 1);
    }

    /** The parent directory ("/" for the root and its children). */
    public static String parent(String path) {
        String p = resolve("/", path);
        int slash = p.lastIndexOf('/');
        return slash <= 0 ? "/" : p.substring(0, slash);
    }

    /** {@code name} inside directory {@code dir}. */
    public static String child(String dir, String name) {
        return resolve(dir, name);
    }
}
