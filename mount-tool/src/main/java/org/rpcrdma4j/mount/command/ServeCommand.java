package org.rpcrdma4j.mount.command;

import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import org.rpcrdma4j.mount.CliException;
import org.rpcrdma4j.mount.ExitCode;
import org.rpcrdma4j.mount.Io;
import org.rpcrdma4j.mount.cli.Converters;
import org.rpcrdma4j.mount.cli.ProviderOptions;
import org.rpcrdma4j.mount.cli.Sizes;
import org.rpcrdma4j.mount.server.EmbeddedServer;
import org.rpcrdma4j.nfs.server.ExportClients;
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
        description = {"Export a directory, or memory, over NFSv3 and NFSv4.1/4.2 on RDMA and TCP until interrupted "
                + "(Ctrl-C).",
                "Prints the URLs to mount and the Linux mount command line."})
final class ServeCommand implements Callable<Integer> {
    private final Io io;

    @Parameters(index = "0", arity = "0..1", paramLabel = "DIR",
            description = "The directory to export (or --memory instead).")
    Path dir;

    @Option(names = "--export", paramLabel = "PATH",
            description = "The export's name (default: '/' and the directory's name; /memory with --memory).")
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

    @Option(names = "--clients", paramLabel = "SPECS",
            description = {"The hosts the export is open to, as in /etc/exports (default: *(rw,no_root_squash), every "
                    + "host): e.g. '10.0.0.0/8(rw) 192.168.1.7(rw,no_root_squash) *(ro)'. A host is *, an address, a "
                    + "subnet (10.0.0.0/8) or a name; options rw or ro (the default), root_squash (the default), "
                    + "no_root_squash, all_squash, anonuid=N, anongid=N, secure (TCP calls from privileged ports "
                    + "only; RDMA passes) or insecure (the default). The most specific match wins; other hosts may not "
                    + "mount, nor use the export's file handles. May be given more than once."})
    List<String> clients;

    @Option(names = "--memory", paramLabel = "SIZE", converter = Converters.LongSize.class,
            description = "Export an empty in-memory file system of SIZE (e.g. 4G) instead of a directory, held in "
                    + "the RDMA server's registered memory: READs go out from the files' own memory, and no disk "
                    + "stands between the clients and the transport. It keeps holes and shares copied and cloned blocks "
                    + "(NFSv4.2 ALLOCATE, DEALLOCATE, SEEK, COPY, CLONE); its files are gone when the server stops.")
    long memory;

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

    @Option(names = "--no-delegations", negatable = false,
            description = "Grant NFSv4 clients no read delegations. By default an in-memory export grants them to "
                    + "clients whose callback channel answers, as Linux knfsd does: a client that holds one opens and "
                    + "rereads the file without asking, and gives it back when another client changes the file. A "
                    + "directory export grants none, since programs beside the server may change its files.")
    boolean noDelegations;

    @Option(names = "--same-thread", negatable = false,
            description = "Run NFS calls over RDMA on the connections' own threads instead of a pool of dispatch "
                    + "threads: small calls go faster, while each call's file I/O holds up the calls behind it on "
                    + "its connection. For a local disk or tmpfs, not for slow storage.")
    boolean sameThread;

    /** The largest in-memory export: the registered pool's 16 GiB less room for the transport's buffers. */
    private static final long MAX_MEMORY = 15L << 30;

    /** The JVM's bound on direct memory: -XX:MaxDirectMemorySize, or by default the heap's maximum. */
    private static long directMemoryLimit() {
        try {
            com.sun.management.HotSpotDiagnosticMXBean hotspot = java.lang.management.ManagementFactory
                    .getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
            long set = Long.parseLong(hotspot.getVMOption("MaxDirectMemorySize").getValue());
            if (set > 0) {
                return set;
            }
        } catch (RuntimeException e) {
            // not a HotSpot JVM: the default below
        }
        return Runtime.getRuntime().maxMemory();
    }

    ServeCommand(Io io) {
        this.io = io;
    }

