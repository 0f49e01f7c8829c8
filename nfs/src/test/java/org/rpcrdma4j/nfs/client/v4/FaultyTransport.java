package org.rpcrdma4j.nfs.client.v4;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.rpcrdma4j.nfs.client.DataTransport;
import org.rpcrdma4j.nfs.client.RpcBadReplyException;
import org.rpcrdma4j.nfs.client.RpcConnectionException;
import org.rpcrdma4j.nfs.testing.XdrBytes;
import org.rpcrdma4j.nfs.v4.Nfs4;

/**
 * A {@link DataTransport} in front of a real one that records the SEQUENCE of every COMPOUND and does to the
 * COMPOUNDs with a given tag what the test planned: lose the request, lose the reply, garble the reply, or answer a
 * SEQUENCE error in the server's place (before or after the server ran the request).
 */
final class FaultyTransport implements DataTransport {
    enum Fault {
        /** Fails the call without sending it: the server never sees it. */
        LOSE_REQUEST,
        /** Sends it, then fails the call: the server ran it, the reply is lost. */
        LOSE_REPLY,
        /** Answers bytes that are not a COMPOUND reply, without sending the call. */
        GARBLE_REPLY,
        /** Answers a SEQUENCE error without sending the call. */
        SEQUENCE_ERROR,
        /** Sends the call, then answers a SEQUENCE error instead of the server's reply. */
        SEQUENCE_ERROR_AFTER,
        /**
         * Sends the server the SEQUENCE alone (the slot moves on, nothing else runs), then answers the COMPOUND's last
         * operation with the planned status, the operations before it (of empty results, e.g. PUTFH) with NFS4_OK.
         */
        LAST_OP_ERROR,
        /** Sends the call and holds its reply until {@link #releaseHeld()}. */
        HOLD_REPLY
    }

    /** One COMPOUND that went through here: its tag and SEQUENCE arguments. */
    record Sent(String tag, int slot, int sequenceId, boolean cacheThis) {
    }

    private static final class Plan {
        final String tag;
        final Fault fault;
        final int status;
        int times;

        Plan(String tag, Fault fault, int status, int times) {
            this.tag = tag;
            this.fault = fault;
            this.status = status;
            this.times = times;
        }
    }

    /** Any COMPOUND that went through here, SEQUENCE or not: its tag, operations and the status of its reply. */
    static final class Call {
        final String tag;
        final List<String> ops;
        volatile String status = "no reply";

        Call(String tag, List<String> ops) {
            this.tag = tag;
            this.ops = ops;
        }

        /** {@code "tag OP,OP status"}, e.g. {@code "close SEQUENCE,PUTFH,CLOSE NFS4_OK"}. */
        @Override
        public String toString() {
            return tag + " " + String.join(",", ops) + " " + status;
        }
    }

    private final DataTransport inner;
    private final List<Plan> plans = new ArrayList<>();
    private final List<Sent> sent = new ArrayList<>();
    private final List<Call> calls = new ArrayList<>();
    /** Status flags OR'ed into every SEQUENCE reply's {@code sr_status_flags}. */
    private volatile int statusFlags;
    /** The slot ids the next SEQUENCE reply says are the highest, or -1. */
    private int shrinkTo = -1;
    /** Whether the server of that reply keeps the slots above (else it drops them). */
    private boolean keepSlots;
    /** Per slot: what to add to the client's sequence id for the server (a slot this transport "reset"). */
    private final java.util.Map<Integer, Integer> shifts = new java.util.HashMap<>();
    /** Per slot: the last sequence id the server answered NFS4_OK on. */
    private final java.util.Map<Integer, Integer> serverIds = new java.util.HashMap<>();
    private CompletableFuture<Void> held = new CompletableFuture<>();
    /** The {@code other} of stateids this transport plays revoked, in hex. */
    private final java.util.Set<String> revoked = new java.util.HashSet<>();

    FaultyTransport(DataTransport inner) {
        this.inner = inner;
    }

    synchronized void plan(String tag, Fault fault, int status, int times) {
        plans.add(new Plan(tag, fault, status, times));
    }

    synchronized void clearPlans() {
        plans.clear();
    }

