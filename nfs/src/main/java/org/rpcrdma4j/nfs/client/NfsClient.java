package org.rpcrdma4j.nfs.client;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.DirEntry;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.FileType;
import org.rpcrdma4j.nfs.FsInfo;
import org.rpcrdma4j.nfs.FsStat;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.NfsObject;
import org.rpcrdma4j.nfs.NfsTime;
import org.rpcrdma4j.nfs.PathConf;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.xdr.Mount3;
import org.rpcrdma4j.nfs.xdr.Nfs3;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A mounted NFSv3 export: blocking calls for every procedure, file-level helpers (paths, listing, pipelined
 * copies), and {@link #async()} for the asynchronous API underneath.
 * <pre>{@code
 * try (NfsClient nfs = NfsClient.mount("tcp://server/export")) {
 *     nfs.upload(Path.of("local.bin"), "/dir/remote.bin");
 *     nfs.download("/dir/remote.bin", Path.of("copy.bin"));
 * }
 * }</pre>
 * The URL's scheme picks the {@link DataTransportFactory} ("tcp" built in; "rdma" from the configuration or
 * {@link ServiceLoader}); MOUNT always goes over TCP to the URL's mount port. Errors: {@link NfsException} with the
 * {@link Nfs3Status} when the server answered with an error, {@link RpcCallException} subtypes when it did not answer,
 * {@link MountException} when MNT failed. Thread-safe.
 */
public final class NfsClient implements NfsMount {
    private static final Logger LOG = LoggerFactory.getLogger(NfsClient.class);

    private final NfsUrl url;
    private final NfsClientConfig config;
    private final DataTransport transport;
    private final NfsAsyncClient async;
    private final FileHandle root;
    private volatile FsInfo fsinfo;
    private volatile boolean plusSupported = true;

    private NfsClient(NfsUrl url, NfsClientConfig config, DataTransport transport, FileHandle root) {
        this.url = url;
        this.config = config;
        this.transport = transport;
        this.async = new NfsAsyncClient(transport);
        this.root = root;
    }

    public static NfsClient mount(String url) throws IOException {
        return mount(NfsUrl.parse(url), NfsClientConfig.defaults());
    }

    public static NfsClient mount(String url, NfsClientConfig config) throws IOException {
        return mount(NfsUrl.parse(url), config);
    }

    /**
     * Mounts: MNT over TCP to the mount port, then connects NFS with the scheme's transport. A port the URL does not
     * name is asked of the server's portmapper first ({@link #withPortsFound}).
     */
    public static NfsClient mount(NfsUrl url, NfsClientConfig config) throws IOException {
        List<Portmapper.Lookup> misses = new ArrayList<>();
        NfsUrl asked = url;
        url = withPortsFound(url, config, misses);
        try {
            return connect(url, config);
        } catch (RpcConnectionException e) {
            if (misses.isEmpty()) {
                throw e;
            }
            StringBuilder m = new StringBuilder(e.getMessage());
            for (Portmapper.Lookup l : misses) {
                m.append("; ").append(l.fallbackNote(l.program() == Mount3.PROGRAM ? url.mountPort() : url.port()));
            }
            throw new RpcConnectionException(m + " (mounting " + asked + ": give the port in the URL)", e);
        }
    }

    /**
     * {@code url} with the ports it does not name asked of the server's portmapper, as {@code mount.nfs} does:
     * MOUNT's without {@code mountport}, NFS's too for a {@code tcp://} URL without a port. A lookup that finds nothing
     * (no portmapper, or the program not registered) leaves the default and is added to {@code misses}.
     */
    static NfsUrl withPortsFound(NfsUrl url, NfsClientConfig config, List<Portmapper.Lookup> misses)
            throws IOException {
        int pm = config.portmapperPort();
        if (pm == 0 || url.mountPortGiven() && (url.portGiven() || !"tcp".equals(url.scheme()))) {
            return url;
        }
        int nfsPort = url.port();
        int mountPort = url.mountPort();
        if ("tcp".equals(url.scheme()) && !url.portGiven()) {
            Portmapper.Lookup l = Portmapper.getPort(url.host(), pm, "NFS", Nfs3.PROGRAM, Nfs3.VERSION, config);
            if (l.found()) {
                nfsPort = l.port();
                if (!url.mountPortGiven()) {
                    mountPort = nfsPort; // a server without a registered MOUNT serves it on the NFS port
                }
            } else {
                misses.add(l);
            }
        }
        if (!url.mountPortGiven()) {
            Portmapper.Lookup l = Portmapper.getPort(url.host(), pm, "MOUNT", Mount3.PROGRAM, Mount3.VERSION,
                    config);
            if (l.found()) {
                mountPort = l.port();
            } else {
                misses.add(l);
            }
        }
        LOG.debug("{}: NFS port {}, MOUNT port {} ({} lookups missed)", url, nfsPort, mountPort, misses.size());
        return url.withPorts(nfsPort, mountPort);
    }

