package org.rpcrdma4j.nfs.client;

import java.util.ArrayList;
import java.util.List;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;

/** Paths below an export's root, as the clients' path operations take them: "/"-separated, "/" or "" the root. */
public final class NfsPaths {
    private NfsPaths() {
    }

    /** The names of {@code path}'s components (empty ones, from "//" or a leading "/", left out). */
    public static List<String> components(String path) {
        List<String> names = new ArrayList<>();
        for (String c : path.split("/")) {
            if (!c.isEmpty()) {
                names.add(c);
            }
        }
        return names;
    }

    /**
     * A path's directory (as a path) and last name.
     *
     * @throws NfsException NFS3ERR_INVAL for the root, which has no name
     */
    public static Split split(String path) throws NfsException {
        List<String> names = components(path);
        if (names.isEmpty()) {
            throw new NfsException(Nfs3Status.NFS3ERR_INVAL, "the export root has no name");
        }
        return new Split(String.join("/", names.subList(0, names.size() - 1)), names.get(names.size() - 1));
    }

    /**
     * @param directory the directory's path ("" for the root)
     * @param name      the last component
     */
    public record Split(String directory, String name) {
    }
}
