package org.rpcrdma4j.nfs.v4;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Generates random, well-formed NFSv4 COMPOUND operations (arguments and a matching result), written from the XDR of
 * RFC 7530, RFC 8881, RFC 7862 and RFC 8276 independently of the binding's walk: every union arm, random strings,
 * handles, owners, bitmaps and attribute values. Results match their arguments where a size bound depends on them
 * (GETATTR returns only requested attributes with values of the right size, READDIR stays within maxcount,
 * TEST_STATEID answers each stateid).
 */
public final class OperationGenerator {
    /** NFS4ERR_DENIED, NFS4ERR_CLID_INUSE, NFS4ERR_LAYOUTTRYLATER: statuses whose error arm carries a body. */
    static final int NFS4ERR_DENIED = 10010;
    static final int NFS4ERR_CLID_INUSE = 10017;
    static final int NFS4ERR_LAYOUTTRYLATER = 10058;

    /** Operations of each minor version that may come before a call's data item (no WRITE, no CREATE of a link). */
    static final int[] CALL_OPERATIONS_V40 = {3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
        23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 39};
    static final int[] V41_OPERATIONS = {40, 41, 44, 45, 47, 48, 49, 50, 51, 52, 53, 55, 57, 58};
    static final int[] V42_OPERATIONS = {59, 60, 62, 63, 64, 66, 67, 68, 69, 71, 72, 73, 74, 75};

    private OperationGenerator() {
    }

    /** @return the operations that may precede a call's data item in a COMPOUND of that minor version */
    public static int[] callOperations(int minor) {
        List<Integer> ops = new ArrayList<>();
        for (int op : CALL_OPERATIONS_V40) {
            ops.add(op);
        }
        if (minor >= 1) {
            for (int op : V41_OPERATIONS) {
                ops.add(op);
            }
        }
        if (minor >= 2) {
            for (int op : V42_OPERATIONS) {
                ops.add(op);
            }
        }
        return ops.stream().mapToInt(Integer::intValue).toArray();
    }

    /** @return the operations whose successful result may precede a reply's data item (no READ, no READLINK) */
    static int[] replyOperations(int minor) {
        int[] call = callOperations(minor);
        List<Integer> ops = new ArrayList<>();
        for (int op : call) {
            if (op != Nfs4.OP_READ && op != Nfs4.OP_READLINK) {
                ops.add(op);
            }
        }
        ops.add(Nfs4.OP_WRITE);
        return ops.stream().mapToInt(Integer::intValue).toArray();
    }

    // ----------------------------------------------------------------------------------------- primitives

    private static byte[] bytes(Random r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }

    /** A length: mostly short, sometimes up to {@code max}. */
    private static int length(Random r, int max) {
        return r.nextInt(8) == 0 ? r.nextInt(max + 1) : r.nextInt(Math.min(max, 40) + 1);
    }

    private static void name(Random r, XdrWriter w) {
        w.opaque(bytes(r, length(r, 300)));
    }

    private static void handle(Random r, XdrWriter w) {
        w.opaque(bytes(r, length(r, Nfs4.FHSIZE)));
    }

    private static void stateid(Random r, XdrWriter w) {
        w.fixed(r, Nfs4.STATEID_SIZE);
    }

    private static void owner(Random r, XdrWriter w) {
        w.hyper(r.nextLong()).opaque(bytes(r, length(r, Nfs4.OPAQUE_LIMIT)));
    }

    private static void changeInfo(Random r, XdrWriter w) {
        w.bool(r.nextBoolean()).hyper(r.nextLong()).hyper(r.nextLong());
    }

    /** A bitmap4 of 0 to 3 words (sometimes up to 8), random bits. */
    private static int[] bitmapWords(Random r) {
        int[] words = new int[r.nextInt(10) == 0 ? r.nextInt(Nfs4.DECODE_MAX_BITMAP_WORDS + 1) : r.nextInt(4)];
        for (int i = 0; i < words.length; i++) {
            words[i] = r.nextInt();
        }
        return words;
    }