    private static NfsClient connect(NfsUrl url, NfsClientConfig config) throws IOException {
        DataTransportFactory factory = factory(url.scheme(), config);
        InetSocketAddress nfsAddress = new InetSocketAddress(url.host(), url.port());
        InetSocketAddress mountAddress = new InetSocketAddress(url.host(), url.mountPort());
        FileHandle root;
        DataTransport nfs;
        if ("tcp".equals(url.scheme()) && url.mountPort() == url.port()) {
            nfs = factory.connect(nfsAddress, config);
            try {
                root = new MountClient(nfs).mount(url.export());
            } catch (IOException | RuntimeException e) {
                nfs.close();
                throw e;
            }
        } else {
            try (DataTransport mount = TcpDataTransport.connect(mountAddress, config)) {
                root = new MountClient(mount).mount(url.export());
            }
            nfs = factory.connect(nfsAddress, config);
        }
        return new NfsClient(url, config, nfs, root);
    }

    /** The factory for {@code scheme}: configured, built in ("tcp"), or found by {@link ServiceLoader}. */
    static DataTransportFactory factory(String scheme, NfsClientConfig config) throws IOException {
        DataTransportFactory f = config.factory(scheme);
        if (f != null) {
            return f;
        }
        if ("tcp".equals(scheme)) {
            return TcpDataTransport.factory();
        }
        for (DataTransportFactory found : ServiceLoader.load(DataTransportFactory.class)) {
            if (found.scheme().equals(scheme)) {
                return found;
            }
        }
        throw new IOException("no transport for scheme \"" + scheme + "\": add a DataTransportFactory for it to the "
                + "configuration or the class path");
    }

    /** NFSv3. */
    @Override
    public String version() {
        return "3";
    }

    public NfsUrl url() {
        return url;
    }

    /** The export's root handle. */
    public FileHandle root() {
        return root;
    }

    /** The asynchronous API over the same connection. */
    @Override
    public DataTransport transport() {
        return async.transport();
    }

    public NfsAsyncClient async() {
        return async;
    }

    private static <T> T await(java.util.concurrent.CompletableFuture<T> f) throws IOException {
        return MountClient.Calls.await(f);
    }

    // ---- procedures ----

    public void ping() throws IOException {
        await(async.ping());
    }

    public FileAttributes getattr(FileHandle fh) throws IOException {
        return await(async.getattr(fh));
    }

    public FileAttributes setattr(FileHandle fh, SetAttributes attributes) throws IOException {
        return await(async.setattr(fh, attributes, null));
    }

    public FileAttributes setattr(FileHandle fh, SetAttributes attributes, NfsTime guardCtime) throws IOException {
        return await(async.setattr(fh, attributes, guardCtime));
    }

    public NfsObject lookup(FileHandle dir, String name) throws IOException {
        return await(async.lookup(dir, name));
    }

    public int access(FileHandle fh, int bits) throws IOException {
        return await(async.access(fh, bits));
    }

    public String readlink(FileHandle fh) throws IOException {
        return await(async.readlink(fh));
    }

    /** READ into {@code dst} (see {@link NfsAsyncClient#read}). */
    public ReadReply read(FileHandle fh, long offset, ByteBuf dst) throws IOException {
        return await(async.read(fh, offset, dst));
    }

    /** WRITE from {@code src} (see {@link NfsAsyncClient#write}). */
    public WriteReply write(FileHandle fh, long offset, ByteBuf src, StableHow stable) throws IOException {
        return await(async.write(fh, offset, src, stable));
    }

    public NfsObject create(FileHandle dir, String name, CreateMode mode, SetAttributes attributes) throws IOException {
        return await(async.create(dir, name, mode, attributes, 0));
    }

