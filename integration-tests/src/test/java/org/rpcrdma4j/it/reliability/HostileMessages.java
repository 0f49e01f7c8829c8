package org.rpcrdma4j.it.reliability;

import java.nio.ByteBuffer;
import java.util.Random;

/**
 * Hostile RPC-over-RDMA messages for the hostile-client campaign, built word by word (the codec refuses to build most
 * of them). Every message names its kind; {@link #valid} is a well-formed NFSv3 NULL call for comparison and flooding.
 */
final class HostileMessages {
    static final int NFS_PROGRAM = 100003;

    /** The kinds, in the order {@link #build} takes them. */
    static final String[] KINDS = {"random-bytes", "truncated-header", "wrong-version", "unknown-proc",
        "many-read-segments", "huge-write-segment-count", "read-chunk-out-of-bounds", "read-chunk-huge-length",
        "read-chunk-bad-stag", "reply-chunk-bad-stag", "position-beyond-message", "client-sends-done-or-error",
        "garbage-rpc-body", "credit-flood"};

    private final Random rnd;
    private final int exposedStag;
    private final long exposedIova;

    HostileMessages(long seed, int exposedStag, long exposedIova) {
        this.rnd = new Random(seed);
        this.exposedStag = exposedStag;
        this.exposedIova = exposedIova;
    }

    /** A well-formed RDMA_MSG carrying an NFSv3 NULL call (AUTH_NONE). */
    static byte[] valid(int xid) {
        ByteBuffer b = ByteBuffer.allocate(68);
        b.putInt(xid).putInt(1).putInt(32).putInt(0).putInt(0).putInt(0).putInt(0);
        b.putInt(xid).putInt(0).putInt(2).putInt(NFS_PROGRAM).putInt(3).putInt(0).putInt(0).putInt(0).putInt(0)
                .putInt(0);
        return b.array();
    }

    /** The message of {@code kind} (one message; the flood is many {@link #valid} ones). */
    byte[] build(String kind) {
        int xid = rnd.nextInt();
        ByteBuffer b = ByteBuffer.allocate(8192);
        switch (kind) {
            case "random-bytes" -> {
                byte[] r = new byte[1 + rnd.nextInt(3000)];
                rnd.nextBytes(r);
                return r;
            }
            case "truncated-header" -> {
                byte[] v = valid(xid);
                return java.util.Arrays.copyOf(v, 1 + rnd.nextInt(27));
            }
            case "wrong-version" -> {
                byte[] v = valid(xid);
                int vers = rnd.nextBoolean() ? 2 + rnd.nextInt(6) : rnd.nextInt();
                ByteBuffer.wrap(v).putInt(4, vers == 1 ? 0 : vers);
                return v;
            }
            case "unknown-proc" -> {
                byte[] v = valid(xid);
                ByteBuffer.wrap(v).putInt(12, 5 + rnd.nextInt(Integer.MAX_VALUE - 5));
                return v;
            }
            case "many-read-segments" -> {
                // up to ~300 segments: within and beyond the 4 KiB inline threshold
                int n = 1 + rnd.nextInt(300);
                b.putInt(xid).putInt(1).putInt(32).putInt(0);
                for (int i = 0; i < n; i++) {
                    b.putInt(1).putInt(40).putInt(exposedStag).putInt(8).putLong(exposedIova);
                }
                b.putInt(0).putInt(0).putInt(0);
                rpcNull(b, xid);
            }
            case "huge-write-segment-count" -> {
                b.putInt(xid).putInt(1).putInt(32).putInt(0).putInt(0);
                b.putInt(1).putInt(rnd.nextBoolean() ? Integer.MAX_VALUE : 0x10000 + rnd.nextInt(1 << 20));
                b.putInt(exposedStag).putInt(64).putLong(exposedIova);
                b.putInt(0).putInt(0);
                rpcNull(b, xid);
            }
            case "read-chunk-out-of-bounds" -> {
                long offset = exposedIova + HostileClient.EXPOSED_SIZE - rnd.nextInt(64) + rnd.nextInt(1 << 20);
                readChunk(b, xid, 0, exposedStag, 512 + rnd.nextInt(8192), offset);
                return bytes(b);
            }
            case "read-chunk-huge-length" -> {
                readChunk(b, xid, 0, exposedStag, Integer.MAX_VALUE - rnd.nextInt(1 << 20), exposedIova);
                return bytes(b);
            }
            case "read-chunk-bad-stag" -> {
                readChunk(b, xid, 0, rnd.nextInt(), 256, rnd.nextLong());
                return bytes(b);
            }
            case "reply-chunk-bad-stag" -> {
                b.putInt(xid).putInt(1).putInt(32).putInt(0).putInt(0).putInt(0);
                b.putInt(1).putInt(1 + rnd.nextInt(3));
                int segments = b.getInt(b.position() - 4);
                for (int i = 0; i < segments; i++) {
                    b.putInt(rnd.nextInt()).putInt(rnd.nextInt()).putLong(rnd.nextLong());
                }
                rpcNull(b, xid);
            }
            case "position-beyond-message" -> {
                b.putInt(xid).putInt(1).putInt(32).putInt(0);
                b.putInt(1).putInt(4000 + rnd.nextInt(1 << 20)).putInt(exposedStag).putInt(64).putLong(exposedIova);
                b.putInt(0).putInt(0).putInt(0);
                rpcNull(b, xid);
            }
            case "client-sends-done-or-error" -> {
                b.putInt(xid).putInt(1).putInt(32).putInt(rnd.nextBoolean() ? 3 : 4);
                for (int i = 0; i < rnd.nextInt(8); i++) {
                    b.putInt(rnd.nextInt(3));
                }
            }
            case "garbage-rpc-body" -> {
                b.putInt(xid).putInt(1).putInt(32).putInt(0).putInt(0).putInt(0).putInt(0);
                b.putInt(xid).putInt(0).putInt(2).putInt(NFS_PROGRAM).putInt(3).putInt(rnd.nextInt(25));
                // credentials and arguments: random words, some lengths absurd
                for (int i = 0, n = rnd.nextInt(40); i < n; i++) {
                    b.putInt(rnd.nextInt(4) == 0 ? rnd.nextInt() : rnd.nextInt(64));
                }
            }
            default -> throw new IllegalArgumentException(kind);
        }
        return bytes(b);
    }

    /** A RDMA_NOMSG header with one read chunk at {@code position} (nothing inline). */
    private static void readChunk(ByteBuffer b, int xid, int position, int stag, int length, long offset) {
        b.putInt(xid).putInt(1).putInt(32).putInt(1);
        b.putInt(1).putInt(position).putInt(stag).putInt(length).putLong(offset);
        b.putInt(0).putInt(0).putInt(0);
    }

    private static void rpcNull(ByteBuffer b, int xid) {
        b.putInt(xid).putInt(0).putInt(2).putInt(NFS_PROGRAM).putInt(3).putInt(0).putInt(0).putInt(0).putInt(0)
                .putInt(0);
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.position()];
        b.get(0, out);
        return out;
    }
}
