package org.rpcrdma4j.nfs.server.v4;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;

import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.FileType;
import org.rpcrdma4j.nfs.NfsTime;
import org.rpcrdma4j.nfs.server.Export;
import org.rpcrdma4j.nfs.server.ExportClients;
import org.rpcrdma4j.nfs.server.ExportTable;
import org.rpcrdma4j.nfs.v4.Nfs4Exception;
import org.rpcrdma4j.nfs.v4.Nfs4Status;

/**
 * The NFSv4 pseudo file system (RFC 8881 section 7.3): the read-only directories that lead from the root to the
 * exports, so that a client mounting {@code server:/srv/data} walks PUTROOTFH, LOOKUP "srv", LOOKUP "data" and lands
 * on the export's root. A pseudo directory's handle is a marker that no export id takes (4 bytes of {@code 0xff})
 * and the directory's path; an export's handles are its own ({@link Export#wrap}). When "/" itself is exported there
 * is no pseudo directory at all. A client sees only the exports open to it, and the directories that lead to them
 * (as Linux's server shows them). Immutable.
 */
final class PseudoFs {
    private static final byte MARK = (byte) 0xff;
    /** The fsid of the pseudo directories: major 0, minor 0 (each export has its own, see {@link #fsidMajor}). */
    static final long PSEUDO_FSID = 0;

    private final ExportTable exports;
    private final TreeSet<String> directories = new TreeSet<>();
    private final NfsTime bootTime = NfsTime.now();

    PseudoFs(ExportTable exports) {
        this.exports = exports;
        for (Export e : exports.all()) {
            String p = e.path();
            while (!p.equals("/")) {
                p = parentOf(p);
                directories.add(p);
            }
        }
        if (exports.byPath("/") == null) {
            directories.add("/");
        }
    }

    /** The handle PUTROOTFH sets for {@code client}: the root of an export of "/" open to it, else the pseudo root. */
    FileHandle root(InetAddress client) {
        Export whole = exports.byPath("/");
        return whole != null && whole.grant(client) != null ? whole.rootHandle() : handleOf("/");
    }

    boolean isPseudo(FileHandle wire) {
        byte[] b = wire.unsafeBytes();
        return b.length >= 5 && b[0] == MARK && b[1] == MARK && b[2] == MARK && b[3] == MARK;
    }

    /**
     * The path of a pseudo directory's handle; NFS4ERR_STALE when no such directory exists (any more), or leads to no
     * export open to {@code client}.
     */
    String path(FileHandle pseudo, InetAddress client) throws Nfs4Exception {
        byte[] b = pseudo.unsafeBytes();
        String p = new String(b, 4, b.length - 4, StandardCharsets.UTF_8);
        if (!directories.contains(p) || !leadsToExport(p, client)) {
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_STALE, "no pseudo directory " + p);
        }
        return p;
    }

    /**
     * {@code name} in the pseudo directory at {@code dir}: an export's root or another pseudo directory, as
     * {@code client} (null when unknown) sees them.
     *
     * @throws Nfs4Exception NFS4ERR_NOENT when the name leads to no export open to {@code client}
     */
    FileHandle lookup(String dir, String name, InetAddress client) throws Nfs4Exception {
        String p = dir.equals("/") ? "/" + name : dir + "/" + name;
        if (leadsToExport(p, client)) {
            Export e = exports.byPath(p);
            if (e != null && e.grant(client) != null) {
                return e.rootHandle();
            }
            if (directories.contains(p)) {
                return handleOf(p); // an export not open to the client, with one that is below it: a pseudo directory
            }
        }
        throw new Nfs4Exception(Nfs4Status.NFS4ERR_NOENT, name + " leads to no export");
    }

    /** Whether {@code path} is, or lies above, an export open to {@code client}. */
    private boolean leadsToExport(String path, InetAddress client) {
        String prefix = path.equals("/") ? "/" : path + "/";
        for (Export e : exports.all()) {
            if ((e.path().equals(path) || e.path().startsWith(prefix))
                    && e.access(client) != ExportClients.Access.NONE) {
                return true;
            }
        }
        return false;
    }

    /** The pseudo directory above an export's root or a pseudo directory; NFS4ERR_NOENT above the root. */
    FileHandle parent(String path) throws Nfs4Exception {
        if (path.equals("/")) {
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_NOENT, "the root has no parent");
        }
        return handleOf(parentOf(path));
    }

    /** The names in a pseudo directory that {@code client} (null when unknown) sees, sorted. */
    List<String> children(String dir, InetAddress client) {
        String prefix = dir.equals("/") ? "/" : dir + "/";
        TreeSet<String> names = new TreeSet<>();
        for (String d : directories) {
            addChild(names, prefix, d);
        }
        for (Export e : exports.all()) {
            addChild(names, prefix, e.path());
        }
        names.removeIf(name -> !leadsToExport(prefix + name, client));
        return List.copyOf(names);
    }

    private static void addChild(TreeSet<String> names, String prefix, String path) {
        if (path.length() > prefix.length() && path.startsWith(prefix) && path.indexOf('/', prefix.length()) < 0) {
            names.add(path.substring(prefix.length()));
        }
    }

    /** A pseudo directory as {@code client} sees it: read-only (0555), owned by root, its file id from its path. */
    FileAttributes attributes(String path, InetAddress client) {
        return new FileAttributes(FileType.DIRECTORY, 0555, 2 + children(path, client).size(), 0, 0, 4096, 4096, 0, 0,
                PSEUDO_FSID, fileid(path), bootTime, bootTime, bootTime);
    }

    /** A pseudo directory's file id: 1 for the root, a hash of the path (never 0 or 1) for the others. */
    static long fileid(String path) {
        if (path.equals("/")) {
            return 1;
        }
        long h = 1125899906842597L;
        for (byte b : path.getBytes(StandardCharsets.UTF_8)) {
            h = 31 * h + b;
        }
        return (h & Long.MAX_VALUE) | 2;
    }

    /** The fsid major number of an export: its id (the pseudo directories have 0). */
    static long fsidMajor(Export e) {
        return (e.id() & 0xffffffffL) | 0x100000000L;
    }

    FileHandle handleOf(String path) {
        byte[] p = path.getBytes(StandardCharsets.UTF_8);
        byte[] b = Arrays.copyOf(new byte[] {MARK, MARK, MARK, MARK}, 4 + p.length);
        System.arraycopy(p, 0, b, 4, p.length);
        return FileHandle.wrap(b);
    }

    private static String parentOf(String path) {
        int i = path.lastIndexOf('/');
        return i <= 0 ? "/" : path.substring(0, i);
    }
}
