package org.rpcrdma4j.mount.client;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;
import java.util.regex.Pattern;

import org.rpcrdma4j.mount.CliException;
import org.rpcrdma4j.mount.ExitCode;
import org.rpcrdma4j.mount.Failures;
import org.rpcrdma4j.mount.cli.ClientOptions;
import org.rpcrdma4j.nfs.client.DataTransport;
import org.rpcrdma4j.nfs.client.DataTransportFactory;
import org.rpcrdma4j.nfs.client.NfsMount;
import org.rpcrdma4j.nfs.client.NfsMounts;
import org.rpcrdma4j.nfs.client.NfsUrl;
import org.rpcrdma4j.nfs.client.RpcConnectionException;
import org.rpcrdma4j.nfs.client.TcpDataTransport;
import org.rpcrdma4j.nfs.client.rdma.RdmaDataTransport;
import org.rpcrdma4j.nfs.client.rdma.RdmaDataTransportFactory;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.xprt.client.RdmaClientStats;

/**
 * One mount as a command uses it: the {@link NfsMount} (NFSv3 or NFSv4.x, as {@link NfsMounts} chose), the RDMA device it runs on (opened here and owned, for
 * {@code rdma://}), and the statistics of both. Closing unmounts, closes the connection, then the device.
 */
public final class Session implements AutoCloseable {
    private final NfsUrl url;
    private final NfsMount nfs;
    private final RdmaDevice device;
    private final OpCounters ops;
    private final CountingTransport.Factory factory;
    private final long openedNanos = System.nanoTime();

    private Session(NfsUrl url, NfsMount nfs, RdmaDevice device, OpCounters ops, CountingTransport.Factory factory) {
        this.url = url;
        this.nfs = nfs;
        this.device = device;
        this.ops = ops;
        this.factory = factory;
    }

    /** Mounts {@code url} as {@code options} say (transport override, provider, timeouts). */
    public static Session open(NfsUrl url, ClientOptions options) throws IOException {
        return open(url, options, 0);
    }

    /**
     * Mounts; {@code bufferBytes} of registered memory at least for bulk buffers that callers take from the RDMA
     * transport's pool (0: the default).
     */
    public static Session open(NfsUrl url, ClientOptions options, long bufferBytes) throws IOException {
        options.validate();
        NfsUrl target = options.effectiveUrl(url);
        try {
            InetAddress.getByName(target.host());
        } catch (UnknownHostException e) {
            throw new CliException(ExitCode.TRANSPORT, "unknown host: " + target.host(), e);
        }
        OpCounters ops = new OpCounters();
        RdmaDevice device = null;
        DataTransportFactory base;
        if (target.scheme().equals("rdma")) {
            device = Devices.open(options.provider().provider(), options.provider().deviceOptions());
            base = new RdmaDataTransportFactory(options.rdmaConfig(device, bufferBytes));
        } else {
            base = TcpDataTransport.factory();
        }
        CountingTransport.Factory factory = new CountingTransport.Factory(base, ops);
        try {
            // the URL's version, or as mount.nfs chooses: 4.2, 4.1, then 3
            NfsMount nfs = NfsMounts.mount(target, options.nfsConfig().withTransportFactory(factory));
            return new Session(target, nfs, device, ops, factory);
        } catch (IOException | RuntimeException e) {
            if (device != null) {
                device.close();
            }
            if (e instanceof RpcConnectionException && target.scheme().equals("rdma")
                    && !Failures.isInterruption(e) && isTcpFailureTo(e.getMessage(), target.mountPort())) {
                throw new CliException(ExitCode.TRANSPORT, e.getMessage() + " (MOUNT goes over TCP to port "
                        + target.mountPort() + "; give the server's TCP port with ?mountport=N or --mount-port)", e);
            }
            throw e;
        }
    }

    /**
     * Whether a connection failure's message names a TCP connection to {@code port}: with an {@code rdma://} URL that
     * is the MOUNT connection (the RDMA transport names its peer as {@code rdma://host:port}).
     */
    static boolean isTcpFailureTo(String message, int port) {
        return message != null && !message.contains("rdma://")
                && Pattern.compile(":" + port + "(?![0-9])").matcher(message).find();
    }

    /** The URL mounted (after --transport and port overrides). */
    public NfsUrl url() {
        return url;
    }

    public NfsMount nfs() {
        return nfs;
    }

    /** The RDMA device, for {@code rdma://} mounts. */
    public Optional<RdmaDevice> device() {
        return Optional.ofNullable(device);
    }

    /** The RDMA transport, for {@code rdma://} mounts. */
    public Optional<RdmaDataTransport> rdma() {
        CountingTransport t = factory.last();
        DataTransport d = t == null ? null : t.delegate();
        return d instanceof RdmaDataTransport r ? Optional.of(r) : Optional.empty();
    }

    /** A snapshot of the transport's and the procedures' counters. */
    public StatsSnapshot stats() {
        RdmaClientStats rdma = rdma().map(r -> r.transport().stats()).orElse(null);
        return new StatsSnapshot(url, (System.nanoTime() - openedNanos) / 1_000_000_000L, rdma, ops.snapshot(),
                nfs.version());
    }

    @Override
    public void close() {
        try {
            nfs.close();
        } finally {
            if (device != null) {
                device.close();
            }
        }
    }
}
