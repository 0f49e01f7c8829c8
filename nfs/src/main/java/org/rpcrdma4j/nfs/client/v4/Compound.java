package org.rpcrdma4j.nfs.client.v4;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.v4.Bitmap4;
import org.rpcrdma4j.nfs.v4.Nfs4;

/**
 * A COMPOUND to send, without its SEQUENCE: the session adds that for each attempt ({@link #args}) and makes the
 * matching result ({@link #result}). Built once, sent one or more times; {@link Op#prepare} runs before each attempt.
 * <p>
 * A COMPOUND whose last operation is a WRITE is sent as a {@link org.rpcrdma4j.nfs.xdr.DdpArgument} (over RDMA its data
 * goes as a Read chunk); one with a READ gets a {@link org.rpcrdma4j.nfs.xdr.DdpResult} (its data lands in the READ's
 * buffer through a Write chunk). Not thread-safe; owned by one call.
 */
final class Compound {
    final String tag;
    private final String operation;
    private final byte[] tagBytes;
    private final List<Op> ops = new ArrayList<>();
    private int firstMutating = -1;
    private Ops.Write write;
    private Ops.Read read;
    private Supplier<CompletableFuture<Void>> onStaleState;
    private boolean releasesState;

    /** @param tag the COMPOUND's tag (sent), the operation it is sent for in lower case ("read", "open"...) */
    Compound(String tag) {
        this.tag = tag;
        this.operation = tag.toUpperCase(Locale.ROOT);
        this.tagBytes = tag.getBytes(StandardCharsets.UTF_8);
    }

    Compound add(Op op) {
        if (write != null) {
            throw new IllegalStateException("WRITE must be the last operation (its data is the call's last item)");
        }
        if (op.mutating() && firstMutating < 0) {
            firstMutating = ops.size();
        }
        if (op instanceof Ops.Write w) {
            write = w;
        }
        if (op instanceof Ops.Read r) {
            if (read != null) {
                throw new IllegalStateException("one READ per COMPOUND");
            }
            read = r;
        }
        ops.add(op);
        return this;
    }

    Compound putfh(FileHandle fh) {
        return add(new Ops.PutFh(fh));
    }

    Compound putrootfh() {
        return add(new Ops.Plain(Nfs4.OP_PUTROOTFH));
    }

    Compound lookup(String name) {
        return add(new Ops.Lookup(name));
    }

    Compound getfh() {
        return add(new Ops.GetFh());
    }

    Compound getattr(Bitmap4 attributes) {
        return add(new Ops.GetAttr(attributes));
    }

    Compound savefh() {
        return add(new Ops.Plain(Nfs4.OP_SAVEFH));
    }

    /**
     * What to do when an I/O operation finds its stateid no longer good (BAD_STATEID, STALE_STATEID, ...): e.g.
     * reopen the file; the COMPOUND is then sent once more.
     */
    Compound onStaleState(Supplier<CompletableFuture<Void>> reopen) {
        this.onStaleState = reopen;
        return this;
    }

    Supplier<CompletableFuture<Void>> staleStateHandler() {
        return onStaleState;
    }

    /**
     * Marks a COMPOUND that gives state back to the server (LOCKU, CLOSE, DELEGRETURN, FREE_STATEID): it still goes
     * out while the session closes, which gives back everything before DESTROY_SESSION and DESTROY_CLIENTID.
     */
    Compound releasingState() {
        this.releasesState = true;
        return this;
    }

    boolean releasesState() {
        return releasesState;
    }

    List<Op> ops() {
        return Collections.unmodifiableList(ops);
    }

    int size() {
        return ops.size();
    }

    /** Whether any operation changes state: then the server is asked to keep the reply for a retransmission. */
    boolean mutating() {
        return firstMutating >= 0;
    }

    /**
     * Whether sending the COMPOUND again is safe after operation {@code index} failed: true when nothing before it
     * changed anything (DELAY and GRACE mean the failed operation itself did nothing).
     */
    boolean retryableAfterFailureAt(int index) {
        return firstMutating < 0 || index <= firstMutating;
    }

    Ops.Read read() {
        return read;
    }

    /** Fixes the per-attempt values of every operation. */
    void prepare(long clientId) {
        for (Op op : ops) {
            op.prepare(clientId);
        }
    }

    /** The call's arguments, with {@code sequence} first (or none, for an operation that travels alone). */
    CompoundArgs args(int minorVersion, Ops.Sequence sequence) {
        List<Op> all = withSequence(sequence);
        return write != null ? new CompoundArgs.WithData(operation, tagBytes, minorVersion, all, write)
                : new CompoundArgs(operation, tagBytes, minorVersion, all);
    }

    /** A result to decode the reply into. */
    CompoundRes result(Ops.Sequence sequence) {
        List<Op> all = withSequence(sequence);
        int offset = sequence == null ? 0 : 1;
        return read != null ? new CompoundRes.WithData(all, offset, read) : new CompoundRes(all, offset);
    }

    private List<Op> withSequence(Ops.Sequence sequence) {
        if (sequence == null) {
            return ops;
        }
        List<Op> all = new ArrayList<>(ops.size() + 1);
        all.add(sequence);
        all.addAll(ops);
        return all;
    }

    @Override
    public String toString() {
        return tag + ops;
    }
}