    private static void bitmap(XdrWriter w, int[] words) {
        w.word(words.length);
        for (int v : words) {
            w.word(v);
        }
    }

    private static void bitmap(Random r, XdrWriter w) {
        bitmap(w, bitmapWords(r));
    }

    /** fattr4 with random attributes: the binding treats attrlist4 as opaque. */
    private static void fattr(Random r, XdrWriter w) {
        bitmap(r, w);
        w.opaque(bytes(r, length(r, 400)));
    }

    private static void ace(Random r, XdrWriter w) {
        w.word(r.nextInt(4)).word(r.nextInt()).word(r.nextInt());
        name(r, w);
    }

    private static void secinfoList(Random r, XdrWriter w) {
        int n = r.nextInt(4);
        w.word(n);
        for (int i = 0; i < n; i++) {
            int flavor = new int[] {0, 1, 6, 390003, 390004}[r.nextInt(5)];
            w.word(flavor);
            if (flavor == 6) {
                w.opaque(bytes(r, length(r, 40))).word(r.nextInt()).word(1 + r.nextInt(3));
            }
        }
    }

    // ------------------------------------------------------------------------------------------ operations

    /**
     * Generates one operation.
     *
     * @param op    the operation (one of {@link #callOperations} / {@link #replyOperations}, or READ, WRITE)
     * @param minor the COMPOUND's minor version, which decides the union arms that may appear
     */
    public static GeneratedOperation generate(int op, int minor, Random r) {
        XdrWriter a = new XdrWriter();
        XdrWriter ok = new XdrWriter();
        XdrWriter err = new XdrWriter();
        int errorStatus = 1 + r.nextInt(10_100);
        switch (op) {
            case Nfs4.OP_ACCESS -> {
                a.word(r.nextInt(64));
                ok.word(r.nextInt(64)).word(r.nextInt(64));
            }
            case Nfs4.OP_CLOSE -> {
                a.word(r.nextInt());
                stateid(r, a);
                stateid(r, ok);
            }
            case Nfs4.OP_COMMIT -> {
                a.hyper(r.nextLong()).word(r.nextInt());
                ok.fixed(r, 8);
            }
            case Nfs4.OP_CREATE -> {
                int type = new int[] {2, 3, 4, 6, 7}[r.nextInt(5)]; // DIR, BLK, CHR, SOCK, FIFO: not a link
                a.word(type);
                if (type == 3 || type == 4) {
                    a.word(r.nextInt()).word(r.nextInt());
                }
                name(r, a);
                fattr(r, a);
                changeInfo(r, ok);
                bitmap(r, ok);
            }
            case Nfs4.OP_DELEGPURGE, Nfs4.OP_RENEW, Nfs4.OP_DESTROY_CLIENTID -> a.hyper(r.nextLong());
            case Nfs4.OP_DELEGRETURN, Nfs4.OP_FREE_STATEID, Nfs4.OP_OFFLOAD_CANCEL -> stateid(r, a);
            case Nfs4.OP_GETATTR -> Attributes.getattr(r, a, ok);
            case Nfs4.OP_GETFH -> handle(r, ok);
            case Nfs4.OP_LINK -> {
                name(r, a);
                changeInfo(r, ok);
            }
            case Nfs4.OP_LOCK -> {
                a.word(1 + r.nextInt(4)).bool(r.nextBoolean()).hyper(r.nextLong()).hyper(r.nextLong());
                if (r.nextBoolean()) {
                    a.bool(true).word(r.nextInt());
                    stateid(r, a);
                    a.word(r.nextInt());
                    owner(r, a);
                } else {
                    a.bool(false);
                    stateid(r, a);
                    a.word(r.nextInt());
                }
                stateid(r, ok);
                errorStatus = denied(r, err, errorStatus);
            }
            case Nfs4.OP_LOCKT -> {
                a.word(1 + r.nextInt(4)).hyper(r.nextLong()).hyper(r.nextLong());
                owner(r, a);
                errorStatus = denied(r, err, errorStatus);
            }
            case Nfs4.OP_LOCKU -> {
                a.word(1 + r.nextInt(4)).word(r.nextInt());
                stateid(r, a);
                a.hyper(r.nextLong()).hyper(r.nextLong());
                stateid(r, ok);
            }
            case Nfs4.OP_LOOKUP, Nfs4.OP_SECINFO -> {
                name(r, a);
                if (op == Nfs4.OP_SECINFO) {
                    secinfoList(r, ok);
                }
            }
            case Nfs4.OP_NVERIFY, Nfs4.OP_VERIFY -> fattr(r, a);
            case Nfs4.OP_OPEN -> Open.generate(r, minor, a, ok);
            case Nfs4.OP_OPENATTR, Nfs4.OP_RECLAIM_COMPLETE -> a.bool(r.nextBoolean());
            case Nfs4.OP_OPEN_CONFIRM -> {
                stateid(r, a);
                a.word(r.nextInt());
                stateid(r, ok);
            }
            case Nfs4.OP_OPEN_DOWNGRADE -> {
                stateid(r, a);
                a.word(r.nextInt()).word(1 + r.nextInt(3)).word(r.nextInt(4));
                stateid(r, ok);
            }
            case Nfs4.OP_PUTFH -> handle(r, a);
            case Nfs4.OP_READ -> {
                stateid(r, a);
                a.hyper(r.nextLong()).word(r.nextInt());
            }
            case Nfs4.OP_READDIR -> readdir(r, a, ok);
            case Nfs4.OP_REMOVE -> {
                name(r, a);
                changeInfo(r, ok);
            }
            case Nfs4.OP_RENAME -> {
                name(r, a);
                name(r, a);
                changeInfo(r, ok);
                changeInfo(r, ok);
            }
            case Nfs4.OP_SETATTR -> {
                stateid(r, a);
                fattr(r, a);
                bitmap(r, ok);
                bitmap(r, err); // SETATTR4res carries attrsset whatever the status
            }
            case Nfs4.OP_SETCLIENTID -> {
                a.fixed(r, 8).opaque(bytes(r, length(r, Nfs4.OPAQUE_LIMIT))).word(r.nextInt());
                name(r, a);
                name(r, a);
                a.word(r.nextInt());
                ok.hyper(r.nextLong()).fixed(r, 8);
                if (r.nextBoolean()) {
                    errorStatus = NFS4ERR_CLID_INUSE;
                    name(r, err);
                    name(r, err);
                }
            }
            case Nfs4.OP_SETCLIENTID_CONFIRM -> a.hyper(r.nextLong()).fixed(r, 8);
            case Nfs4.OP_WRITE -> {
                stateid(r, a);
                a.hyper(r.nextLong()).word(r.nextInt(3)).opaque(bytes(r, length(r, 600)));
                ok.word(r.nextInt()).word(r.nextInt(3)).fixed(r, 8);
            }
            case Nfs4.OP_RELEASE_LOCKOWNER -> owner(r, a);
            case Nfs4.OP_BACKCHANNEL_CTL -> backchannelCtl(r, a);
            case Nfs4.OP_BIND_CONN_TO_SESSION -> {
                a.fixed(r, Nfs4.SESSIONID_SIZE).word(1 + r.nextInt(3)).bool(r.nextBoolean());
                ok.fixed(r, Nfs4.SESSIONID_SIZE).word(1 + r.nextInt(3)).bool(r.nextBoolean());
            }
            case Nfs4.OP_DESTROY_SESSION -> a.fixed(r, Nfs4.SESSIONID_SIZE);
            case Nfs4.OP_GETDEVICEINFO -> {
                a.fixed(r, Nfs4.DEVICEID_SIZE).word(1 + r.nextInt(4)).word(r.nextInt());
                bitmap(r, a);
                ok.word(1 + r.nextInt(4)).opaque(bytes(r, length(r, 300)));
                bitmap(r, ok);
            }
            case Nfs4.OP_GETDEVICELIST -> {
                a.word(1 + r.nextInt(4)).word(r.nextInt()).hyper(r.nextLong()).fixed(r, 8);
                int n = r.nextInt(4);
                ok.hyper(r.nextLong()).fixed(r, 8).word(n).fixed(r, n * Nfs4.DEVICEID_SIZE).bool(r.nextBoolean());
            }
            case Nfs4.OP_LAYOUTCOMMIT -> {
                a.hyper(r.nextLong()).hyper(r.nextLong()).bool(r.nextBoolean());
                stateid(r, a);
                boolean newOffset = r.nextBoolean();
                a.bool(newOffset);
                if (newOffset) {
                    a.hyper(r.nextLong());
                }
                boolean newTime = r.nextBoolean();
                a.bool(newTime);
                if (newTime) {
                    a.hyper(r.nextLong()).word(r.nextInt(1_000_000_000));
                }
                a.word(1 + r.nextInt(4)).opaque(bytes(r, length(r, 200)));
                boolean newSize = r.nextBoolean();
                ok.bool(newSize);
                if (newSize) {
                    ok.hyper(r.nextLong());
                }
            }
            case Nfs4.OP_LAYOUTGET -> {
                a.bool(r.nextBoolean()).word(1 + r.nextInt(4)).word(1 + r.nextInt(3)).hyper(r.nextLong())
                        .hyper(r.nextLong()).hyper(r.nextLong());
                stateid(r, a);
                a.word(r.nextInt());
                ok.bool(r.nextBoolean());
                stateid(r, ok);
                int n = 1 + r.nextInt(2);
                ok.word(n);
                for (int i = 0; i < n; i++) {
                    ok.hyper(r.nextLong()).hyper(r.nextLong()).word(1 + r.nextInt(3)).word(1 + r.nextInt(4))
                            .opaque(bytes(r, length(r, 300)));
                }
                if (r.nextBoolean()) {
                    errorStatus = NFS4ERR_LAYOUTTRYLATER;
                    err.bool(r.nextBoolean());
                }
            }
            case Nfs4.OP_LAYOUTRETURN -> {
                a.bool(r.nextBoolean()).word(1 + r.nextInt(4)).word(1 + r.nextInt(3));
                int type = 1 + r.nextInt(3);
                a.word(type);
                if (type == 1) {
                    a.hyper(r.nextLong()).hyper(r.nextLong());
                    stateid(r, a);
                    a.opaque(bytes(r, length(r, 200)));
                }
                boolean present = r.nextBoolean();
                ok.bool(present);
                if (present) {
                    stateid(r, ok);
                }
            }
            case Nfs4.OP_SECINFO_NO_NAME -> {
                a.word(r.nextInt(2));
                secinfoList(r, ok);
            }
            case Nfs4.OP_SEQUENCE -> {
                a.fixed(r, Nfs4.SESSIONID_SIZE).word(r.nextInt()).word(r.nextInt(64)).word(r.nextInt(64))
                        .bool(r.nextBoolean());
                ok.fixed(r, Nfs4.SESSIONID_SIZE).word(r.nextInt()).word(r.nextInt(64)).word(r.nextInt(64))
                        .word(r.nextInt(64)).word(r.nextInt());
            }
            case Nfs4.OP_TEST_STATEID -> {
                int n = r.nextInt(5);
                a.word(n).fixed(r, n * Nfs4.STATEID_SIZE);
                ok.word(n);
                for (int i = 0; i < n; i++) {
                    ok.word(r.nextInt(10_100));
                }
            }
            case Nfs4.OP_ALLOCATE, Nfs4.OP_DEALLOCATE -> {
                stateid(r, a);
                a.hyper(r.nextLong()).hyper(r.nextLong());
            }
            case Nfs4.OP_IO_ADVISE -> {
                stateid(r, a);
                a.hyper(r.nextLong()).hyper(r.nextLong());
                bitmap(r, a);
                bitmap(r, ok);
            }
            case Nfs4.OP_LAYOUTERROR -> {
                a.hyper(r.nextLong()).hyper(r.nextLong());
                stateid(r, a);
                int n = r.nextInt(3);
                a.word(n);
                for (int i = 0; i < n; i++) {
                    a.fixed(r, Nfs4.DEVICEID_SIZE).word(r.nextInt(10_100)).word(3 + r.nextInt(70));
                }
            }
            case Nfs4.OP_OFFLOAD_STATUS -> {
                stateid(r, a);
                boolean complete = r.nextBoolean();
                ok.hyper(r.nextLong()).word(complete ? 1 : 0);
                if (complete) {
                    ok.word(r.nextInt(10_100));
                }
            }
            case Nfs4.OP_READ_PLUS -> {
                stateid(r, a);
                a.hyper(r.nextLong()).word(r.nextInt());
                int n = r.nextInt(4);
                ok.bool(r.nextBoolean()).word(n);
                for (int i = 0; i < n; i++) {
                    if (r.nextBoolean()) {
                        ok.word(0).hyper(r.nextLong()).opaque(bytes(r, length(r, 300)));
                    } else {
                        ok.word(1).hyper(r.nextLong()).hyper(r.nextLong());
                    }
                }
            }
            case Nfs4.OP_COPY -> {
                stateid(r, a);
                stateid(r, a);
                a.hyper(r.nextLong()).hyper(r.nextLong()).hyper(r.nextLong()).bool(r.nextBoolean())
                        .bool(r.nextBoolean());
                int sources = r.nextInt(3);
                a.word(sources);
                for (int i = 0; i < sources; i++) {
                    int type = 1 + r.nextInt(3);
                    a.word(type).opaque(bytes(r, length(r, 60)));
                    if (type == 3) {
                        a.opaque(bytes(r, length(r, 60)));
                    }
                }
                boolean async = r.nextBoolean();
                ok.word(async ? 1 : 0);
                if (async) {
                    stateid(r, ok);
                }
                ok.hyper(r.nextLong()).word(r.nextInt(3)).fixed(r, 8).bool(r.nextBoolean()).bool(!async);
                if (errorStatus == org.rpcrdma4j.nfs.v4.Nfs4Status.NFS4ERR_OFFLOAD_NO_REQS) {
                    err.bool(r.nextBoolean()).bool(r.nextBoolean());
                }
            }
            case Nfs4.OP_SEEK -> {
                stateid(r, a);
                a.hyper(r.nextLong()).word(r.nextInt(2));
                ok.bool(r.nextBoolean()).hyper(r.nextLong());
            }
            case Nfs4.OP_CLONE -> {
                stateid(r, a);
                stateid(r, a);
                a.hyper(r.nextLong()).hyper(r.nextLong()).hyper(r.nextLong());
            }
            case Nfs4.OP_GETXATTR -> {
                name(r, a);
                ok.opaque(bytes(r, length(r, 300)));
            }
            case Nfs4.OP_SETXATTR -> {
                a.word(r.nextInt(3));
                name(r, a);
                a.opaque(bytes(r, length(r, 300)));
                changeInfo(r, ok);
            }
            case Nfs4.OP_LISTXATTRS -> {
                a.hyper(r.nextLong()).word(r.nextInt());
                int n = r.nextInt(4);
                ok.hyper(r.nextLong()).word(n);
                for (int i = 0; i < n; i++) {
                    name(r, ok);
                }
                ok.bool(r.nextBoolean());
            }
            case Nfs4.OP_REMOVEXATTR -> {
                name(r, a);
                changeInfo(r, ok);
            }
            default -> {
                // void arguments and results: LOOKUPP, PUTPUBFH, PUTROOTFH, READLINK, RESTOREFH, SAVEFH
                if (op != Nfs4.OP_LOOKUPP && op != Nfs4.OP_PUTPUBFH && op != Nfs4.OP_PUTROOTFH
                        && op != Nfs4.OP_READLINK && op != Nfs4.OP_RESTOREFH && op != Nfs4.OP_SAVEFH) {
                    throw new IllegalArgumentException("no generator for operation " + op);
                }
            }
        }
        return new GeneratedOperation(op, a.bytes(), ok.bytes(), errorStatus, err.bytes());
    }