    synchronized List<Sent> sent(String tag) {
        return sent.stream().filter(s -> s.tag().equals(tag)).toList();
    }

    synchronized List<Sent> sent() {
        return List.copyOf(sent);
    }

    /** Every COMPOUND so far, in the order sent, as {@link Call#toString()} has it. */
    synchronized List<String> calls() {
        return calls.stream().map(Call::toString).toList();
    }

    /** ORs {@code flags} into the {@code sr_status_flags} of every SEQUENCE reply from now on (0: no more). */
    void statusFlags(int flags) {
        statusFlags = flags;
    }

    /**
     * Plays a server that lowers its highest slot id to {@code highest} in the next SEQUENCE reply and drops the slots
     * above it: their sequence ids start again at 1 (this transport maps them onto the real server's).
     */
    synchronized void shrinkOnce(int highest) {
        shrinkTo = highest;
        keepSlots = false;
    }

    /**
     * Plays a server that lowers its highest slot id to {@code highest} in the next SEQUENCE reply and keeps the slots
     * above it, at the sequence ids they had (RFC 8881 section 2.10.6.1 lets it).
     */
    synchronized void lowerHighestOnce(int highest) {
        shrinkTo = highest;
        keepSlots = true;
    }

    /** Plays a server that started {@code slot} again: from now on it expects sequence id 1 there. */
    synchronized void restartSlot(int slot) {
        shifts.put(slot, serverIds.getOrDefault(slot, 0));
    }

    /**
     * Plays a server that revoked {@code stateid}: SEQUENCE replies carry SEQ4_STATUS_ADMIN_STATE_REVOKED and
     * TEST_STATEID says NFS4ERR_ADMIN_REVOKED of it until a FREE_STATEID of it, which this transport answers NFS4_OK
     * (sending the server the SEQUENCE alone).
     */
    synchronized void revoke(Stateid4 stateid) {
        revoked.add(java.util.HexFormat.of().formatHex(stateid.other()));
    }

    /** Lets the replies held by {@link Fault#HOLD_REPLY} through. */
    void releaseHeld() {
        CompletableFuture<Void> h;
        synchronized (this) {
            h = held;
            held = new CompletableFuture<>();
        }
        h.complete(null);
    }

    private synchronized Plan take(String tag) {
        for (Iterator<Plan> it = plans.iterator(); it.hasNext(); ) {
            Plan p = it.next();
            if (p.tag.equals(tag)) {
                if (--p.times <= 0) {
                    it.remove();
                }
                return p;
            }
        }
        return null;
    }

    @Override
    public <T extends XdrAble> CompletableFuture<T> call(int program, int version, int procedure, XdrAble args,
                                                         T result) {
        if (!(args instanceof CompoundArgs c)) {
            return inner.call(program, version, procedure, args, result);
        }
        Call call = new Call(new String(c.tag, StandardCharsets.UTF_8),
                c.ops.stream().map(op -> Nfs4.operationName(op.opcode)).toList());
        synchronized (this) {
            calls.add(call);
        }
        return faulty(program, version, procedure, c, result).whenComplete((r, e) -> {
            if (r instanceof CompoundRes res) {
                call.status = org.rpcrdma4j.nfs.v4.Nfs4Status.name(res.status());
            } else if (r instanceof SequenceProbe probe) {
                call.status = org.rpcrdma4j.nfs.v4.Nfs4Status.name(probe.status()); // its SEQUENCE's
            } else if (e != null) {
                call.status = "failed";
            }
        });
    }

