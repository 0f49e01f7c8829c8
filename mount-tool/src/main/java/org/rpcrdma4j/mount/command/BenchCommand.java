package org.rpcrdma4j.mount.command;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.rpcrdma4j.mount.CliException;
import org.rpcrdma4j.mount.ExitCode;
import org.rpcrdma4j.mount.Io;
import org.rpcrdma4j.mount.bench.Bench;
import org.rpcrdma4j.mount.bench.BenchReport;
import org.rpcrdma4j.mount.bench.BenchResult;
import org.rpcrdma4j.mount.bench.Progress;
import org.rpcrdma4j.mount.bench.Workload;
import org.rpcrdma4j.mount.cli.Converters;
import org.rpcrdma4j.mount.cli.Sizes;
import org.rpcrdma4j.mount.client.RemotePaths;
import org.rpcrdma4j.mount.client.Session;
import org.rpcrdma4j.mount.client.Transfers;
import org.rpcrdma4j.mount.stats.Json;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bench URL}: sequential and random READ/WRITE throughput, IOPS and latency percentiles with N calls in
 * flight, on a file created for the run. {@code --transport tcp|rdma} runs it over the other transport of the same
 * server, for comparison.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Throughput, IOPS and latency percentiles of READ and WRITE with N calls in flight.",
                "Creates a file for the run (it must not exist) and removes it afterwards unless --keep."})
final class BenchCommand extends ClientCommand {
    @Option(names = "--size", paramLabel = "SIZE", defaultValue = "1M", converter = Converters.IntSize.class,
            description = "Bytes per READ/WRITE (default: ${DEFAULT-VALUE}).")
    int size;

    @Option(names = {"--depth", "--outstanding"}, paramLabel = "N", defaultValue = "16",
            description = "Calls in flight (default: ${DEFAULT-VALUE}).")
    int depth;

    @Option(names = {"--time", "--duration"}, paramLabel = "DURATION", defaultValue = "5s",
            converter = Converters.DurationConverter.class,
            description = "Duration of each workload (default: ${DEFAULT-VALUE}).")
    Duration time;

    @Option(names = "--file-size", paramLabel = "SIZE", defaultValue = "64M", converter = Converters.LongSize.class,
            description = "Size of the benchmark file (default: ${DEFAULT-VALUE}).")
    long fileSize;

    @Option(names = "--workload", paramLabel = "LIST", split = ",",
            defaultValue = "seqwrite,seqread,randwrite,randread",
            description = "Workloads, comma-separated: seqwrite, seqread, randwrite, randread (default: "
                    + "${DEFAULT-VALUE}).")
    List<String> workloads;

    @Option(names = "--file", paramLabel = "PATH",
            description = "The benchmark file inside the export (default: a new hidden name in the root).")
    String file;

    @Option(names = "--keep", description = "Keep the benchmark file.")
    boolean keep;

    @Option(names = "--no-progress", description = "No progress bar (it is only drawn on a terminal anyway).")
    boolean noProgress;

    BenchCommand(Io io) {
        super(io);
    }

    @Override
    long bufferBytes() {
        return Bench.bufferBytes(size, depth);
    }

    private List<Workload> parseWorkloads() {
        List<Workload> list = new ArrayList<>();
        for (String w : workloads) {
            try {
                list.add(Workload.of(w.trim()));
            } catch (IllegalArgumentException e) {
                throw new CliException(ExitCode.USAGE, e.getMessage());
            }
        }
        return list;
    }

    @Override
    public Integer call() throws Exception {
        if (size < 4096 || size > (64 << 20)) {
            throw new CliException(ExitCode.USAGE, "--size must be within 4k..64M: " + size);
        }
        if (depth < 1 || depth > 1024) {
            throw new CliException(ExitCode.USAGE, "--depth must be within 1..1024: " + depth);
        }
        if (time.isZero() || fileSize < size) {
            throw new CliException(ExitCode.USAGE, "--time must be positive and --file-size at least --size");
        }
        parseWorkloads();
        return super.call();
    }

    @Override
    int run(Session session) throws Exception {
        List<Workload> list = parseWorkloads();
        String path = RemotePaths.resolve("/", file != null ? file : "/" + Transfers.temporaryName("rpcrdma-bench"));
        Bench.Spec spec = new Bench.Spec(size, depth, time, fileSize);
        Progress progress = new Progress(io.err(), io.terminal() && !noProgress);
        List<BenchResult> results = new ArrayList<>();
        String title = String.format(Locale.ROOT, "bench %s://%s:%d%s: file %s (%s), I/O %s, depth %d, %.1f s per "
                        + "workload", session.url().scheme(), session.url().host(), session.url().port(),
                session.url().export(), path, Sizes.format(spec.fileSize()), Sizes.format(size), depth,
                time.toMillis() / 1e3);
        if (!json) {
            io.out().println(title);
            io.out().flush();
        }
        try (Bench bench = Bench.open(session, path, spec, progress, keep)) {
            if (list.stream().anyMatch(w -> !w.write())) {
                bench.prefill();
            }
            if (!json) {
                io.out().print(BenchReport.header());
                io.out().flush();
            }
            for (Workload w : list) {
                BenchResult r = bench.run(w);
                results.add(r);
                if (!json) {
                    io.out().print(BenchReport.line(r));
                    io.out().flush();
                }
            }
        }
        if (json) {
            Map<String, Object> root = new LinkedHashMap<>();
            root.put("url", session.url().scheme() + "://" + session.url().host() + ":" + session.url().port()
                    + session.url().export());
            root.put("transport", session.url().scheme());
            root.put("file_size", spec.fileSize());
            root.put("io_size", size);
            root.put("depth", depth);
            root.put("seconds_per_workload", time.toMillis() / 1e3);
            root.put("results", results.stream().map(BenchResult::toMap).toList());
            io.out().println(Json.write(root));
            io.out().flush();
        }
        return 0;
    }

    @Override
    void printStats(Session session) {
        json = false; // --json is the benchmark's; the counters follow as text
        super.printStats(session);
    }
}
