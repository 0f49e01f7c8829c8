package org.rpcrdma4j.nfs.server;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;

/** The server's exports, by path (for MOUNT) and by handle prefix (for NFS). Immutable. */
public final class ExportTable {
    /** A wire handle resolved: its export and the VFS handle inside. */
    public record Target(Export export, FileHandle fh) {
    }

    private final Map<String, Export> byPath = new LinkedHashMap<>();
    private final Map<Integer, Export> byId = new LinkedHashMap<>();

    public ExportTable(List<Export> exports) {
        for (Export e : exports) {
            if (byPath.put(e.path(), e) != null) {
                throw new IllegalArgumentException("exported twice: " + e.path());
            }
            if (byId.put(e.id(), e) != null) {
                throw new IllegalArgumentException("export id collision: " + e.path());
            }
        }
    }

    public Collection<Export> all() {
        return byPath.values();
    }

    /** The export mounted at {@code path} (normalized), or null. */
    public Export byPath(String path) {
        return byPath.get(Export.normalize(path));
    }

    /** Resolves a wire handle: {@code NFS3ERR_BADHANDLE} when malformed, {@code NFS3ERR_STALE} for no export. */
    public Target resolve(FileHandle wire) throws NfsException {
        Export e = byId.get(Export.idOf(wire));
        if (e == null) {
            throw new NfsException(Nfs3Status.NFS3ERR_STALE, "no such export");
        }
        return new Target(e, e.unwrap(wire));
    }
}