    private <T extends XdrAble> CompletableFuture<T> faulty(int program, int version, int procedure, CompoundArgs c,
                                                            T result) {
        if (!(c.ops.get(0) instanceof Ops.Sequence s)) {
            return inner.call(program, version, procedure, c, result);
        }
        String tag = new String(c.tag, StandardCharsets.UTF_8);
        Plan p;
        int shift;
        synchronized (this) {
            sent.add(new Sent(tag, s.slotId, s.sequenceId, s.cacheThis));
            p = take(tag);
            shift = shifts.getOrDefault(s.slotId, 0);
        }
        CompoundArgs args = shift == 0 ? c : withSequence(c, new Ops.Sequence(s.sessionId, s.sequenceId + shift,
                s.slotId, s.highestSlotId, s.cacheThis));
        if (p == null && freesRevoked(c)) {
            p = new Plan(tag, Fault.LAST_OP_ERROR, 0, 1);
        }
        if (p == null) {
            return relayed(program, version, procedure, args, s, shift, result);
        }
        Plan plan = p;
        return switch (plan.fault) {
            case LOSE_REQUEST -> CompletableFuture.supplyAsync(() -> {
                throw new java.util.concurrent.CompletionException(new RpcConnectionException("request lost", null));
            });
            case LOSE_REPLY -> relayed(program, version, procedure, args, s, shift, result).thenCompose(r ->
                    CompletableFuture.failedFuture(new RpcConnectionException("reply lost", null)));
            case GARBLE_REPLY -> CompletableFuture.supplyAsync(() -> decode(new byte[] {0, 0, 0, 0, 0, 0, 0, 9},
                    result));
            case SEQUENCE_ERROR -> CompletableFuture.supplyAsync(() -> decode(sequenceError(plan.status), result));
            case SEQUENCE_ERROR_AFTER -> inner.call(program, version, procedure, args, result)
                    .thenApply(r -> decode(sequenceError(plan.status), result));
            case LAST_OP_ERROR -> {
                CompoundArgs alone = new CompoundArgs(c.operation, c.tag, c.minorVersion, List.of(args.ops.get(0)));
                Raw raw = new Raw();
                yield inner.call(program, version, procedure, alone, raw).thenApply(r -> decode(
                        lastOpFails(rewritten(raw.bytes, c, s, shift), c, plan.status), result));
            }
            case HOLD_REPLY -> {
                CompletableFuture<Void> h;
                synchronized (this) {
                    h = held;
                }
                yield relayed(program, version, procedure, args, s, shift, result)
                        .thenCompose(r -> h.thenApply(v -> r));
            }
        };
    }

    /** Whether {@code c} frees a stateid this transport plays revoked; if so, it is not revoked any more. */
    private synchronized boolean freesRevoked(CompoundArgs c) {
        return c.ops.size() == 2 && c.ops.get(1) instanceof Ops.StateOp op && op.opcode == Nfs4.OP_FREE_STATEID
                && revoked.remove(java.util.HexFormat.of().formatHex(op.stateid.other()));
    }

    /** The call relayed to the server, its reply changed as {@link #statusFlags} and {@link #shrinkOnce} ask. */
    private <T extends XdrAble> CompletableFuture<T> relayed(int program, int version, int procedure,
                                                             CompoundArgs args, Ops.Sequence s, int shift, T result) {
        boolean rewrite;
        synchronized (this) {
            rewrite = statusFlags != 0 || shrinkTo >= 0 || shift != 0 || !revoked.isEmpty();
        }
        if (!rewrite) {
            return inner.call(program, version, procedure, args, result).thenApply(r -> {
                if (r instanceof CompoundRes res && res.sequenceStatus() == 0) {
                    synchronized (this) {
                        serverIds.put(s.slotId, s.sequenceId);
                    }
                }
                return r;
            });
        }
        Raw raw = new Raw();
        return inner.call(program, version, procedure, args, raw).thenApply(r ->
                decode(rewritten(raw.bytes, args, s, shift), result));
    }

    /** Where the SEQUENCE result's sessionid starts in a reply, or -1 when the SEQUENCE failed. */
    private static int sequenceBody(ByteBuffer b) {
        int tag = b.getInt(4);
        int at = 8 + ((tag + 3) & ~3) + 4; // past status, tag and the count of results
        return b.getInt(at + 4) == 0 ? at + 8 : -1;
    }

