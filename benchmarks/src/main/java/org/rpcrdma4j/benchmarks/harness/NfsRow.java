package org.rpcrdma4j.benchmarks.harness;

/** The NFS rows of the table: what each measures and in which unit. */
public enum NfsRow {
    READ_1M("read_1m", "READ 1 MiB sequential", "MiB/s", true, 1 << 20, false, false),
    WRITE_1M("write_1m", "WRITE 1 MiB sequential (UNSTABLE)", "MiB/s", false, 1 << 20, false, false),
    READ_4K("read_4k", "READ 4 KiB random", "IOPS", true, 4096, true, false),
    WRITE_4K("write_4k", "WRITE 4 KiB random (UNSTABLE)", "IOPS", false, 4096, true, false),
    GETATTR_P50("getattr_p50", "GETATTR round trip p50, 1 outstanding", "µs", false, 0, false, true),
    GETATTR_P99("getattr_p99", "GETATTR round trip p99, 1 outstanding", "µs", false, 0, false, true);

    private final String key;
    private final String label;
    private final String unit;
    private final boolean read;
    private final int size;
    private final boolean random;
    private final boolean latency;

    NfsRow(String key, String label, String unit, boolean read, int size, boolean random, boolean latency) {
        this.key = key;
        this.label = label;
        this.unit = unit;
        this.read = read;
        this.size = size;
        this.random = random;
        this.latency = latency;
    }

    public String key() {
        return key;
    }

    public String label() {
        return label;
    }

    public String unit() {
        return unit;
    }

    /** READ (true) or WRITE (false); meaningless for the latency rows. */
    public boolean read() {
        return read;
    }

    /** Bytes per call for the throughput rows. */
    public int size() {
        return size;
    }

    /** Random offsets (aligned to the size) rather than sequential ones. */
    public boolean random() {
        return random;
    }

    /** A latency row (lower is better) rather than a throughput row. */
    public boolean latency() {
        return latency;
    }

    /** The figure's key for one client: {@code nfs.<row>.<client>}. */
    public String figure(Client client) {
        return "nfs." + key + "." + client.key();
    }

    /** The allocation figure's key for one client: {@code alloc.<row>.<client>} (bytes per RPC, whole JVM). */
    public String allocation(Client client) {
        return "alloc." + key + "." + client.key();
    }

    /** The CPU figure's key for one client: {@code cpu.<row>.<client>} (µs of process CPU time per RPC). */
    public String cpu(Client client) {
        return "cpu." + key + "." + client.key();
    }

    /** The columns: one client each. */
    public enum Client {
        RDMA("rdma", "RDMA: NfsClient rdma://"),
        TCP("tcp", "TCP: NfsClient tcp:// (oncrpc4j)"),
        EMC("emc", "TCP: EMC nfs-client"),
        RDMA41("rdma41", "RDMA: Nfs41Client rdma:// (NFSv4.1)"),
        TCP41("tcp41", "TCP: Nfs41Client tcp:// (NFSv4.1, oncrpc4j)");

        private final String key;
        private final String header;

        Client(String key, String header) {
            this.key = key;
            this.header = header;
        }

        public String key() {
            return key;
        }

        public String header() {
            return header;
        }
    }
}
