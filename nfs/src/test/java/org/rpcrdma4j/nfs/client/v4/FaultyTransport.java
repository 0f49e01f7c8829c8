package org.rpcrdma4j.nfs.client.v4;

import java.io.IOException;
import java.net.InetSocketAddress;
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
        SEQUENCE_ERROR_AFTER
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
            } else if (e != null) {
                call.status = "failed";
            }
        });
    }

    private <T extends XdrAble> CompletableFuture<T> faulty(int program, int version, int procedure, CompoundArgs c,
                                                            T result) {
        XdrAble args = c;
        if (!(c.ops.get(0) instanceof Ops.Sequence s)) {
            return inner.call(program, version, procedure, args, result);
        }
        String tag = new String(c.tag, StandardCharsets.UTF_8);
        Plan p;
        synchronized (this) {
            sent.add(new Sent(tag, s.slotId, s.sequenceId, s.cacheThis));
            p = take(tag);
        }
        if (p == null) {
            return inner.call(program, version, procedure, args, result);
        }
        return switch (p.fault) {
            case LOSE_REQUEST -> CompletableFuture.supplyAsync(() -> {
                throw new java.util.concurrent.CompletionException(new RpcConnectionException("request lost", null));
            });
            case LOSE_REPLY -> inner.call(program, version, procedure, args, result).thenCompose(r ->
                    CompletableFuture.failedFuture(new RpcConnectionException("reply lost", null)));
            case GARBLE_REPLY -> CompletableFuture.supplyAsync(() -> decode(new byte[] {0, 0, 0, 0, 0, 0, 0, 9},
                    result));
            case SEQUENCE_ERROR -> CompletableFuture.supplyAsync(() -> decode(sequenceError(p.status), result));
            case SEQUENCE_ERROR_AFTER -> inner.call(program, version, procedure, args, result)
                    .thenApply(r -> decode(sequenceError(p.status), result));
        };
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
