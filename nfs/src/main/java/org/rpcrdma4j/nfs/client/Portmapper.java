package org.rpcrdma4j.nfs.client;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;

/**
 * Asks a server's portmapper (program 100000 version 2, RFC 1833; rpcbind answers it too) where a program listens over
 * TCP, as {@code mount.nfs} does for MOUNT (and for NFS when no port is given). The answer is a {@link Lookup}: found,
 * not registered, or no portmapper answered, each with what was asked, so that a failure after it can say where the
 * port came from.
 */
public final class Portmapper {
    /** The portmapper's well-known port. */
    public static final int PORT = 111;
    static final int PROGRAM = 100000;
    static final int VERSION = 2;
    static final int GETPORT = 3;
    static final int PROTO_TCP = 6;
    /** How long a lookup waits for the portmapper's connection at most: one that does not answer only costs a default. */
    static final Duration CONNECT_LIMIT = Duration.ofSeconds(3);

    private Portmapper() {
    }

    /**
     * What a lookup found.
     *
     * @param program the program asked for
     * @param asked   what was asked, for messages: "MOUNT v3 over TCP from the portmapper at host:111"
     * @param port    the port registered, or 0 when not found
     * @param reason  why not found (null when found)
     */
    public record Lookup(int program, String asked, int port, String reason) {
        public boolean found() {
            return port > 0;
        }

        /** A note for a message about a port used instead ("the portmapper ...: using port N"). */
        public String fallbackNote(int used) {
            return asked + " gave no port (" + reason + "), so port " + used + " was used";
        }
    }

    /**
     * GETPORT of {@code program} {@code version} over TCP at {@code host}'s portmapper on {@code portmapPort}. Never
     * throws for the portmapper's absence or refusal: those are a {@link Lookup} without a port; an interruption is
     * thrown.
     */
    public static Lookup getPort(String host, int portmapPort, String name, int program, int version,
                                 NfsClientConfig config) throws IOException {
        String asked = name + " v" + version + " over TCP from the portmapper at " + host + ":" + portmapPort;
        NfsClientConfig quick = config.connectTimeout().compareTo(CONNECT_LIMIT) > 0
                ? config.withConnectTimeout(CONNECT_LIMIT) : config;
        try (DataTransport pm = TcpDataTransport.connect(new InetSocketAddress(host, portmapPort), quick)) {
            PortResult r = MountClient.Calls.await(pm.call(PROGRAM, VERSION, GETPORT,
                    new Mapping(program, version), new PortResult()));
            if (r.port <= 0 || r.port > 65535) {
                return new Lookup(program, asked, 0, r.port == 0 ? "not registered" : "it answered port " + r.port);
            }
            return new Lookup(program, asked, r.port, null);
        } catch (java.io.InterruptedIOException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            return new Lookup(program, asked, 0, "no portmapper answered: " + e.getMessage());
        }
    }

    /** {@code mapping} of a GETPORT query: program, version, protocol, port (0). */
    private record Mapping(int program, int version) implements XdrAble {
        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            xdr.xdrEncodeInt(program);
            xdr.xdrEncodeInt(version);
            xdr.xdrEncodeInt(PROTO_TCP);
            xdr.xdrEncodeInt(0);
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) {
            throw new UnsupportedOperationException("encoded only");
        }
    }

    /** GETPORT's result: an unsigned int, the port or 0. */
    private static final class PortResult implements XdrAble {
        int port;

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws OncRpcException, IOException {
            port = xdr.xdrDecodeInt();
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            throw new UnsupportedOperationException("decoded only");
        }
    }
}
