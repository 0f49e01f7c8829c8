package org.rpcrdma4j.mount.cli;

import java.time.Duration;
import java.util.Locale;

import org.rpcrdma4j.codec.RpcRdmaPrivateData;
import org.rpcrdma4j.mount.CliException;
import org.rpcrdma4j.mount.ExitCode;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.client.NfsUrl;
import org.rpcrdma4j.registration.RegistrationMode;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.xprt.client.RdmaClientConfig;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * How a client command mounts: the transport (overriding the URL's scheme to compare both on one server), the RDMA
 * provider and transport settings, timeouts and transfer sizes. Immutable once parsed; one per command.
 */
public final class ClientOptions {
    @Option(names = "--transport", paramLabel = "rdma|tcp",
            description = "Use this transport instead of the URL's scheme, on the same server: tcp uses the URL's "
                    + "mount port for NFS too (an embedded server serves both there), rdma uses --rdma-port.")
    String transport;

    @Option(names = "--rdma-port", paramLabel = "PORT",
            description = "NFS/RDMA port when --transport rdma switches a tcp:// URL (default 20049).")
    Integer rdmaPort;

    @Option(names = "--mount-port", paramLabel = "PORT",
            description = "TCP port of MOUNT (default: the URL's mountport, else 2049 for rdma://, the NFS port for "
                    + "tcp://).")
    Integer mountPort;

    @Mixin
    ProviderOptions provider = new ProviderOptions();

    @Option(names = "--registration", paramLabel = "auto|frwr|fmr|regmr", defaultValue = "auto",
            converter = Converters.Registration.class,
            description = "Chunk registration: auto (the best the device has), frwr, fmr or regmr (default: "
                    + "${DEFAULT-VALUE}).")
    RegistrationMode registration = RegistrationMode.AUTO;

    @Option(names = "--credits", paramLabel = "N", defaultValue = "128",
            description = "RPC-over-RDMA credits asked for, 1..4096 (default: ${DEFAULT-VALUE}).")
    int credits = 128;

    @Option(names = "--inline-send", paramLabel = "SIZE", defaultValue = "8192", converter = Converters.IntSize.class,
            description = "Inline send threshold offered, 1k..256k (default: ${DEFAULT-VALUE}).")
    int inlineSend = 8192;

    @Option(names = "--inline-recv", paramLabel = "SIZE", defaultValue = "8192", converter = Converters.IntSize.class,
            description = "Inline receive threshold offered, 1k..256k (default: ${DEFAULT-VALUE}).")
    int inlineRecv = 8192;

    @Option(names = "--connect-timeout", paramLabel = "DURATION", defaultValue = "10s",
            converter = Converters.DurationConverter.class,
            description = "Bound on connecting (default: ${DEFAULT-VALUE}).")
    Duration connectTimeout = Duration.ofSeconds(10);

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "60s",
            converter = Converters.DurationConverter.class,
            description = "How long one RPC waits for its reply (default: ${DEFAULT-VALUE}).")
    Duration timeout = Duration.ofSeconds(60);

    @Option(names = "--io-size", paramLabel = "SIZE", defaultValue = "1M", converter = Converters.IntSize.class,
            description = "Bytes per READ or WRITE of a file transfer, 4k..64M; the server may lower it "
                    + "(default: ${DEFAULT-VALUE}).")
    int ioSize = 1 << 20;

    @Option(names = "--window", paramLabel = "N", defaultValue = "16",
            description = "READs or WRITEs in flight per file transfer (default: ${DEFAULT-VALUE}).")
    int window = 16;

    /** Every default, with the RDMA provider {@code name} and its options (for commands that mount on their own). */
    public static ClientOptions withProvider(String name, java.util.Map<String, String> options) {
        ClientOptions o = new ClientOptions();
        o.provider.provider = name;
        o.provider.deviceOptions = new java.util.LinkedHashMap<>(options);
        return o;
    }

    public ProviderOptions provider() {
        return provider;
    }

    /** The registration mode asked for. */
    public RegistrationMode registration() {
        return registration;
    }

    public Duration connectTimeout() {
        return connectTimeout;
    }

    public Duration timeout() {
        return timeout;
    }

    public int ioSize() {
        return ioSize;
    }

    /** Refuses out-of-range values with a usage error. */
    public void validate() {
        if (transport != null && !transport.equalsIgnoreCase("rdma") && !transport.equalsIgnoreCase("tcp")) {
            throw usage("--transport must be rdma or tcp: '" + transport + "'");
        }
        if (credits < 1 || credits > 4096) {
            throw usage("--credits must be within 1..4096: " + credits);
        }
        checkInline("--inline-send", inlineSend);
        checkInline("--inline-recv", inlineRecv);
        if (connectTimeout.isZero() || timeout.isZero()) {
            throw usage("timeouts must be positive");
        }
        if (ioSize < 4096 || ioSize > (64 << 20)) {
            throw usage("--io-size must be within 4k..64M: " + ioSize);
        }
        if (window < 1 || window > 1024) {
            throw usage("--window must be within 1..1024: " + window);
        }
        checkPort("--rdma-port", rdmaPort);
        checkPort("--mount-port", mountPort);
    }

    private static void checkInline(String option, int size) {
        if (size < RpcRdmaPrivateData.MIN_INLINE || size > RpcRdmaPrivateData.MAX_INLINE) {
            throw usage(option + " must be within " + RpcRdmaPrivateData.MIN_INLINE + ".."
                    + RpcRdmaPrivateData.MAX_INLINE + ": " + size);
        }
    }

    private static void checkPort(String option, Integer port) {
        if (port != null && (port < 1 || port > 65535)) {
            throw usage(option + " must be within 1..65535: " + port);
        }
    }

    private static CliException usage(String message) {
        return new CliException(ExitCode.USAGE, message);
    }

    /** The URL actually mounted: {@code url} with --transport, --rdma-port and --mount-port applied. */
    public NfsUrl effectiveUrl(NfsUrl url) {
        boolean fromTcp = url.scheme().equals("tcp");
        String scheme = transport == null ? url.scheme() : transport.toLowerCase(Locale.ROOT);
        if (scheme.equals("tcp")) {
            // over TCP, NFS and MOUNT go to the server's TCP port: an rdma:// URL's mountport
            int port = fromTcp ? url.port() : mountPort != null ? mountPort : url.mountPort();
            boolean portGiven = fromTcp ? url.portGiven() : mountPort != null || url.mountPortGiven();
            int mount = mountPort != null ? mountPort : fromTcp ? url.mountPort() : port;
            boolean mountGiven = mountPort != null || (fromTcp ? url.mountPortGiven() : portGiven);
            return new NfsUrl("tcp", url.host(), port, url.export(), mount, url.version(), portGiven, mountGiven);
        }
        int port = rdmaPort != null ? rdmaPort : fromTcp ? NfsUrl.NFS_RDMA_PORT : url.port();
        boolean portGiven = rdmaPort != null || !fromTcp && url.portGiven();
        int mount = mountPort != null ? mountPort : fromTcp ? url.port() : url.mountPort();
        boolean mountGiven = mountPort != null || (fromTcp ? url.portGiven() : url.mountPortGiven());
        return new NfsUrl("rdma", url.host(), port, url.export(), mount, url.version(), portGiven, mountGiven);
    }

    /** The NFS client settings. */
    public NfsClientConfig nfsConfig() {
        return NfsClientConfig.defaults()
                .withConnectTimeout(connectTimeout)
                .withCallTimeout(timeout)
                .withChunkSize(ioSize)
                .withWindow(window);
    }

    /**
     * The RDMA transport settings over a device the caller owns; {@code bufferBytes} of registered memory for bulk
     * buffers at least (the transport's default is 64 MiB).
     */
    public RdmaClientConfig rdmaConfig(RdmaDevice device, long bufferBytes) {
        return RdmaClientConfig.builder()
                .device(device)
                .registrationMode(registration)
                .maxCredits(credits)
                .inlineSizes(inlineSend, inlineRecv)
                .timeouts(connectTimeout, connectTimeout)
                .defaultCallTimeout(timeout)
                .maxPayloadSize(Math.max(ioSize, 1 << 20))
                .bufferPool(Math.max(64L << 20, bufferBytes), Duration.ofSeconds(30))
                .jmx(false)
                .build();
    }
}