    public NfsObject createExclusive(FileHandle dir, String name, long verifier) throws IOException {
        return await(async.create(dir, name, CreateMode.EXCLUSIVE, SetAttributes.NONE, verifier));
    }

    public NfsObject mkdir(FileHandle dir, String name, SetAttributes attributes) throws IOException {
        return await(async.mkdir(dir, name, attributes));
    }

    public NfsObject symlink(FileHandle dir, String name, String target) throws IOException {
        return await(async.symlink(dir, name, target, SetAttributes.NONE));
    }

    public NfsObject mknod(FileHandle dir, String name, FileType type, int major, int minor) throws IOException {
        return await(async.mknod(dir, name, type, SetAttributes.NONE, major, minor));
    }

    public void remove(FileHandle dir, String name) throws IOException {
        await(async.remove(dir, name));
    }

    public void rmdir(FileHandle dir, String name) throws IOException {
        await(async.rmdir(dir, name));
    }

    public void rename(FileHandle fromDir, String fromName, FileHandle toDir, String toName) throws IOException {
        await(async.rename(fromDir, fromName, toDir, toName));
    }

    public void link(FileHandle file, FileHandle dir, String name) throws IOException {
        await(async.link(file, dir, name));
    }

    public DirListing readdir(FileHandle dir, long cookie, long cookieVerifier, int count) throws IOException {
        return await(async.readdir(dir, cookie, cookieVerifier, count));
    }

    public DirListing readdirplus(FileHandle dir, long cookie, long cookieVerifier, int dirCount, int maxCount)
            throws IOException {
        return await(async.readdirplus(dir, cookie, cookieVerifier, dirCount, maxCount));
    }

    public FsStat fsstat(FileHandle fh) throws IOException {
        return await(async.fsstat(fh));
    }

    public FsInfo fsinfo(FileHandle fh) throws IOException {
        return await(async.fsinfo(fh));
    }

    public PathConf pathconf(FileHandle fh) throws IOException {
        return await(async.pathconf(fh));
    }

    public long commit(FileHandle fh, long offset, long count) throws IOException {
        return await(async.commit(fh, offset, count));
    }

    // ---- paths ----

    /** The handle of {@code path} below the export root ("/" or "" is the root), one LOOKUP per component. */
    @Override
    public FileHandle resolve(String path) throws IOException {
        FileHandle fh = root;
        for (String name : NfsPaths.components(path)) {
            fh = lookup(fh, name).handle();
        }
        return fh;
    }

    /** Removes a file (REMOVE) or an empty directory (RMDIR). */
    @Override
    public void delete(String path) throws IOException {
        NfsPaths.Split s = NfsPaths.split(path);
        FileHandle dir = resolve(s.directory());
        FileAttributes a = lookup(dir, s.name()).attributes();
        if (a != null && a.isDirectory()) {
            rmdir(dir, s.name());
        } else {
            remove(dir, s.name());
        }
    }

    /**
     * Lists a directory with READDIRPLUS, falling back to READDIR when the server does not support it
     * ({@code NFS3ERR_NOTSUPP} or {@code PROC_UNAVAIL}; remembered for the mount); a listing
     * invalidated by a change (NFS3ERR_BAD_COOKIE) starts over, up to three times.
     */
    public List<DirEntry> list(FileHandle dir) throws IOException {
        for (int attempt = 0; ; attempt++) {
            try {
                return listOnce(dir, plusSupported);
            } catch (NfsException e) {
                if (e.status() == Nfs3Status.NFS3ERR_NOTSUPP && plusSupported) {
                    plusSupported = false; // remembered: this server does not do READDIRPLUS
                    continue;
                }
                if (e.status() != Nfs3Status.NFS3ERR_BAD_COOKIE || attempt >= 3) {
                    throw e;
                }
            } catch (RpcNotAcceptedException e) {
                if (e.acceptStatus() != AcceptStatus.PROC_UNAVAIL || !plusSupported) {
                    throw e;
                }
                plusSupported = false;
            }
        }
    }