    /** Half the time, LOCK and LOCKT fail with NFS4ERR_DENIED and its LOCK4denied body. */
    private static int denied(Random r, XdrWriter err, int otherwise) {
        if (!r.nextBoolean()) {
            return otherwise;
        }
        err.hyper(r.nextLong()).hyper(r.nextLong()).word(1 + r.nextInt(4));
        owner(r, err);
        return NFS4ERR_DENIED;
    }

    private static void readdir(Random r, XdrWriter a, XdrWriter ok) {
        XdrWriter res = new XdrWriter().fixed(r, 8);
        int n = r.nextInt(4);
        for (int i = 0; i < n; i++) {
            res.bool(true).hyper(r.nextLong());
            name(r, res);
            fattr(r, res);
        }
        res.bool(false).bool(r.nextBoolean());
        byte[] result = res.bytes();
        a.hyper(r.nextLong()).fixed(r, 8).word(r.nextInt()).word(result.length + r.nextInt(100));
        bitmap(r, a);
        ok.raw(result);
    }

    private static void backchannelCtl(Random r, XdrWriter a) {
        a.word(r.nextInt());
        int n = r.nextInt(4);
        a.word(n);
        for (int i = 0; i < n; i++) {
            int flavor = new int[] {0, 1, 6}[r.nextInt(3)];
            a.word(flavor);
            if (flavor == 1) {
                a.word(r.nextInt()).opaque(bytes(r, length(r, 255))).word(r.nextInt()).word(r.nextInt());
                int gids = r.nextInt(17);
                a.word(gids).fixed(r, 4 * gids);
            } else if (flavor == 6) {
                a.word(1 + r.nextInt(3)).opaque(bytes(r, length(r, 100))).opaque(bytes(r, length(r, 100)));
            }
        }
    }

