package org.rpcrdma4j.it.capture;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a peer's registered memory holds as far as the capture shows it: the bytes RDMA Writes placed, per STag and
 * tagged offset, later writes over earlier ones. Used to read back what a responder wrote into a requester's Write
 * and Reply chunks.
 */
final class TaggedMemory {
    private record Piece(long offset, byte[] bytes) {
        long end() {
            return offset + bytes.length;
        }
    }

    private final Map<Integer, List<Piece>> byStag = new HashMap<>();

    /** Records {@code bytes} placed at {@code [stag, offset]}. Takes ownership of the array. */
    void write(int stag, long offset, byte[] bytes) {
        if (bytes.length > 0) {
            byStag.computeIfAbsent(stag, k -> new ArrayList<>()).add(new Piece(offset, bytes));
        }
    }

    /**
     * @return the {@code length} bytes at {@code [stag, offset]}, or null when some of them were never written
     */
    byte[] read(int stag, long offset, int length) {
        byte[] out = new byte[length];
        if (length == 0) {
            return out;
        }
        boolean[] have = new boolean[length];
        int missing = length;
        List<Piece> pieces = byStag.getOrDefault(stag, List.of());
        for (int i = pieces.size() - 1; i >= 0 && missing > 0; i--) { // the latest write wins
            Piece p = pieces.get(i);
            long from = Math.max(offset, p.offset());
            long to = Math.min(offset + length, p.end());
            for (long a = from; a < to; a++) {
                int at = (int) (a - offset);
                if (!have[at]) {
                    have[at] = true;
                    out[at] = p.bytes()[(int) (a - p.offset())];
                    missing--;
                }
            }
        }
        return missing == 0 ? out : null;
    }

    /** Forgets every write that overlaps {@code [stag, offset, offset + length)} (the requester invalidated it). */
    void forget(int stag, long offset, long length) {
        List<Piece> pieces = byStag.get(stag);
        if (pieces != null) {
            pieces.removeIf(p -> p.offset() < offset + length && p.end() > offset);
        }
    }
}
