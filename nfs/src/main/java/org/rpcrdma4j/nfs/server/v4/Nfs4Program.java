package org.rpcrdma4j.nfs.server.v4;

import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.server.ExportTable;
import org.rpcrdma4j.nfs.server.ReadBufferAllocator;
import org.rpcrdma4j.nfs.server.ReplyRelease;
import org.rpcrdma4j.nfs.server.ServerLimits;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Exception;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.v4.state.ClientTable;
import org.rpcrdma4j.nfs.v4.state.Laundromat;
import org.rpcrdma4j.nfs.v4.state.SessionId;
import org.rpcrdma4j.nfs.xdr.BadXdrException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * NFS version 4, minor versions 1 and 2 (RFC 8881, RFC 7862), over the same exports as the NFSv3 program, as an
 * oncrpc4j {@link RpcDispatchable} (program 100003, version 4): the same object is served over TCP and over RDMA.
 * <p>
 * A COMPOUND runs its operations in order until one fails (RFC 8881 section 16.2.3). It starts with SEQUENCE, which
 * names the session and its slot, or is one of the operations that run alone (EXCHANGE_ID, CREATE_SESSION,
 * DESTROY_SESSION, DESTROY_CLIENTID, BIND_CONN_TO_SESSION); anything else first is NFS4ERR_OP_NOT_IN_SESSION. The
 * reply of a COMPOUND with SEQUENCE is encoded here into bytes, kept in the slot when the client asked
 * ({@code sa_cachethis}), and a retry of the slot's request gets those bytes again without running anything: the
 * session's reply cache is the exactly-once guarantee (section 2.10.6), across reconnects too. Minor version 0 and
 * unknown ones are NFS4ERR_MINOR_VERS_MISMATCH.
 * <p>
 * The name space is the pseudo file system ({@link PseudoFs}) leading to the exports. Operations that do not decode
 * are NFS4ERR_BADXDR, unknown ones NFS4ERR_OP_ILLEGAL, known ones this server does not do NFS4ERR_NOTSUPP; a bug is
 * NFS4ERR_SERVERFAULT. Never an exception on the wire.
 */
