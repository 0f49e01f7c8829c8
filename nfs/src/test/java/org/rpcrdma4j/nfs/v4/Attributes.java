package org.rpcrdma4j.nfs.v4;

import java.util.Random;

/**
 * GETATTR for the generator: a request bitmap, and a result that returns a subset of the requested attributes the
 * server "supports", each value encoded with its type from RFC 7530 section 5, RFC 8881 section 5 and RFC 7862
 * section 12 (restated here for the tests, independently of the binding's size table).
 */
final class Attributes {
    /** Value size of each attribute the generated server supports; 0 = variable (encoded below); -1 = unsupported. */
    private static final int[] SIZE = new int[83];

    static {
        java.util.Arrays.fill(SIZE, -1);
        int[][] fixed = {
            {1, 4}, {2, 4}, {3, 8}, {4, 8}, {5, 4}, {6, 4}, {7, 4}, {8, 16}, {9, 4}, {10, 4}, {11, 4}, {13, 4},
            {14, 4}, {15, 4}, {16, 4}, {17, 4}, {18, 4}, {20, 8}, {21, 8}, {22, 8}, {23, 8}, {25, 4}, {26, 4},
            {27, 8}, {28, 4}, {29, 4}, {30, 8}, {31, 8}, {33, 4}, {34, 4}, {35, 4}, {38, 8}, {39, 8}, {40, 8},
            {41, 8}, {42, 8}, {43, 8}, {44, 8}, {45, 8}, {46, 4}, {47, 12}, {49, 12}, {50, 12}, {51, 12}, {52, 12},
            {53, 12}, {55, 8}, {56, 12}, {57, 12}, {60, 16}, {65, 4}, {66, 4}, {74, 8}, {76, 4}, {77, 4}, {78, 8},
            {79, 4}, {81, 8}, {82, 4},
        };
        for (int[] f : fixed) {
            SIZE[f[0]] = f[1];
        }
        for (int variable : new int[] {0, 12, 19, 32, 36, 37, 75}) {
            SIZE[variable] = 0; // supported_attrs, acl, filehandle, mimetype, owner, owner_group, suppattr_exclcreat
        }
    }

    private Attributes() {
    }

    /** Whether the protocol bounds the attribute's value (the binding may then bound a GETATTR reply). */
    static boolean bounded(int attribute) {
        return attribute < SIZE.length && SIZE[attribute] != -1 && attribute != 12 && attribute != 32
                && attribute != 36 && attribute != 37;
    }

    /** Writes GETATTR4args into {@code args} and a matching GETATTR4resok into {@code ok}. */
    static void getattr(Random r, XdrWriter args, XdrWriter ok) {
        int words = r.nextInt(10) == 0 ? r.nextInt(Nfs4.DECODE_MAX_BITMAP_WORDS + 1) : r.nextInt(4);
        int[] requested = new int[words];
        boolean onlyBounded = r.nextBoolean();
        for (int w = 0; w < words; w++) {
            for (int b = 0; b < 32; b++) {
                int attribute = 32 * w + b;
                boolean pick = r.nextInt(4) == 0;
                if (pick && (!onlyBounded || bounded(attribute))) {
                    requested[w] |= 1 << b;
                }
            }
        }
        args.word(words);
        for (int v : requested) {
            args.word(v);
        }
        // the reply: a subset of what was requested and is supported, in attribute order
        int[] returned = new int[words];
        XdrWriter values = new XdrWriter();
        for (int w = 0; w < words; w++) {
            for (int b = 0; b < 32; b++) {
                int attribute = 32 * w + b;
                if ((requested[w] & (1 << b)) != 0 && attribute < SIZE.length && SIZE[attribute] >= 0
                        && r.nextInt(5) != 0) {
                    returned[w] |= 1 << b;
                    value(r, attribute, values);
                }
            }
        }
        ok.word(words);
        for (int v : returned) {
            ok.word(v);
        }
        ok.opaque(values.bytes());
    }

    private static void value(Random r, int attribute, XdrWriter w) {
        switch (attribute) {
            case 0, 75 -> { // bitmap4
                int n = r.nextInt(4);
                w.word(n);
                for (int i = 0; i < n; i++) {
                    w.word(r.nextInt());
                }
            }
            case 12 -> { // nfsace4<>
                int n = r.nextInt(3);
                w.word(n);
                for (int i = 0; i < n; i++) {
                    w.word(r.nextInt(4)).word(r.nextInt()).word(r.nextInt()).opaque(r, r.nextInt(30));
                }
            }
            case 19 -> w.opaque(r, r.nextInt(Nfs4.FHSIZE + 1)); // nfs_fh4
            case 32, 36, 37 -> w.opaque(r, r.nextInt(40)); // utf8 strings
            default -> w.fixed(r, SIZE[attribute]);
        }
    }
}
