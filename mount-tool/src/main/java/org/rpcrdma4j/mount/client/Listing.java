package org.rpcrdma4j.mount.client;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import org.rpcrdma4j.nfs.DirEntry;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.client.NfsMount;

/** Directory listings with attributes, as {@code ls} shows them. */
public final class Listing {
    private Listing() {
    }

    /** One entry: its name and attributes (null when the server sent none and a GETATTR failed). */
    public record Entry(String name, FileAttributes attributes) {
        public String format(boolean longFormat) {
            return longFormat ? Formats.longEntry(name, attributes) : Formats.shortEntry(name, attributes);
        }
    }

    /**
     * The entries of directory {@code path} (with attributes, fetched for entries READDIR gave none), or the one entry
     * of a file. Errors name the path.
     */
    public static List<Entry> list(NfsMount nfs, String path) throws IOException {
        FileAttributes a = Transfers.stat(nfs, path);
        List<Entry> entries = new ArrayList<>();
        if (!a.isDirectory()) {
            entries.add(new Entry(RemotePaths.name(path), a));
            return entries;
        }
        FileHandle dir;
        List<DirEntry> list;
        try {
            dir = nfs.resolve(path);
            list = nfs.list(dir);
        } catch (NfsException e) {
            throw Transfers.remote(path, e);
        }
        for (DirEntry e : list) {
            FileAttributes attrs = e.attributes();
            if (attrs == null) {
                try {
                    attrs = nfs.lookup(dir, e.name()).attributes();
                } catch (NfsException gone) {
                    attrs = null; // removed while listing
                }
            }
            entries.add(new Entry(e.name(), attrs));
        }
        return entries;
    }
}