    /** OPEN4args and OPEN4resok with every createhow4, open_claim4 and open_delegation4 arm. */
    private static final class Open {
        static void generate(Random r, int minor, XdrWriter a, XdrWriter ok) {
            a.word(r.nextInt()).word(1 + r.nextInt(3)).word(r.nextInt(4));
            owner(r, a);
            boolean create = r.nextBoolean();
            a.word(create ? 1 : 0);
            if (create) {
                int mode = r.nextInt(minor >= 1 ? 4 : 3);
                a.word(mode);
                switch (mode) {
                    case 0, 1 -> fattr(r, a);
                    case 2 -> a.fixed(r, 8);
                    default -> {
                        a.fixed(r, 8);
                        fattr(r, a);
                    }
                }
            }
            int claim = r.nextInt(minor >= 1 ? 7 : 4);
            a.word(claim);
            switch (claim) {
                case 0, 3 -> name(r, a);
                case 1 -> a.word(r.nextInt(3));
                case 2 -> {
                    stateid(r, a);
                    name(r, a);
                }
                case 5 -> stateid(r, a);
                default -> {
                    // CLAIM_FH, CLAIM_DELEG_PREV_FH: void
                }
            }
            stateid(r, ok);
            changeInfo(r, ok);
            ok.word(r.nextInt(64));
            bitmap(r, ok);
            int delegation = r.nextInt(minor >= 1 ? 4 : 3);
            ok.word(delegation);
            switch (delegation) {
                case 1 -> {
                    stateid(r, ok);
                    ok.bool(r.nextBoolean());
                    ace(r, ok);
                }
                case 2 -> {
                    stateid(r, ok);
                    ok.bool(r.nextBoolean());
                    ok.word(1 + r.nextInt(2)).hyper(r.nextLong()); // NFS_LIMIT_SIZE or NFS_LIMIT_BLOCKS
                    ace(r, ok);
                }
                case 3 -> {
                    int why = r.nextInt(7);
                    ok.word(why);
                    if (why == 1 || why == 2) {
                        ok.bool(r.nextBoolean());
                    }
                }
                default -> {
                    // OPEN_DELEGATE_NONE
                }
            }
        }
    }
}
