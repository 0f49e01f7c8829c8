package org.rpcrdma4j.verbs.ffm;

import java.util.Map;

import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaProvider;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * The verbs SPI over rdma-core's {@code libibverbs.so.1} and {@code librdmacm.so.1}, called through Java's Foreign
 * Function and Memory API (provider name {@code ffm}): RDMA hardware, rxe and siw with no native code of ours. Needs
 * Java 22 or later and {@code --enable-native-access=ALL-UNNAMED} (or this module's name). Options: {@link FfmOptions}.
 */
public final class FfmProvider implements RdmaProvider {
    public static final String NAME = "ffm";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Availability availability() {
        return FfmDevices.availability();
    }

    @Override
    public RdmaDevice open(Map<String, String> options) throws VerbsException {
        return FfmDevice.open(FfmRuntime.get(), FfmOptions.parse(options));
    }
}
