package org.rpcrdma4j.verbs.disni;

import java.util.List;
import java.util.Map;

import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaProvider;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * The {@code disni} provider: RDMA hardware (InfiniBand, RoCE, iWARP) and the kernel's software devices (rxe, siw)
 * through DiSNI 2.1 and its native library libdisni, which the user builds and installs (see this module's README).
 * <p>
 * {@link #availability()} says in one line whether it can work here and what is missing: libdisni, the JVM option
 * {@code --add-exports java.base/sun.nio.ch=ALL-UNNAMED}, an RDMA device, the rdma_cm device node. It never throws;
 * libdisni is loaded at most once per JVM. {@link #open} needs the option {@code address} (see
 * {@link DisniDeviceConfig}) and throws a {@link VerbsException} with the same explanation when DiSNI cannot work.
 * <p>
 * What DiSNI offers decides the device's capabilities: none of the optional ones (no FAST_REG, FMR, LOCAL_INV,
 * SEND_WITH_INV, READ_WITH_INV, REMOTE_INV), so chunk registration uses synchronous registration; private data goes
 * with a connect only, so transports fall back to their default inline sizes.
 */
public final class DisniProvider implements RdmaProvider {
    public static final String NAME = "disni";

    private final DisniRuntime runtime;

    /** The provider over the real machine (what {@link java.util.ServiceLoader} makes). */
    public DisniProvider() {
        this(DisniRuntime.SYSTEM);
    }

    DisniProvider(DisniRuntime runtime) {
        this.runtime = runtime;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Availability availability() {
        try {
            return DisniAvailability.evaluate(runtime.findings());
        } catch (RuntimeException | LinkageError e) {
            String linkage = DisniErrors.linkageProblem(e);
            return Availability.no(DisniAvailability.unavailable(List.of(linkage != null ? linkage
                    : "probing DiSNI failed: " + e))); // never throw from here
        }
    }

    @Override
    public RdmaDevice open(Map<String, String> options) throws VerbsException {
        Availability availability = availability();
        if (!availability.available()) {
            throw new VerbsException(availability.reason());
        }
        DisniDeviceConfig config = DisniDeviceConfig.parse(options);
        return DisniDevice.open(config);
    }
}
