package org.rpcrdma4j.nfs.client;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * Where to mount: {@code scheme://host[:port]/export[?mountport=N][&vers=V]}. Schemes: {@code tcp} (NFS and MOUNT over
 * TCP; port 2049; {@code nfs} is a synonym) and {@code rdma} (NFS over RPC-over-RDMA on port 20049, MOUNT over TCP).
 * MOUNT (NFSv3 only) goes to {@code mountport} when given; else NFSv3 asks the server's portmapper, as
 * {@code mount.nfs} does, and where none answers uses the NFS port for {@code tcp} (an embedded server serves both on
 * one port) and 2049 for {@code rdma}. Without a port in a {@code tcp} URL NFSv3 asks the portmapper for NFS's too. {@code vers} is 3, 4 (4.2 or 4.1), 4.1 or 4.2; without it
 * {@link NfsMounts#mount} tries 4.2, then 4.1, then 3, as {@code mount.nfs} does. IPv6 hosts are written in brackets.
 * The export path is percent-decoded.
 *
 * @param scheme    "tcp" or "rdma" (lower case)
 * @param host      host name or address
 * @param port      NFS port
 * @param export    the export path, starting with '/'
 * @param mountPort TCP port of MOUNT
 * @param version   the NFS version asked for: "3", "4", "4.1", "4.2", or "" for the first the server speaks
 * @param portGiven      whether the URL named the NFS port ({@code port} is the scheme's default otherwise)
 * @param mountPortGiven whether the URL named {@code mountport} ({@code mountPort} is the default otherwise)
 */
public record NfsUrl(String scheme, String host, int port, String export, int mountPort, String version,
                     boolean portGiven, boolean mountPortGiven) {
    public static final int NFS_TCP_PORT = 2049;
    public static final int NFS_RDMA_PORT = 20049;

    /** The versions {@code vers} may name. */
    public static final java.util.List<String> VERSIONS = java.util.List.of("3", "4", "4.1", "4.2");

    /** A URL that leaves the version to {@link NfsMounts#mount}, both ports as given. */
    public NfsUrl(String scheme, String host, int port, String export, int mountPort) {
        this(scheme, host, port, export, mountPort, "");
    }

    /** A URL with both ports as given (no portmapper lookup). */
    public NfsUrl(String scheme, String host, int port, String export, int mountPort, String version) {
        this(scheme, host, port, export, mountPort, version, true, true);
    }

    public NfsUrl {
        if (version == null || !version.isEmpty() && !VERSIONS.contains(version)) {
            throw new IllegalArgumentException("vers must be one of " + VERSIONS + ": " + version);
        }
        if (port < 1 || port > 65535 || mountPort < 1 || mountPort > 65535) {
            throw new IllegalArgumentException("port out of range: " + port + "/" + mountPort);
        }
        if (!export.startsWith("/")) {
            throw new IllegalArgumentException("export must start with '/': " + export);
        }
    }

    /** The default NFS port of a scheme, or -1 for an unknown scheme. */
    public static int defaultPort(String scheme) {
        return switch (scheme) {
            case "tcp" -> NFS_TCP_PORT;
            case "rdma" -> NFS_RDMA_PORT;
            default -> -1;
        };
    }

    /** Parses a URL; throws {@link IllegalArgumentException} with the reason when it is not one. */
    public static NfsUrl parse(String url) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("not a URL: " + url, e);
        }
        String scheme = uri.getScheme() == null ? null : uri.getScheme().toLowerCase(java.util.Locale.ROOT);
        if ("nfs".equals(scheme)) {
            scheme = "tcp";
        }
        if (scheme == null || uri.getHost() == null) {
            throw new IllegalArgumentException("expected scheme://host[:port]/export, got " + url);
        }
        if (uri.getUserInfo() != null || uri.getFragment() != null) {
            throw new IllegalArgumentException("user info and fragments are not allowed: " + url);
        }
        String host = uri.getHost();
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int defaultPort = defaultPort(scheme);
        int port = uri.getPort() >= 0 ? uri.getPort() : defaultPort;
        if (port < 0) {
            throw new IllegalArgumentException("unknown scheme " + scheme + " without a port: " + url);
        }
        String export = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/"
                : URLDecoder.decode(uri.getRawPath().replace("+", "%2B"), StandardCharsets.UTF_8);
        int mountPort = "tcp".equals(scheme) ? port : NFS_TCP_PORT;
        boolean mountPortGiven = false;
        String version = "";
        if (uri.getRawQuery() != null) {
            for (String pair : uri.getRawQuery().split("&")) {
                int eq = pair.indexOf('=');
                String key = eq < 0 ? pair : pair.substring(0, eq);
                String value = eq < 0 ? "" : pair.substring(eq + 1);
                if ("mountport".equals(key)) {
                    try {
                        mountPort = Integer.parseInt(value);
                        mountPortGiven = true;
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("mountport is not a number: " + value, e);
                    }
                } else if ("vers".equals(key)) {
                    if (!VERSIONS.contains(value)) {
                        throw new IllegalArgumentException("vers must be one of " + VERSIONS + ": " + value);
                    }
                    version = value;
                } else {
                    throw new IllegalArgumentException("unknown option " + key + " in " + url);
                }
            }
        }
        return new NfsUrl(scheme, host, port, export, mountPort, version, uri.getPort() >= 0, mountPortGiven);
    }

    /** This URL with {@code vers} set ("" for the first the server speaks). */
    public NfsUrl withVersion(String v) {
        return new NfsUrl(scheme, host, port, export, mountPort, v, portGiven, mountPortGiven);
    }

    /** This URL with the ports found (by a portmapper lookup), as if given. */
    public NfsUrl withPorts(int nfsPort, int mountPort) {
        return new NfsUrl(scheme, host, nfsPort, export, mountPort, version, true, true);
    }

    /** The URL as written: ports and options only where given, so that parsing it again gives this URL. */
    @Override
    public String toString() {
        String h = host.indexOf(':') >= 0 ? "[" + host + "]" : host;
        String query = (mountPortGiven ? "&mountport=" + mountPort : "") + (version.isEmpty() ? "" : "&vers=" + version);
        return scheme + "://" + h + (portGiven ? ":" + port : "") + export
                + (query.isEmpty() ? "" : "?" + query.substring(1));
    }
}
