package org.rpcrdma4j.mount.client;

import java.util.Map;

import org.rpcrdma4j.mount.CliException;
import org.rpcrdma4j.mount.ExitCode;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaProvider;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * Opens the RDMA device a command runs on. A provider that cannot be used here, or a wrong device option, is a
 * {@link CliException} with {@link ExitCode#PROVIDER} and the provider's own one-line reason, ending with the way
 * out ({@code --provider soft}).
 */
public final class Devices {
    static final String USE_SOFT = "use --provider soft";

    private Devices() {
    }

    /** Opens a device of provider {@code name}; the caller owns (and closes) it. */
    public static RdmaDevice open(String name, Map<String, String> options) {
        RdmaProvider provider;
        try {
            provider = RdmaProviders.select(name);
        } catch (VerbsException e) {
            throw new CliException(ExitCode.PROVIDER, withHint(e.getMessage()), e);
        }
        try {
            return provider.open(options);
        } catch (VerbsException | IllegalArgumentException e) {
            throw new CliException(ExitCode.PROVIDER, "cannot open a device of the RDMA provider '" + provider.name()
                    + "': " + withHint(e.getMessage()), e);
        }
    }

    private static String withHint(String reason) {
        String r = reason == null ? "unknown reason" : reason;
        return r.contains(USE_SOFT) ? r : r + " -- " + USE_SOFT;
    }
}
