package org.rpcrdma4j.mount.bench;

import java.util.Locale;

/** What a benchmark run does: sequential or random offsets, READ or WRITE. */
public enum Workload {
    SEQ_WRITE("seqwrite", false, true),
    SEQ_READ("seqread", false, false),
    RAND_WRITE("randwrite", true, true),
    RAND_READ("randread", true, false);

    private final String label;
    private final boolean random;
    private final boolean write;

    Workload(String label, boolean random, boolean write) {
        this.label = label;
        this.random = random;
        this.write = write;
    }

    public String label() {
        return label;
    }

    public boolean random() {
        return random;
    }

    public boolean write() {
        return write;
    }

    /** By label ({@code seqread}, ...), case-insensitive. */
    public static Workload of(String label) {
        for (Workload w : values()) {
            if (w.label.equals(label.toLowerCase(Locale.ROOT))) {
                return w;
            }
        }
        throw new IllegalArgumentException("unknown workload '" + label + "' (seqwrite, seqread, randwrite, randread)");
    }
}
