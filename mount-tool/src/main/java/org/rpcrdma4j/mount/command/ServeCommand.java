package org.rpcrdma4j.mount.command;

import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import org.rpcrdma4j.mount.CliException;
import org.rpcrdma4j.mount.ExitCode;
import org.rpcrdma4j.mount.Io;
import org.rpcrdma4j.mount.cli.Converters;
import org.rpcrdma4j.mount.cli.ProviderOptions;
import org.rpcrdma4j.mount.server.EmbeddedServer;
import org.rpcrdma4j.registration.RegistrationMode;
import org.rpcrdma4j.xprt.drc.DrcCounter;
import org.rpcrdma4j.xprt.server.ServerCounter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code serve DIR}: exports a directory over RDMA and TCP until interrupted (Ctrl-C), printing the URLs and the Linux
 * mount command; on the way out it prints what was served. NFS calls go through a duplicate request cache unless
 * {@code --no-reply-cache}.
 */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = {"Export a directory over NFSv3 on RDMA and TCP until interrupted (Ctrl-C).",
                "Prints the URLs to mount and the Linux mount command line."})
final class ServeCommand implements Callable<Integer> {
    private final Io io;

    @Parameters(index = "0", paramLabel = "DIR", description = "The directory to export.")
    Path dir;

    @Option(names = "--export", paramLabel = "PATH",
            description = "The export's name (default: '/' and the directory's name).")
    String export;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "20049",
            description = "NFS/RDMA port; 0 picks a free one (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--tcp-port", paramLabel = "PORT", defaultValue = "2049",
            description = "NFS and MOUNT TCP port; 0 picks a free one (default: ${DEFAULT-VALUE}).")
    int tcpPort;

    @Option(names = "--bind", paramLabel = "ADDRESS", defaultValue = "0.0.0.0",
            description = "Address to listen on (default: ${DEFAULT-VALUE}, every address).")
    String bind;

    @Option(names = "--host", paramLabel = "NAME",
            description = "Host name to print in the URLs (default: the bind address, or this machine's name).")
    String host;

    @Option(names = "--read-only", description = "Refuse every change.")
    boolean readOnly;

    @Mixin
    ProviderOptions provider = new ProviderOptions();

    @Option(names = "--credits", paramLabel = "N", defaultValue = "128",
            description = "Credits granted to each RDMA client (default: ${DEFAULT-VALUE}).")
    int credits;

    @Option(names = "--inline-send", paramLabel = "SIZE", defaultValue = "8192", converter = Converters.IntSize.class,
            description = "The server's inline send threshold (default: ${DEFAULT-VALUE}).")
    int inlineSend;

    @Option(names = "--inline-recv", paramLabel = "SIZE", defaultValue = "8192", converter = Converters.IntSize.class,
            description = "The server's inline receive threshold (default: ${DEFAULT-VALUE}).")
    int inlineRecv;

    @Option(names = "--registration", paramLabel = "auto|frwr|fmr|regmr", defaultValue = "auto",
            converter = Converters.Registration.class,
            description = "Registration of the server's RDMA READ sinks (default: ${DEFAULT-VALUE}).")
    RegistrationMode registration;

    @Option(names = "--no-reply-cache", negatable = false,
            description = "Run every call, retransmissions too: no duplicate request cache in front of NFS (by default "
                    + "SETATTR, WRITE, CREATE, MKDIR, SYMLINK, MKNOD, REMOVE, RMDIR, RENAME and LINK that a client "
                    + "sends again after a reconnect get their first reply, as from Linux knfsd).")
    boolean noReplyCache;

    @Option(names = "--grace-period", paramLabel = "DURATION", defaultValue = "10s",
            converter = Converters.DurationConverter.class,
            description = "NFSv4's grace period after the start (default: ${DEFAULT-VALUE}): NFSv4 clients of an "
                    + "earlier run reclaim their opens, and new OPENs wait (NFS4ERR_GRACE) until it ends. 0 for none, "
                    + "when no NFSv4 client can hold opens from before.")
    Duration gracePeriod;

    @Option(names = "--same-thread", negatable = false,
            description = "Run NFS calls over RDMA on the connections' own threads instead of a pool of dispatch "
                    + "threads: small calls go faster, while each call's file I/O holds up the calls behind it on "
                    + "its connection. For a local disk or tmpfs, not for slow storage.")
    boolean sameThread;

    ServeCommand(Io io) {
        this.io = io;
    }

    @Override
    public Integer call() throws Exception {
        if (port < 0 || port > 65535 || tcpPort < 0 || tcpPort > 65535) {
            throw new CliException(ExitCode.USAGE, "ports must be within 0..65535");
        }
        Path absolute = dir.toAbsolutePath().normalize();
        String exportPath = export != null ? export
                : "/" + (absolute.getFileName() == null ? "export" : absolute.getFileName().toString());
        if (!exportPath.startsWith("/")) {
            exportPath = "/" + exportPath;
        }
        EmbeddedServer.Settings settings = new EmbeddedServer.Settings(absolute, exportPath, bind, port, tcpPort,
                provider.provider(), provider.deviceOptions(), readOnly, credits, inlineSend, inlineRecv,
                registration, true, !noReplyCache, gracePeriod, sameThread);
        String shown = host != null ? host : displayHost(bind);
        try (EmbeddedServer server = EmbeddedServer.start(settings)) {
            io.out().println("Exporting " + absolute + " as " + exportPath + (readOnly ? " (read-only)" : ""));
            io.out().println("  NFS over RDMA: " + server.rdmaUrl(shown) + "   (device " + server.deviceName() + ")");
            io.out().println("  NFS over TCP:  " + server.tcpUrl(shown));
            io.out().println("  Linux client:  " + server.linuxMountCommand(shown));
            io.out().println("  ... or NFSv3:  " + server.linuxNfs3MountCommand(shown));
            io.out().println("Serving; press Ctrl-C to stop.");
            io.out().flush();
            try {
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                Map<ServerCounter, Long> c = server.server().rdma().counters();
                io.out().println("Stopping: " + c.get(ServerCounter.CONNECTIONS_ACCEPTED) + " RDMA connections, "
                        + c.get(ServerCounter.CALLS) + " calls, " + c.get(ServerCounter.READ_CHUNK_BYTES)
                        + " bytes pulled by RDMA READ, " + c.get(ServerCounter.WRITE_CHUNK_BYTES)
                        + " bytes pushed by RDMA WRITE (" + c.get(ServerCounter.ZERO_COPY_BYTES) + " without a copy)");
                server.replyCache().ifPresent(drc -> io.out().println("Reply cache: "
                        + drc.counter(DrcCounter.MISSES) + " changes recorded, " + drc.counter(DrcCounter.HITS)
                        + " retransmissions answered from it"));
                io.out().flush();
            }
        }
        io.out().println("Stopped.");
        io.out().flush();
        return 0;
    }

    /** The bind address, or for the wildcard this machine's name (loopback when it has none). */
    static String displayHost(String bind) {
        if (!bind.equals("0.0.0.0") && !bind.equals("::") && !bind.equals("[::]")) {
            return bind;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            return "127.0.0.1";
        }
    }
}
