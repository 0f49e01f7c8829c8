package org.rpcrdma4j.xprt.drc;

import java.util.Arrays;
import java.util.BitSet;
import java.util.Objects;

/**
 * Which procedures a {@link DuplicateRequestCache} caches: per program and version, a set of procedure numbers. Only
 * non-idempotent procedures belong here; an idempotent one can simply be executed again, and caching it would only
 * cost memory (a READ's reply is large).
 * <p>
 * Immutable and thread-safe; {@link #contains} allocates nothing.
 * <pre>{@code
 * CachedProcedures policy = CachedProcedures.nfsV3()
 *         .with(CachedProcedures.of(MY_PROGRAM, 1, MY_APPEND, MY_DELETE));
 * }</pre>
 */
public final class CachedProcedures {
    /** The NFS program number (RFC 1813). */
    public static final int NFS_PROGRAM = 100003;

    /**
     * The non-idempotent procedures of NFS version 3 (RFC 1813 section 3.3): SETATTR (2), WRITE (7), CREATE (8),
     * MKDIR (9), SYMLINK (10), MKNOD (11), REMOVE (12), RMDIR (13), RENAME (14), LINK (15). WRITE is cached as Linux
     * knfsd does (a replayed WRITE can undo a later one); COMMIT is idempotent.
     */
    static final int[] NFS3_NON_IDEMPOTENT = {2, 7, 8, 9, 10, 11, 12, 13, 14, 15};

    private static final CachedProcedures NONE = new CachedProcedures(new int[0], new int[0], new BitSet[0]);
    private static final CachedProcedures NFS3 = of(NFS_PROGRAM, 3, NFS3_NON_IDEMPOTENT);

    private final int[] programs;
    private final int[] versions;
    private final BitSet[] procedures;

    private CachedProcedures(int[] programs, int[] versions, BitSet[] procedures) {
        this.programs = programs;
        this.versions = versions;
        this.procedures = procedures;
    }

    /** Caches nothing. */
    public static CachedProcedures none() {
        return NONE;
    }

    /** NFS version 3's non-idempotent procedures (see {@link #nfsV3Procedures()}). */
    public static CachedProcedures nfsV3() {
        return NFS3;
    }

    /** The procedure numbers {@link #nfsV3()} caches, in ascending order (a copy). */
    public static int[] nfsV3Procedures() {
        return NFS3_NON_IDEMPOTENT.clone();
    }

    /**
     * Caches {@code procedures} of {@code program} version {@code version}.
     *
     * @throws IllegalArgumentException for a negative procedure number or none at all
     */
    public static CachedProcedures of(int program, int version, int... procedures) {
        if (procedures.length == 0) {
            throw new IllegalArgumentException("no procedures for program " + program + " version " + version);
        }
        BitSet set = new BitSet();
        for (int p : procedures) {
            if (p < 0) {
                throw new IllegalArgumentException("procedure number " + p + " of program " + program);
            }
            set.set(p);
        }
        return new CachedProcedures(new int[] {program}, new int[] {version}, new BitSet[] {set});
    }

    /** This set and {@code other}'s (a new object; for the same program and version the procedures are merged). */
    public CachedProcedures with(CachedProcedures other) {
        Objects.requireNonNull(other, "other");
        int[] p = Arrays.copyOf(programs, programs.length + other.programs.length);
        int[] v = Arrays.copyOf(versions, versions.length + other.versions.length);
        BitSet[] s = new BitSet[procedures.length + other.procedures.length];
        int n = 0;
        for (int i = 0; i < programs.length; i++) {
            s[n++] = (BitSet) procedures[i].clone();
        }
        next:
        for (int j = 0; j < other.programs.length; j++) {
            for (int i = 0; i < n; i++) {
                if (p[i] == other.programs[j] && v[i] == other.versions[j]) {
                    s[i].or(other.procedures[j]);
                    continue next;
                }
            }
            p[n] = other.programs[j];
            v[n] = other.versions[j];
            s[n++] = (BitSet) other.procedures[j].clone();
        }
        return new CachedProcedures(Arrays.copyOf(p, n), Arrays.copyOf(v, n), Arrays.copyOf(s, n));
    }

    /** Whether calls to this procedure are cached. Allocation-free. */
    public boolean contains(int program, int version, int procedure) {
        if (procedure < 0) {
            return false;
        }
        for (int i = 0; i < programs.length; i++) {
            if (programs[i] == program && versions[i] == version) {
                return procedures[i].get(procedure);
            }
        }
        return false;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("CachedProcedures[");
        for (int i = 0; i < programs.length; i++) {
            if (i > 0) {
                sb.append(", ");
            }
            sb.append(programs[i]).append('v').append(versions[i]).append(' ').append(procedures[i]);
        }
        return sb.append(']').toString();
    }
}
