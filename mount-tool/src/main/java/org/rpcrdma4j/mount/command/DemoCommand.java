package org.rpcrdma4j.mount.command;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

import org.rpcrdma4j.mount.Io;
import org.rpcrdma4j.mount.cli.Converters;
import org.rpcrdma4j.mount.demo.Demo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code demo}: the self-contained tour of the stack in one process; see {@link Demo}. */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Start an embedded server on a temporary directory over the software RDMA device and TCP, "
                + "mount it over RDMA, write and verify a file set, list it, compare RDMA and TCP throughput, print "
                + "the counters, and clean up. Needs nothing else running."})
final class DemoCommand implements Callable<Integer> {
    private final Io io;

    @Option(names = "--provider", paramLabel = "soft|ffm|disni|auto", defaultValue = "soft",
            description = "RDMA provider for server and client (default: ${DEFAULT-VALUE}).")
    String provider;

    @Option(names = "--device-option", paramLabel = "KEY=VALUE", mapFallbackValue = "true",
            description = "Device option, repeatable (e.g. crc=true).")
    Map<String, String> deviceOptions = new LinkedHashMap<>();

    @Option(names = "--bench-time", paramLabel = "DURATION", defaultValue = "2s",
            converter = Converters.DurationConverter.class,
            description = "Duration of each throughput run; 0 skips the comparison (default: ${DEFAULT-VALUE}).")
    Duration benchTime;

    DemoCommand(Io io) {
        this.io = io;
    }

    @Override
    public Integer call() throws Exception {
        new Demo(io, provider, deviceOptions == null ? Map.of() : deviceOptions, benchTime).run();
        return 0;
    }
}