    @Override
    public Integer call() throws Exception {
        if (port < 0 || port > 65535 || tcpPort < 0 || tcpPort > 65535) {
            throw new CliException(ExitCode.USAGE, "ports must be within 0..65535");
        }
        if ((dir == null) == (memory == 0)) {
            throw new CliException(ExitCode.USAGE, dir == null ? "name a directory to export, or give --memory SIZE"
                    : "a directory or --memory, not both");
        }
        if (memory < 0) {
            throw new CliException(ExitCode.USAGE, "--memory must be positive");
        }
        if (memory > MAX_MEMORY) {
            throw new CliException(ExitCode.USAGE, "--memory " + Sizes.format(memory) + ": at most " + Sizes.format(MAX_MEMORY)
                    + " (the RDMA server's registered memory holds at most 16 GiB, its own buffers too)");
        }
        long direct = directMemoryLimit();
        if (memory > 0 && memory + (256L << 20) > direct) {
            throw new CliException(ExitCode.USAGE, "--memory " + Sizes.format(memory) + " and the server's 256 MiB of "
                    + "buffers do not fit the JVM's direct memory (" + Sizes.format(direct) + "): run java with "
                    + "-XX:MaxDirectMemorySize=" + ((memory >> 30) + 1) + "g or more");
        }
        Path absolute = dir == null ? null : dir.toAbsolutePath().normalize();
        String exportPath = export != null ? export : absolute == null ? "/memory"
                : "/" + (absolute.getFileName() == null ? "export" : absolute.getFileName().toString());
        if (!exportPath.startsWith("/")) {
            exportPath = "/" + exportPath;
        }
        ExportClients open;
        try {
            open = clients == null ? ExportClients.everyHost() : ExportClients.parse(String.join(" ", clients));
        } catch (IllegalArgumentException e) {
            throw new CliException(ExitCode.USAGE, "--clients: " + e.getMessage());
        }
        EmbeddedServer.Settings settings = new EmbeddedServer.Settings(absolute, exportPath, bind, port, tcpPort,
                provider.provider(), provider.deviceOptions(), readOnly, credits, inlineSend, inlineRecv,
                registration, true, !noReplyCache, gracePeriod, sameThread, memory, open, !noDelegations);
        String shown = host != null ? host : displayHost(bind);
        if (absolute != null) {
            FileNameEncoding.warning(FileNameEncoding.current()).ifPresent(w -> {
                io.err().println(w);
                io.err().flush();
            });
        }
        try (EmbeddedServer server = EmbeddedServer.start(settings)) {
            io.out().println("Exporting " + (absolute != null ? absolute.toString()
                    : "an in-memory file system of " + Sizes.format(memory)) + " as " + exportPath
                    + (readOnly ? " (read-only)" : ""));
            io.out().println("  NFS over RDMA: " + server.rdmaUrl(shown) + "   (device " + server.deviceName() + ")");
            io.out().println("  NFS over TCP:  " + server.tcpUrl(shown));
            io.out().println("  Linux client:  " + server.linuxMountCommand(shown));
            io.out().println("  ... or NFSv3:  " + server.linuxNfs3MountCommand(shown));
            io.out().println("  Open to:       " + open + (open.isEveryHost() ? "   (every host that reaches "
                    + bind + "; --clients to restrict)" : "") + (readOnly ? ", read-only" : ""));
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
                Map<String, Long> ops = server.server().tcp().nfs4().operationCounts();
                Map<String, Long> delegations = server.server().tcp().nfs4().delegationCounts();
                if (delegations.get("granted") > 0) {
                    io.out().println("Read delegations: " + delegations.get("granted") + " granted, "
                            + delegations.get("recalled") + " recalled, " + delegations.get("returned")
                            + " returned, " + delegations.get("revoked") + " revoked");
                }
                if (!ops.isEmpty()) {
                    StringBuilder line = new StringBuilder("NFSv4 operations:");
                    ops.forEach((name, n) -> line.append(' ').append(name).append(' ').append(n));
                    io.out().println(line);
                }
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
