package org.rpcrdma4j.mount.cli;

import java.util.LinkedHashMap;
import java.util.Map;

import picocli.CommandLine.Option;

/** Which RDMA provider opens the device, and its options ({@code --device-option crc=true}). */
public final class ProviderOptions {
    @Option(names = "--provider", paramLabel = "auto|soft|disni", defaultValue = "auto",
            description = "RDMA provider: auto (hardware through DiSNI if usable, else the software iWARP device), "
                    + "soft or disni (default: ${DEFAULT-VALUE}).")
    String provider = "auto";

    @Option(names = "--device-option", paramLabel = "KEY=VALUE", mapFallbackValue = "true",
            description = "Provider option, repeatable; for the software device e.g. crc=true, engineThreads=2, "
                    + "maxUlpdu=65504, socketBufferSize=4194304.")
    Map<String, String> deviceOptions = new LinkedHashMap<>();

    public String provider() {
        return provider;
    }

    public Map<String, String> deviceOptions() {
        return deviceOptions == null ? Map.of() : deviceOptions;
    }
}
