package org.rpcrdma4j.verbs.disni;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.SVCPostSend;
import org.rpcrdma4j.verbs.SendWorkRequest;

/**
 * Posts send chains through DiSNI without allocating in steady state.
 * <p>
 * DiSNI serialises a list of {@link IbvSendWR}s into native memory once ({@link NativeQp#prepareSend}); the resulting
 * {@link SVCPostSend} can be executed again and again, and its wr_id, send flags, remote address, rkey and SGE
 * address/length/lkey rewritten in place, but not its opcodes, SGE counts or chain length. So this class keeps the
 * serialised calls of the last {@value #CACHE_SIZE} chain <em>shapes</em> (per request: opcode and posted SGE count) and, for a
 * chain of a known shape, rewrites and re-executes the cached call. Only a new shape allocates (DiSNI's list, its SGE
 * objects and its native buffer); an RPC transport uses a handful of shapes, so after warm-up nothing is allocated.
 * When the cache is full the least recently used shape is freed.
 * <p>
 * Owned by the one thread that posts on the queue pair.
 */
final class SendPoster {
    static final int CACHE_SIZE = 16;

    private final NativeQp qp;
    private final Shape[] shapes = new Shape[CACHE_SIZE];
    private final int[] scratch;
    private long clock;
    private long serialised;

    private static final class Shape {
        final int[] kinds;
        final SVCPostSend call;
        long lastUse;

        Shape(int[] kinds, SVCPostSend call) {
            this.kinds = kinds;
            this.call = call;
        }
    }

    SendPoster(NativeQp qp, int maxChain) {
        this.qp = qp;
        this.scratch = new int[maxChain];
    }

    /**
     * Posts a validated chain of {@code length} requests ({@link SendTranslation#validate}).
     *
     * @throws IOException when DiSNI or the device refuses it
     */
    void post(SendWorkRequest chain, int length) throws IOException {
        int i = 0;
        for (SendWorkRequest wr = chain; i < length; wr = wr.next) {
            scratch[i++] = SendTranslation.ibvOpcode(wr.opcode) << 16 | SendTranslation.postedSges(wr);
        }
        Shape shape = find(length);
        if (shape == null) {
            shape = serialise(chain, length);
        } else {
            int w = 0;
            for (SendWorkRequest wr = chain; w < length; wr = wr.next) {
                SendTranslation.apply(wr, shape.call.getWrMod(w++));
            }
        }
        shape.lastUse = ++clock;
        shape.call.execute();
    }

    private Shape find(int length) {
        for (Shape s : shapes) {
            if (s != null && s.kinds.length == length && same(s.kinds, length)) {
                return s;
            }
        }
        return null;
    }

    private boolean same(int[] kinds, int length) {
        for (int i = 0; i < length; i++) {
            if (kinds[i] != scratch[i]) {
                return false;
            }
        }
        return true;
    }

    private Shape serialise(SendWorkRequest chain, int length) throws IOException {
        List<IbvSendWR> list = new ArrayList<>(length);
        int i = 0;
        for (SendWorkRequest wr = chain; i < length; wr = wr.next, i++) {
            list.add(SendTranslation.toIbv(wr, new IbvSendWR()));
        }
        SVCPostSend call = qp.prepareSend(list);
        int[] kinds = new int[length];
        System.arraycopy(scratch, 0, kinds, 0, length);
        Shape shape = new Shape(kinds, call);
        int slot = 0;
        for (int s = 0; s < shapes.length; s++) {
            if (shapes[s] == null) {
                slot = s;
                break;
            }
            if (shapes[s].lastUse < shapes[slot].lastUse) {
                slot = s;
            }
        }
        if (shapes[slot] != null) {
            shapes[slot].call.free();
        }
        shapes[slot] = shape;
        serialised++;
        return shape;
    }

    /** How many chains were serialised (cache misses) so far. */
    long serialised() {
        return serialised;
    }

    /** Frees every cached call. */
    void free() {
        for (int s = 0; s < shapes.length; s++) {
            if (shapes[s] != null) {
                shapes[s].call.free();
                shapes[s] = null;
            }
        }
    }
}
