package org.rpcrdma4j.nfs.server.v4;

import java.net.InetAddress;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.server.Caller;
import org.rpcrdma4j.nfs.server.Export;
import org.rpcrdma4j.nfs.server.ExportTable;
import org.rpcrdma4j.nfs.v4.Nfs4Exception;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.v4.state.Session;
import org.rpcrdma4j.nfs.v4.state.Stateid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state of one COMPOUND while its operations run (RFC 8881 section 16.2.3): the current and saved file handles,
 * the current stateid, the session the SEQUENCE named, and the caller's AUTH_SYS identity. Operations reach the
 * server's exports, pseudo file system and client state through {@link #server}. One thread.
 */
final class Compound {
    private static final Logger LOG = LoggerFactory.getLogger(Compound.class);

    final Nfs4Program server;
    final RpcCall call;
    /** The host that sent the COMPOUND (null when unknown): what it may see and change follows from it. */
    final InetAddress client;
    final int minorVersion;
    /** Operations the client sent in this COMPOUND. */
    final int opCount;
    FileHandle current;
    FileHandle saved;
    /** The stateid the last operation that made one returned (RFC 8881 section 16.2.3.1.2); null: none yet. */
    Stateid currentStateid;
    /** The current stateid as SAVEFH saved it with the handle; RESTOREFH restores both. */
    Stateid savedStateid;
    /** The session of this COMPOUND's SEQUENCE; null for the operations that run without one. */
    Session session;
    long clientId;
    /** The slot and sequence id of this COMPOUND's SEQUENCE (with {@link #session}). */
    int slotId;
    int sequenceId;
    /** Memory the reply borrows (READ data), given back once the reply is sent or encoded into bytes. */
    final java.util.List<Runnable> releases = new java.util.ArrayList<>(1);
    /** Bytes of the reply ahead of the first operation's result: the RPC reply header and COMPOUND4res's own. */
    long replyHeader;
    /**
     * The largest reply the session allows for this request, RPC header included: {@code ca_maxresponsesize}, or
     * {@code ca_maxresponsesize_cached} when the client asked for the reply to be kept (both unsigned). Unbounded
     * ({@link Long#MAX_VALUE}) without SEQUENCE.
     */
    long replyLimit = Long.MAX_VALUE;
    /** Whether {@link #replyLimit} is the cached-reply limit. */
    boolean replyKept;
    /** Bytes of the results of the operations finished so far (counted once {@link #replyLimit} is set). */
    private long replyUsed;
    private EncodedSize sizes;

    /**
     * Bytes of an RPC reply ahead of its result: XID, message type, reply status, the AUTH_NONE verifier (flavor and
     * empty body), accept status.
     */
    static final int RPC_REPLY_HEADER = 4 + 4 + 4 + 8 + 4;

    /** The size of the request as it arrived (RPC header included, transport framing not); 0 when not known. */
    int requestSize() {
        if (call == null || call.getXdr() == null || call.getXdr().asBuffer() == null) {
            return 0;
        }
        return call.getXdr().asBuffer().limit();
    }

    /** Whether the session bounds this reply's size. */
    boolean replyBounded() {
        return replyLimit != Long.MAX_VALUE;
    }

    /**
     * Bytes the reply has left for the running operation's result ({@code nfs_resop4}, its operation number
     * included), after the RPC and COMPOUND headers and the results of the operations before it.
     */
    long replyRoom() {
        return replyBounded() ? replyLimit - replyHeader - replyUsed : Long.MAX_VALUE;
    }

    /** The encoded size of {@code op}'s result as it stands. */
    long resultSize(Op op) {
        if (sizes == null) {
            sizes = new EncodedSize();
        }
        return op.resultSize(sizes);
    }

    /** {@code op} is finished (its status final): its result takes its room in the reply. */
    void finished(Op op) {
        if (replyBounded()) {
            replyUsed += resultSize(op);
        }
    }

