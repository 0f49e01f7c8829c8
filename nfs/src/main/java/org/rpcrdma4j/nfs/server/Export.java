package org.rpcrdma4j.nfs.server;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Objects;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.vfs.Vfs;

/**
 * One exported tree: the path clients mount, the {@link Vfs} behind it, and a 4-byte id that prefixes every file
 * handle of the export on the wire (so that one server can serve several exports). The id is derived from the path,
 * so handles survive restarts.
 *
 * @param path     the path clients mount, e.g. "/data"
 * @param vfs      the tree; the export does not own it (closing the server does not close it)
 * @param readOnly whether every change is refused with {@code NFS3ERR_ROFS}, whatever {@code clients} say
 * @param clients  the hosts the export is open to, and which of them may change it
 */
public record Export(String path, Vfs vfs, boolean readOnly, int id, ExportClients clients) {
    public Export {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(vfs, "vfs");
        Objects.requireNonNull(clients, "clients");
        if (!path.startsWith("/")) {
            throw new IllegalArgumentException("an export path is absolute: " + path);
        }
    }

    /** An export open to every host ({@code *(rw)}, or {@code *(ro)} when {@code readOnly}). */
    public static Export of(String path, Vfs vfs, boolean readOnly) {
        return of(path, vfs, readOnly, readOnly ? ExportClients.everyHostReadOnly() : ExportClients.everyHost());
    }

    /** An export open to the hosts {@code clients} name. */
    public static Export of(String path, Vfs vfs, boolean readOnly, ExportClients clients) {
        return new Export(normalize(path), vfs, readOnly, idOf(normalize(path)), clients);
    }

    /**
     * What {@code client} (null when unknown) may do with this export: {@code clients}' grant, read-only when the
     * export is; null when the export is not open to it.
     */
    public ExportClients.Grant grant(InetAddress client) {
        ExportClients.Grant g = clients.grant(client);
        return g != null && readOnly ? g.readOnlyToo() : g;
    }

    /** What {@code client} may do with this export, in short. */
    public ExportClients.Access access(InetAddress client) {
        ExportClients.Grant g = grant(client);
        return g == null ? ExportClients.Access.NONE
                : g.readOnly() ? ExportClients.Access.READ_ONLY : ExportClients.Access.READ_WRITE;
    }

    /** "/a/b/" and "/a//b" are "/a/b"; "" and "/" are "/". */
    public static String normalize(String path) {
        String p = path.replaceAll("/+", "/");
        if (p.length() > 1 && p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        return p.isEmpty() ? "/" : p;
    }

    private static int idOf(String path) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(path.getBytes(StandardCharsets.UTF_8));
            return ((d[0] & 0xFF) << 24) | ((d[1] & 0xFF) << 16) | ((d[2] & 0xFF) << 8) | (d[3] & 0xFF);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The wire handle of a VFS handle: the export id, then the VFS's bytes. */
    public FileHandle wrap(FileHandle inner) {
        byte[] in = inner.unsafeBytes();
        if (in.length > Vfs.MAX_HANDLE_SIZE) {
            throw new IllegalStateException("VFS handle of " + in.length + " bytes exceeds " + Vfs.MAX_HANDLE_SIZE);
        }
        byte[] b = new byte[4 + in.length];
        b[0] = (byte) (id >>> 24);
        b[1] = (byte) (id >>> 16);
        b[2] = (byte) (id >>> 8);
        b[3] = (byte) id;
        System.arraycopy(in, 0, b, 4, in.length);
        return FileHandle.wrap(b);
    }

    /** The export id a wire handle names. */
    static int idOf(FileHandle wire) throws NfsException {
        byte[] b = wire.unsafeBytes();
        if (b.length < 4) {
            throw new NfsException(Nfs3Status.NFS3ERR_BADHANDLE, "handle too short");
        }
        return ((b[0] & 0xFF) << 24) | ((b[1] & 0xFF) << 16) | ((b[2] & 0xFF) << 8) | (b[3] & 0xFF);
    }

    /** The VFS handle inside a wire handle of this export. */
    FileHandle unwrap(FileHandle wire) {
        byte[] b = wire.unsafeBytes();
        return FileHandle.wrap(java.util.Arrays.copyOfRange(b, 4, b.length));
    }

    public FileHandle rootHandle() {
        return wrap(vfs.root());
    }
}
