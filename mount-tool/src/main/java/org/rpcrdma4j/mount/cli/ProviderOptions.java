package org.rpcrdma4j.mount.cli;

import java.util.LinkedHashMap;
import java.util.Map;

import picocli.CommandLine.Option;

/** Which RDMA provider opens the device, and its options ({@code --device-option crc=true}). */
public final class ProviderOptions {
    @Option(names = "--provider", paramLabel = "auto|soft|ffm|disni", defaultValue = "auto",
            description = "RDMA provider: auto (hardware through libibverbs on Java 22+ or through DiSNI if usable, "
                    + "else the software iWARP device), soft, ffm or disni (default: ${DEFAULT-VALUE}).")
    String provider = "auto";

    @Option(names = "--device-option", paramLabel = "KEY=VALUE", mapFallbackValue = "true",
            description = "Provider option, repeatable; for the software device e.g. crc=true, engineThreads=2, "
                    + "maxUlpdu=65504, socketBufferSize=4194304; for ffm address=<IPv4 of the RDMA interface>.")
    Map<String, String> deviceOptions = new LinkedHashMap<>();

    public String provider() {
        return provider;
    }

    public Map<String, String> deviceOptions() {
        return deviceOptions == null ? Map.of() : deviceOptions;
    }
}