    /** The running operation's result would not fit the reply the session allows. */
    Nfs4Exception replyTooBig(String what) {
        return replyKept
                ? new Nfs4Exception(Nfs4Status.NFS4ERR_REP_TOO_BIG_TO_CACHE, what + " does not fit the "
                        + replyLimit + " bytes the session keeps of a reply (ca_maxresponsesize_cached)")
                : new Nfs4Exception(Nfs4Status.NFS4ERR_REP_TOO_BIG, what + " does not fit the " + replyLimit
                        + "-byte reply the session allows (ca_maxresponsesize)");
    }

    Compound(Nfs4Program server, RpcCall call, int minorVersion, int opCount) {
        this.server = server;
        this.call = call;
        this.minorVersion = minorVersion;
        this.opCount = opCount;
        this.client = ExportTable.clientOf(call);
    }

    /**
     * Runs the releases of the memory the reply borrowed, every one of them: one that throws (a file system's buffer
     * released twice) is logged, and neither keeps the others' memory nor stops the session's slot from finishing.
     */
    void release() {
        for (Runnable r : releases) {
            try {
                r.run();
            } catch (RuntimeException | Error e) {
                LOG.error("releasing memory a reply borrowed failed", e);
            }
        }
        releases.clear();
    }

    /** The current file handle; NFS4ERR_NOFILEHANDLE when there is none. */
    FileHandle current() throws Nfs4Exception {
        if (current == null) {
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_NOFILEHANDLE, "no current file handle");
        }
        return current;
    }

    /** What the current file handle names. */
    Obj currentObject() throws Nfs4Exception {
        return object(current());
    }

    /** As whom this COMPOUND acts in {@code t}'s export (squashed as its host's grant there says). */
    Caller caller(ExportTable.Target t) {
        return Caller.of(call, t.grant());
    }

    /** A check of the server's permissions, which fails with an NFSv3 status. */
    @FunctionalInterface
    interface Check {
        void run() throws NfsException;
    }

    /** Runs {@code check}; its failure is the NFSv4 status of the same meaning (ACCESS, PERM). */
    static void check(Check check) throws Nfs4Exception {
        try {
            check.run();
        } catch (NfsException e) {
            throw of(e);
        }
    }

    /**
     * The export object {@code wire} names, for the host that sent this COMPOUND, without reading its attributes;
     * null for a pseudo directory.
     */
    ExportTable.Target targetOf(FileHandle wire) throws Nfs4Exception {
        if (server.pseudo.isPseudo(wire)) {
            return null;
        }
        try {
            return server.exports.resolve(wire, call);
        } catch (NfsException e) {
            throw of(e);
        }
    }

    /** What {@code wire} names, for the host that sent this COMPOUND. */
    Obj object(FileHandle wire) throws Nfs4Exception {
        return server.object(wire, call, true);
    }

    /**
     * What an entry of a pseudo directory names, for its listing: as {@link #object}, but an export open to the host
     * from privileged ports only is listed whatever this call's port (using it is what is refused).
     */
    Obj listedObject(FileHandle wire) throws Nfs4Exception {
        return server.object(wire, call, false);
    }

    /** The current file handle, which must name an object of an export (not a pseudo directory). */
    ExportTable.Target currentTarget() throws Nfs4Exception {
        Obj o = currentObject();
        if (o.target() == null) {
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_ROFS, "a directory of the pseudo file system");
        }
        return o.target();
    }

    /** The current object of an export the caller may change: NFS4ERR_ROFS on a read-only export. */
    ExportTable.Target writableTarget() throws Nfs4Exception {
        ExportTable.Target t = currentTarget();
        if (t.readOnly()) {
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_ROFS, (t.export().readOnly() ? "read-only export "
                    : "export open to this host read-only: ") + t.export().path());
        }
        return t;
    }

    /** An {@link NfsException} of a VFS as the NFSv4 status it stands for. */
    static Nfs4Exception of(NfsException e) {
        return new Nfs4Exception(Nfs4Status.fromNfs3(e.wireValue()), e.getMessage());
    }

    /**
     * An object the server can name: a pseudo directory ({@code path} set) or an object of an export
     * ({@code target} set), with its attributes.
     */
    record Obj(FileHandle wire, String path, ExportTable.Target target, FileAttributes attributes) {
        boolean isPseudo() {
            return path != null;
        }

        Export export() {
            return target == null ? null : target.export();
        }
    }
}
