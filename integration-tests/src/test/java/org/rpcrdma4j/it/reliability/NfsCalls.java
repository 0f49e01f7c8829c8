package org.rpcrdma4j.it.reliability;

import java.nio.ByteBuffer;
import java.util.Random;

/**
 * Valid NFSv3 calls over RPC-over-RDMA, built byte by byte, as the fuzz campaign's templates: AUTH_SYS (uid 0),
 * NULL, GETATTR and ACCESS of the root, inline WRITE and READ of a file, a WRITE whose data is a Read chunk in the
 * fuzzing client's exposed memory, and a READ with a Write chunk there.
 */
final class NfsCalls {
    private static final int PROGRAM = 100003;
    private final byte[] root;
    private final byte[] file;
    private final int stag;
    private final long iova;
    private int xid = 1;

    NfsCalls(byte[] root, byte[] file, int stag, long iova) {
        this.root = root;
        this.file = file;
        this.stag = stag;
        this.iova = iova;
    }

    /** A valid RDMA_MSG carrying an NFSv3 NULL call with {@code xid}. */
    static byte[] nullCall(int xid) {
        return HostileMessages.valid(xid);
    }

    /** A random template: nine in ten inline, one in ten with a chunk. */
    byte[] template(Random rnd) {
        int x = xid++;
        ByteBuffer b = ByteBuffer.allocate(4096);
        int kind = rnd.nextInt(10) == 0 ? 5 + rnd.nextInt(2) : rnd.nextInt(5);
        switch (kind) {
            case 0 -> {
                header(b, x, 0, false, false);
                rpc(b, x, 0);
            }
            case 1 -> {
                header(b, x, 0, false, false);
                rpc(b, x, 1);
                fh(b, root);
            }
            case 2 -> {
                header(b, x, 0, false, false);
                rpc(b, x, 4);
                fh(b, root);
                b.putInt(0x3f);
            }
            case 3 -> {
                header(b, x, 0, false, false);
                rpc(b, x, 7);
                fh(b, file);
                b.putLong(rnd.nextInt(4096)).putInt(200).putInt(2).putInt(200);
                byte[] data = new byte[200];
                rnd.nextBytes(data);
                b.put(data);
            }
            case 4 -> {
                header(b, x, 0, false, false);
                rpc(b, x, 6);
                fh(b, file);
                b.putLong(0).putInt(1000);
            }
            case 5 -> {
                // WRITE, data (4096 bytes) as a Read chunk at its position; the length word stays inline
                int position = 28 + 40 + 20 + 4 + ((file.length + 3) & ~3) + 8 + 4 + 4 + 4 - 28;
                b.putInt(x).putInt(1).putInt(32).putInt(0);
                b.putInt(1).putInt(position).putInt(stag).putInt(4096).putLong(iova);
                b.putInt(0).putInt(0).putInt(0);
                rpc(b, x, 7);
                fh(b, file);
                b.putLong(0).putInt(4096).putInt(2).putInt(4096);
            }
            default -> {
                // READ of 4096 bytes with a Write chunk
                b.putInt(x).putInt(1).putInt(32).putInt(0).putInt(0);
                b.putInt(1).putInt(1).putInt(stag).putInt(8192).putLong(iova);
                b.putInt(0).putInt(0);
                rpc(b, x, 6);
                fh(b, file);
                b.putLong(0).putInt(4096);
            }
        }
        byte[] out = new byte[b.position()];
        b.get(0, out);
        return out;
    }

    private static void header(ByteBuffer b, int xid, int proc, boolean read, boolean write) {
        b.putInt(xid).putInt(1).putInt(32).putInt(proc).putInt(0).putInt(0).putInt(0);
    }

    /** Call header with AUTH_SYS (stamp 0, no machine name, uid 0, gid 0, no groups) and an AUTH_NONE verifier. */
    private static void rpc(ByteBuffer b, int xid, int procedure) {
        b.putInt(xid).putInt(0).putInt(2).putInt(PROGRAM).putInt(3).putInt(procedure);
        b.putInt(1).putInt(20).putInt(0).putInt(0).putInt(0).putInt(0).putInt(0);
        b.putInt(0).putInt(0);
    }

    private static void fh(ByteBuffer b, byte[] handle) {
        b.putInt(handle.length).put(handle);
        for (int i = handle.length; (i & 3) != 0; i++) {
            b.put((byte) 0);
        }
    }
}
