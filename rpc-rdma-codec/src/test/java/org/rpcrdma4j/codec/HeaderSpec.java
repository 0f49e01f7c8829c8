package org.rpcrdma4j.codec;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * An immutable description of a header for property tests (jqwik shrinks values, and a mutable
 * {@link RpcRdmaHeader} is a poor value), with the arbitraries that generate it.
 */
record HeaderSpec(int xid, int credits, Kind kind, List<ReadChunk> reads, List<List<Seg>> writes, List<Seg> reply,
                  int errLow, int errHigh) {

    enum Kind { MSG, NOMSG, ERR_VERS, ERR_CHUNK }

    record Seg(int handle, int length, long offset) {
    }

    /** {@code position} is in 4-byte words, so any value is aligned and fits 32 bits once multiplied by 4. */
    record ReadChunk(long positionWords, List<Seg> segments) {
    }

    RpcRdmaHeader build() {
        RpcRdmaHeader h = new RpcRdmaHeader().xid(xid).credits(credits);
        switch (kind) {
            case ERR_VERS:
                return h.errorVers(errLow, errHigh);
            case ERR_CHUNK:
                return h.errorChunk();
            default:
                break;
        }
        h.proc(kind == Kind.MSG ? RpcRdmaProc.RDMA_MSG : RpcRdmaProc.RDMA_NOMSG);
        List<ReadChunk> sorted = new ArrayList<>(reads);
        sorted.sort(Comparator.comparingLong(ReadChunk::positionWords));
        for (ReadChunk chunk : sorted) {
            for (Seg s : chunk.segments()) {
                h.addReadSegment((int) (chunk.positionWords() * 4), s.handle(), s.length(), s.offset());
            }
        }
        for (List<Seg> chunk : writes) {
            h.beginWriteChunk();
            for (Seg s : chunk) {
                h.addWriteSegment(s.handle(), s.length(), s.offset());
            }
        }
        if (reply != null) {
            h.beginReplyChunk();
            for (Seg s : reply) {
                h.addReplySegment(s.handle(), s.length(), s.offset());
            }
        }
        return h;
    }

    static Arbitrary<Seg> segments() {
        return Combinators.combine(Arbitraries.integers(), Arbitraries.integers(), Arbitraries.longs()).as(Seg::new);
    }

    /** RDMA_MSG headers of 30 to 130 segments: longer than the decoder's first bulk copy of 512 bytes. */
    static Arbitrary<HeaderSpec> largeHeaders() {
        Arbitrary<ReadChunk> readChunk = Combinators.combine(
                Arbitraries.longs().between(0, 0x3FFFFFFFL),
                segments().list().ofMinSize(1).ofMaxSize(10)).as(ReadChunk::new);
        return Combinators.combine(
                Arbitraries.integers(),
                readChunk.list().ofMaxSize(3),
                segments().list().ofMinSize(10).ofMaxSize(25).list().ofMinSize(1).ofMaxSize(4),
                segments().list().ofMinSize(0).ofMaxSize(25))
                .as((xid, reads, writes, reply) -> new HeaderSpec(xid, 1, Kind.MSG, reads, writes, reply, 0, 0));
    }

    static Arbitrary<HeaderSpec> headers() {
        Arbitrary<ReadChunk> readChunk = Combinators.combine(
                Arbitraries.longs().between(0, 0x3FFFFFFFL),
                segments().list().ofMinSize(1).ofMaxSize(4)).as(ReadChunk::new);
        Arbitrary<Kind> kind = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(5, Arbitraries.just(Kind.MSG)),
                net.jqwik.api.Tuple.of(3, Arbitraries.just(Kind.NOMSG)),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(Kind.ERR_VERS)),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(Kind.ERR_CHUNK)));
        return Combinators.combine(
                Arbitraries.integers(),
                Arbitraries.integers(),
                kind,
                readChunk.list().ofMaxSize(4),
                segments().list().ofMaxSize(5).list().ofMaxSize(4),
                segments().list().ofMaxSize(5).injectNull(0.4),
                Arbitraries.integers(),
                Arbitraries.integers()).as(HeaderSpec::new);
    }
}