    private List<DirEntry> listOnce(FileHandle dir, boolean plus) throws IOException {
        List<DirEntry> all = new ArrayList<>();
        long cookie = 0;
        long verifier = 0;
        int bytes = config.readdirBytes();
        while (true) {
            DirListing page = plus ? readdirplus(dir, cookie, verifier, bytes, bytes)
                    : readdir(dir, cookie, verifier, bytes);
            for (DirEntry e : page.entries()) {
                if (!e.isDotOrDotDot()) {
                    all.add(e);
                }
            }
            if (page.eof()) {
                return all;
            }
            if (page.entries().isEmpty()) {
                throw new IOException("the server returned an empty directory page without end of listing");
            }
            cookie = page.entries().get(page.entries().size() - 1).cookie();
            verifier = page.cookieVerifier();
        }
    }

    // ---- file copies ----

    private FsInfo fsinfo() throws IOException {
        FsInfo f = fsinfo;
        if (f == null) {
            f = fsinfo(root);
            fsinfo = f;
        }
        return f;
    }

    private int readChunk() throws IOException {
        int rtmax = fsinfo().rtmax();
        return rtmax > 0 ? Math.min(config.chunkSize(), rtmax) : config.chunkSize();
    }

    private int writeChunk() throws IOException {
        int wtmax = fsinfo().wtmax();
        return wtmax > 0 ? Math.min(config.chunkSize(), wtmax) : config.chunkSize();
    }

    /** Copies the remote file {@code remotePath} to {@code local} (replaced); returns the bytes copied. */
    public long download(String remotePath, Path local) throws IOException {
        FileHandle fh = resolve(remotePath);
        FileAttributes a = getattr(fh);
        if (a.isDirectory()) {
            throw new NfsException(Nfs3Status.NFS3ERR_ISDIR, remotePath);
        }
        try (FileChannel out = FileChannel.open(local, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            return new Download(async, fh, out, readChunk(), config.window()).run(a.size());
        }
    }

    /**
     * Copies {@code local} to {@code remotePath} (created or truncated) with pipelined UNSTABLE WRITEs and a COMMIT,
     * resending ranges whose write verifier changed. Returns the bytes in the file.
     */
    public long upload(Path local, String remotePath) throws IOException {
        FileHandle fh = createFile(remotePath);
        try (FileChannel in = FileChannel.open(local, StandardOpenOption.READ)) {
            long size = in.size();
            UnstableWriter writer = unstableWriter(fh, (offset, length, dst) -> {
                int done = 0;
                while (done < length) {
                    int n = dst.writeBytes(in, offset + done, length - done);
                    if (n < 0) {
                        throw new IOException(local + " shrank while being uploaded");
                    }
                    done += n;
                }
            });
            int chunk = writeChunk();
            for (long offset = 0; offset < size; offset += chunk) {
                writer.write(offset, (int) Math.min(chunk, size - offset));
            }
            writer.commit();
            LOG.debug("uploaded {} bytes to {} ({} ranges resent)", size, remotePath, writer.resends());
            return size;
        }
    }

    /** A writer for pipelined UNSTABLE writes with verifier-checked COMMIT (see {@link UnstableWriter}). */
    public UnstableWriter unstableWriter(FileHandle fh, UnstableWriter.Source source) {
        return new UnstableWriter(async, fh, source, config.window(), 5);
    }

    /** Reads a whole remote file into memory (for small files). */
    public byte[] readAll(String path) throws IOException {
        FileHandle fh = resolve(path);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        int chunk = readChunk();
        long offset = 0;
        while (true) {
            ByteBuf buf = transport().allocateData(chunk);
            try {
                ReadReply r = read(fh, offset, buf);
                buf.readBytes(out, buf.readableBytes());
                offset += r.count();
                if (r.eof()) {
                    return out.toByteArray();
                }
                if (r.count() == 0) {
                    throw new EmptyReadException(offset);
                }
            } finally {
                buf.release();
            }
        }
    }

    /** Unmounts (UMNT, best effort) and closes the connection. */
    @Override
    public void close() {
        try {
            if ("tcp".equals(url.scheme()) && url.mountPort() == url.port()) {
                new MountClient(transport).unmount(url.export());
            } else {
                try (DataTransport mount = TcpDataTransport.connect(
                        new InetSocketAddress(url.host(), url.mountPort()), config)) {
                    new MountClient(mount).unmount(url.export());
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("UMNT of {} failed: {}", url, e.toString());
        } finally {
            transport.close();
        }
    }
}