    /** The server's reply with the client's sequence id back, the flags and a shrink applied. */
    private synchronized byte[] rewritten(byte[] reply, CompoundArgs c, Ops.Sequence s, int shift) {
        ByteBuffer b = ByteBuffer.wrap(reply);
        int at = sequenceBody(b);
        if (at < 0) {
            return reply;
        }
        serverIds.put(s.slotId, b.getInt(at + 16));
        b.putInt(at + 16, b.getInt(at + 16) - shift);
        b.putInt(at + 32, b.getInt(at + 32) | statusFlags | (revoked.isEmpty() ? 0 : 0x20));
        if (c.ops.size() > 1 && c.ops.get(1) instanceof RevokedState.TestStateid test && b.limit() > at + 44
                && b.getInt(at + 40) == 0) {
            for (int i = 0; i < test.stateids.size(); i++) { // past the opcode, status and count
                if (revoked.contains(java.util.HexFormat.of().formatHex(test.stateids.get(i).other()))) {
                    b.putInt(at + 48 + 4 * i, org.rpcrdma4j.nfs.v4.Nfs4Status.NFS4ERR_ADMIN_REVOKED);
                }
            }
        }
        if (shrinkTo >= 0) {
            b.putInt(at + 24, shrinkTo);
            b.putInt(at + 28, shrinkTo);
            for (java.util.Map.Entry<Integer, Integer> e : serverIds.entrySet()) {
                if (!keepSlots && e.getKey() > shrinkTo) {
                    shifts.put(e.getKey(), e.getValue()); // the client's 1 is the server's next
                }
            }
            shrinkTo = -1;
        }
        return reply;
    }

    /** A reply of SEQUENCE alone, made the reply of {@code c} whose last operation failed with {@code status}. */
    private static byte[] lastOpFails(byte[] sequenceAlone, CompoundArgs c, int status) {
        ByteBuffer in = ByteBuffer.wrap(sequenceAlone);
        int at = sequenceBody(in);
        if (at < 0) {
            return sequenceAlone;
        }
        int end = at + 36; // sessionid, sequenceid, slotid, highest, target, flags
        ByteBuffer out = ByteBuffer.allocate(end + 8 * c.ops.size());
        out.put(sequenceAlone, 0, end);
        out.putInt(0, status);
        out.putInt(at - 12, c.ops.size());
        for (int i = 1; i < c.ops.size(); i++) {
            out.putInt(c.ops.get(i).opcode);
            out.putInt(i == c.ops.size() - 1 ? status : 0);
        }
        return out.array();
    }

    private static CompoundArgs withSequence(CompoundArgs c, Ops.Sequence s) {
        List<Op> ops = new ArrayList<>(c.ops);
        ops.set(0, s);
        if (c instanceof CompoundArgs.WithData) {
            return new CompoundArgs.WithData(c.operation, c.tag, c.minorVersion, ops,
                    (Ops.Write) ops.get(ops.size() - 1));
        }
        return new CompoundArgs(c.operation, c.tag, c.minorVersion, ops);
    }

    /** A reply's bytes as they came. */
    private static final class Raw implements XdrAble {
        byte[] bytes;

        @Override
        public void xdrDecode(org.dcache.oncrpc4j.xdr.XdrDecodingStream xdr)
                throws org.dcache.oncrpc4j.xdr.BadXdrOncRpcException {
            Xdr x = (Xdr) xdr;
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            while (x.hasMoreData()) {
                int w = x.xdrDecodeInt();
                out.write(w >>> 24);
                out.write(w >>> 16);
                out.write(w >>> 8);
                out.write(w);
            }
            bytes = out.toByteArray();
        }

        @Override
        public void xdrEncode(org.dcache.oncrpc4j.xdr.XdrEncodingStream xdr) {
            throw new UnsupportedOperationException();
        }
    }

    private static byte[] sequenceError(int status) {
        try (Xdr x = new Xdr(64)) {
            x.beginEncoding();
            x.xdrEncodeInt(status);
            x.xdrEncodeInt(0); // empty tag
            x.xdrEncodeInt(1);
            x.xdrEncodeInt(Nfs4.OP_SEQUENCE);
            x.xdrEncodeInt(status);
            x.endEncoding();
            return x.getBytes();
        }
    }

    /** Decodes {@code reply} into {@code result} as a transport does: what does not decode is a bad reply. */
    private static <T extends XdrAble> T decode(byte[] reply, T result) {
        try {
            return XdrBytes.decode(reply, result);
        } catch (IOException | RuntimeException e) {
            throw new java.util.concurrent.CompletionException(new RpcBadReplyException("does not decode: "
                    + e.getMessage(), e));
        }
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return inner.remoteAddress();
    }

    @Override
    public void close() {
        inner.close();
    }
}