public final class Nfs4Program implements RpcDispatchable, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Nfs4Program.class);

    final ExportTable exports;
    final PseudoFs pseudo;
    final ServerLimits limits;
    final ClientTable clients;
    final ReadBufferAllocator readBuffers;
    final BackChannel backChannel = new BackChannel();
    final Delegations delegations;
    private final java.util.concurrent.atomic.LongAdder compounds = new java.util.concurrent.atomic.LongAdder();
    /** Bytes COPY moved within the server. */
    final java.util.concurrent.atomic.LongAdder bytesCopied = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder replays = new java.util.concurrent.atomic.LongAdder();
    /** Operations run, by number (ILLEGAL and the numbers of no operation at index 0). */
    private final java.util.concurrent.atomic.LongAdder[] operations =
            new java.util.concurrent.atomic.LongAdder[Nfs4.LAST_OP_V42 + 1];

    private final Laundromat laundromat;

    /**
     * The most bytes the result of an operation that changes the file system or the client's state takes here
     * ({@code nfs_resop4}, with bitmaps of up to three words and OPEN's read delegation), by number; 0 for
     * the others. Such an operation runs only when the reply has that much left, so that none makes its change and
     * then has its result refused for its size (Linux's server checks an estimate first too).
     */
    private static final int[] MOST_RESULT = new int[Nfs4.LAST_OP_V42 + 1];

    static {
        int cinfo = 4 + 8 + 8;
        int bitmap = 4 + 3 * 4;
        MOST_RESULT[Nfs4.OP_CLOSE] = 8 + 16;
        MOST_RESULT[Nfs4.OP_COMMIT] = 8 + 8;
        MOST_RESULT[Nfs4.OP_CREATE] = 8 + cinfo + bitmap;
        MOST_RESULT[Nfs4.OP_DELEGRETURN] = 8;
        MOST_RESULT[Nfs4.OP_LINK] = 8 + cinfo;
        MOST_RESULT[Nfs4.OP_LOCK] = 8 + 16; // a denial changes nothing
        MOST_RESULT[Nfs4.OP_LOCKU] = 8 + 16;
        MOST_RESULT[Nfs4.OP_OPEN] = 8 + 16 + cinfo + 4 + bitmap + 4 + 16 + 4 + 16;
        MOST_RESULT[Nfs4.OP_OPEN_DOWNGRADE] = 8 + 16;
        MOST_RESULT[Nfs4.OP_REMOVE] = 8 + cinfo;
        MOST_RESULT[Nfs4.OP_RENAME] = 8 + 2 * cinfo;
        MOST_RESULT[Nfs4.OP_SETATTR] = 8 + bitmap;
        MOST_RESULT[Nfs4.OP_WRITE] = 8 + 4 + 4 + 8;
        MOST_RESULT[Nfs4.OP_FREE_STATEID] = 8;
        MOST_RESULT[Nfs4.OP_RECLAIM_COMPLETE] = 8;
        MOST_RESULT[Nfs4.OP_ALLOCATE] = 8;
        MOST_RESULT[Nfs4.OP_DEALLOCATE] = 8;
        MOST_RESULT[Nfs4.OP_CLONE] = 8;
        MOST_RESULT[Nfs4.OP_COPY] = 8 + 4 + 16 + 8 + 4 + 8 + 4 + 4;
    }

    private static int opIndex(int opcode) {
        return opcode > 0 && opcode < MOST_RESULT.length ? opcode : 0;
    }

    {
        for (int i = 0; i < operations.length; i++) {
            operations[i] = new java.util.concurrent.atomic.LongAdder();
        }
    }

    /**
     * @param exports     the exports (shared with the NFSv3 program)
     * @param limits      the largest READ, WRITE and READDIR
     * @param clients     the clients, sessions and open state of this server instance
     * @param readBuffers where READ data is read into (shared with the NFSv3 program; registered memory over RDMA)
     */
    public Nfs4Program(ExportTable exports, ServerLimits limits, ClientTable clients,
                       ReadBufferAllocator readBuffers) {
        this(exports, limits, clients, readBuffers, true);
    }

    /**
     * @param delegations whether OPENs may get read delegations (where the export's VFS allows them, see
     *                    {@link org.rpcrdma4j.nfs.vfs.Vfs#changedOnlyThroughServer()})
     */
    public Nfs4Program(ExportTable exports, ServerLimits limits, ClientTable clients,
                       ReadBufferAllocator readBuffers, boolean delegations) {
        this.exports = exports;
        this.pseudo = new PseudoFs(exports);
        this.limits = limits;
        this.clients = clients;
        this.readBuffers = readBuffers;
        this.delegations = new Delegations(clients.delegations(), id -> backChannel.reaches(clients, id),
                delegations);
        clients.delegations().recaller(r -> backChannel.recall(clients, r));
        clients.delegations().granting(delegations
                && exports.all().stream().anyMatch(e -> e.vfs().changedOnlyThroughServer()));
        exports.delegations(this.delegations);
        this.laundromat = Laundromat.start(clients);
    }

    public ClientTable clients() {
        return clients;
    }

    /** COMPOUNDs served (replays of a slot's cached reply included). */
    public long compounds() {
        return compounds.sum();
    }

    /**
     * How many times each operation ran, SEQUENCE's replays of a cached reply too, as Linux's server counts them (its
     * {@code proc4ops} line): the operation's name to its count, in operation order, those that never ran left out.
     * Operations a COMPOUND did not reach after one failed are not counted; the one that failed is.
     */
    public java.util.Map<String, Long> operationCounts() {
        java.util.Map<String, Long> counts = new java.util.LinkedHashMap<>();
        for (int op = Nfs4.OP_ACCESS; op < operations.length; op++) {
            long n = operations[op].sum();
            if (n > 0) {
                counts.put(Nfs4.operationName(op), n);
            }
        }
        long illegal = operations[0].sum();
        if (illegal > 0) {
            counts.put(Nfs4.operationName(Nfs4.OP_ILLEGAL), illegal);
        }
        return counts;
    }

    /**
     * COMPOUNDs answered with their session slot's cached reply: a request sent again (after a lost reply, or on a new
     * connection) that had run already, and did not run again.
     */
    public long replays() {
        return replays.sum();
    }

    /** Bytes that NFSv4.2 COPYs copied within the server, without a client reading or writing them. */
    public long bytesCopied() {
        return bytesCopied.sum();
    }

    /** CB_NULL probes of back channels that were answered (one per CREATE_SESSION that asked for callbacks). */
    public long backChannelProbesAnswered() {
        return backChannel.answered();
    }

    /**
     * The connection on which {@code session}'s back channel last answered CB_NULL (its reverse direction, an
     * oncrpc4j transport to send callbacks on), if any.
     */
    public java.util.Optional<org.dcache.oncrpc4j.rpc.RpcTransport> backChannel(SessionId session) {
        return backChannel.path(session);
    }

    /**
     * Read delegations since the server started: granted, recalled (a change by someone else asked for them back),
     * returned (DELEGRETURN), revoked (not returned within the lease after a recall, or no back channel to recall
     * them on), and held now, by name.
     */
    public java.util.Map<String, Long> delegationCounts() {
        long[] n = clients.delegations().counts();
        java.util.Map<String, Long> m = new java.util.LinkedHashMap<>();
        m.put("granted", n[0]);
        m.put("recalled", n[1]);
        m.put("returned", n[2]);
        m.put("revoked", n[3]);
        m.put("held", (long) clients.delegations().count());
        m.put("recalls_answered", backChannel.recallsAnswered());
        return m;
    }

    /** CB_NULL probes that failed (the session then reports its callback path down). */
    public long backChannelProbesFailed() {
        return backChannel.failed();
    }

    /** Stops expiring clients on a timer, and the back channel's prober. */
    @Override
    public void close() {
        laundromat.close();
        backChannel.close();
    }

    /** Clients whose lease ran out that the server expired on its own, releasing their opens and locks. */
    public long clientsExpired() {
        return laundromat.expired();
    }

    @Override
    public void dispatchOncRpcCall(RpcCall call) throws OncRpcException, IOException {
        if (exports.rejectedHost(call)) {
            return;
        }
        switch (call.getProcedure()) {
            case Nfs4.PROC_NULL -> call.reply(XdrVoid.XDR_VOID);
            case Nfs4.PROC_COMPOUND -> {
                CompoundArgs args = new CompoundArgs();
                try {
                    call.retrieveCall(args);
                } catch (BadXdrException | RuntimeException e) {
                    LOG.debug("COMPOUND arguments do not decode: {}", e.toString());
                    call.failRpcGarbage();
                    return;
                }
                compounds.increment();
                Compound c = new Compound(this, call, args.minorVersion, args.count);
                XdrAble reply = process(args, c);
                if (c.releases.isEmpty()) {
                    call.reply(reply);
                    return;
                }
                // the reply borrows READ data: give it back once the reply went out (or could not)
                ReplyRelease.afterReply(call, c::release);
                call.reply(reply);
            }
            default -> call.failProcedureUnavailable();
        }
    }

    /**
     * Runs a COMPOUND and returns its {@code COMPOUND4res}: encoded into bytes when the session keeps it (the slot's
     * reply cache; the memory it borrowed is then given back at once), else as operations that encode themselves
     * into the transport's stream, READ data by reference.
     */
    XdrAble process(CompoundArgs args, Compound c) {
        List<Op> done = new ArrayList<>();
        if (args.minorVersion != 1 && args.minorVersion != 2) {
            return new CompoundRes(Nfs4Status.NFS4ERR_MINOR_VERS_MISMATCH, args.tag, done);
        }
        SessionOps.Sequence sequence = null;
        int status = Nfs4Status.NFS4_OK;
        c.replyHeader = Compound.RPC_REPLY_HEADER + 4 + 4 + ((args.tag.length + 3) & ~3) + 4;
        for (int i = 0; i < args.ops.size(); i++) {
            Op op = args.ops.get(i);
            done.add(op);
            operations[op.opcode > 0 && op.opcode < operations.length ? op.opcode : 0].increment();
            try {
                if (i == 0) {
                    if (op instanceof SessionOps.Sequence s) {
                        sequence = s;
                    } else if (!SessionOps.runsAlone(op)) {
                        throw new Nfs4Exception(Nfs4Status.NFS4ERR_OP_NOT_IN_SESSION, "no SEQUENCE first");
                    } else if (args.count > 1) {
                        throw new Nfs4Exception(Nfs4Status.NFS4ERR_NOT_ONLY_OP, "must be the only operation");
                    }
                } else if (op instanceof SessionOps.Sequence) {
                    throw new Nfs4Exception(Nfs4Status.NFS4ERR_SEQUENCE_POS, "SEQUENCE not first");
                }
                if (c.replyBounded() && c.replyRoom() < MOST_RESULT[opIndex(op.opcode)]) {
                    // before it changes anything: an operation whose result might not fit does not run
                    throw c.replyTooBig("the result of operation " + op.opcode);
                }
                op.execute(c);
                if (op == sequence && sequence.replay() != null) {
                    replays.increment();
                    return new Raw(sequence.replay());
                }
                if (c.replyBounded() && c.resultSize(op) > c.replyRoom()) {
                    // no result beyond the reply the session allows (READ and READDIR cut theirs to fit before;
                    // another operation's, like GETATTR's, is replaced by the error)
                    throw c.replyTooBig("the result of operation " + op.opcode);
                }
            } catch (Nfs4Exception e) {
                LOG.debug("op {}: {}", op.opcode, e.getMessage());
                op.status = e.status();
                if (c.replyBounded() && c.resultSize(op) > c.replyRoom()) {
                    // an error's result may carry more than the bound the operation ran under: LOCK's denial names
                    // the other lock owner (up to 1 KiB)
                    op.status = c.replyTooBig("the result of operation " + op.opcode).status();
                }
            } catch (Throwable e) {
                // a bug, memory the operation could not have (a file system's blocks, a buffer), a file system that
                // threw what it should not: the operation fails and the session's slot is finished all the same, so
                // the client can go on
                LOG.error("op {} failed", op.opcode, e);
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                op.status = Nfs4Status.NFS4ERR_SERVERFAULT;
            }
            c.finished(op);
            if (op.status != Nfs4Status.NFS4_OK) {
                status = op.status;
                break;
            }
        }
        CompoundRes res = new CompoundRes(status, args.tag, done);
        if (sequence == null) {
            return res;
        }
        if (!sequence.cacheThis()) {
            sequence.finish(c, null);
            return res;
        }
        byte[] bytes;
        try {
            bytes = res.encode();
        } catch (RuntimeException | Error e) {
            // an operation's result that does not encode: the slot is finished without a cached reply, and the
            // client gets SEQUENCE's result with SERVERFAULT
            LOG.error("the reply of a COMPOUND does not encode", e);
            sequence.finish(c, null);
            c.release();
            return new CompoundRes(Nfs4Status.NFS4ERR_SERVERFAULT, args.tag, List.of(sequence));
        }
        c.release();
        // a reply larger than the session's ca_maxresponsesize_cached is sent but not kept (a retry gets
        // NFS4ERR_RETRY_UNCACHED_REP): each of a session's slots keeps at most what the client was granted
        long most = c.session != null ? Integer.toUnsignedLong(c.session.fore().maxResponseSizeCached())
                : Long.MAX_VALUE;
        sequence.finish(c, bytes.length + Compound.RPC_REPLY_HEADER <= most ? bytes : null);
        return new Raw(bytes);
    }

    /** {@code COMPOUND4res}: the status, the tag, the results of the operations that ran. */
    static final class CompoundRes implements XdrAble {
        private final int status;
        private final byte[] tag;
        private final List<Op> results;

        CompoundRes(int status, byte[] tag, List<Op> results) {
            this.status = status;
            this.tag = tag;
            this.results = results;
        }

        byte[] encode() {
            try (Xdr xdr = new Xdr(256)) {
                xdr.beginEncoding();
                xdrEncode(xdr);
                xdr.endEncoding();
                return xdr.getBytes();
            }
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            xdr.xdrEncodeInt(status);
            xdr.xdrEncodeDynamicOpaque(tag);
            xdr.xdrEncodeInt(results.size());
            for (Op op : results) {
                op.encodeResult(xdr);
            }
        }
    }

    /**
     * What a wire handle names, with its attributes, for the host that sent {@code call}: NFS4ERR_STALE when the
     * handle's export is not open to it, NFS4ERR_PERM when it is open to privileged ports only and the call came from
     * another, as from Linux's server. {@code portChecked} false leaves that check out: an entry of a pseudo
     * directory's listing, which names an export the host may use from a privileged port.
     */
    Compound.Obj object(FileHandle wire, RpcCall call, boolean portChecked) throws Nfs4Exception {
        InetAddress client = ExportTable.clientOf(call);
        if (pseudo.isPseudo(wire)) {
            String path = pseudo.path(wire, client);
            return new Compound.Obj(wire, path, null, pseudo.attributes(path, client));
        }
        try {
            ExportTable.Target t = portChecked ? exports.resolve(wire, call) : exports.resolve(wire, client);
            FileAttributes a = t.export().vfs().getattr(t.fh());
            return new Compound.Obj(wire, null, t, a);
        } catch (NfsException e) {
            throw Compound.of(e);
        }
    }

    /** Encoded XDR (a cached reply, a scripted test's call), written as it is. */
    static final class Raw implements XdrAble {
        private final byte[] bytes;

        Raw(byte[] bytes) {
            this.bytes = bytes;
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            xdr.xdrEncodeOpaque(bytes, 0, bytes.length);
        }
    }
}
