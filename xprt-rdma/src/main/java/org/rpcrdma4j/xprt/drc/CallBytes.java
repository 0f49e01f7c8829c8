package org.rpcrdma4j.xprt.drc;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.zip.CRC32C;

import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.glassfish.grizzly.Buffer;

/**
 * Reads a call's key out of its oncrpc4j stream, and copies a reply out of one: the only class of the cache that sees
 * the Grizzly buffers under {@link Xdr}.
 * <p>
 * Both oncrpc4j's own transports and the RDMA server hand a program an accepted call whose stream holds the whole
 * message from index 0 (the xid) and stands at the first argument. The header is read there in place and checked
 * against what oncrpc4j decoded ({@code xid}, program, version, procedure, and that the credential and verifier end
 * exactly where the arguments begin); a stream laid out otherwise makes the call uncacheable rather than keyed on
 * guesses. The credential is kept as on the wire (flavor, length, body) except for an AUTH_SYS stamp, which a client
 * may choose anew for each transmission and which says nothing about who calls. Reading allocates nothing but the key's own credential copy; one {@link Scratch} per thread holds the
 * checksum state.
 */
final class CallBytes {
    private static final int CALL = 0;
    private static final int REPLY = 1;
    private static final int AUTH_SYS = 1;
    private static final int RPC_VERSION = 2;
    private static final int CREDENTIAL_AT = 24;
    private static final int MAX_AUTH_BODY = 400;

    private CallBytes() {
    }

    /** Per-thread checksum state (a CRC32C and a copy buffer for the checksummed bytes). */
    static final class Scratch {
        final CRC32C crc = new CRC32C();
        final byte[] bytes;

        Scratch(int checksumBytes) {
            bytes = new byte[checksumBytes];
        }
    }

    /**
     * The key of an accepted call, as a new executing entry; null when the stream is not laid out as expected or the
     * peer has no address.
     */
    static CacheEntry key(RpcCall call, Scratch scratch) {
        RpcTransport transport = call.getTransport();
        InetSocketAddress remote = transport.getRemoteSocketAddress();
        InetAddress client = remote == null ? null : remote.getAddress();
        if (client == null) {
            return null;
        }
        Buffer b = call.getXdr().asBuffer();
        int args = b.position();
        int limit = b.limit();
        if (args < CREDENTIAL_AT + 16 || limit < args
                || b.getInt(0) != call.getXid() || b.getInt(4) != CALL || b.getInt(8) != RPC_VERSION
                || b.getInt(12) != call.getProgram() || b.getInt(16) != call.getProgramVersion()
                || b.getInt(20) != call.getProcedure()) {
            return null;
        }
        int credentialBody = b.getInt(CREDENTIAL_AT + 4);
        if (credentialBody < 0 || credentialBody > MAX_AUTH_BODY) {
            return null;
        }
        int verifierAt = CREDENTIAL_AT + 8 + pad(credentialBody);
        if (verifierAt + 8 > args) {
            return null;
        }
        int verifierBody = b.getInt(verifierAt + 4);
        if (verifierBody < 0 || verifierBody > MAX_AUTH_BODY || verifierAt + 8 + pad(verifierBody) != args) {
            return null;
        }
        byte[] credential = new byte[8 + credentialBody];
        for (int i = 0; i < credential.length; i++) {
            credential[i] = b.get(CREDENTIAL_AT + i);
        }
        if (b.getInt(CREDENTIAL_AT) == AUTH_SYS && credentialBody >= 4) {
            // the stamp is an arbitrary number the client may change between transmissions; the identity is the rest
            credential[8] = credential[9] = credential[10] = credential[11] = 0;
        }
        int argumentLength = limit - args;
        int n = Math.min(argumentLength, scratch.bytes.length);
        for (int i = 0; i < n; i++) {
            scratch.bytes[i] = b.get(args + i);
        }
        CRC32C crc = scratch.crc;
        crc.reset();
        crc.update(scratch.bytes, 0, n);
        return new CacheEntry(client, credential, call.getXid(), call.getProgram(), call.getProgramVersion(),
                call.getProcedure(), argumentLength, (int) crc.getValue());
    }

    /** A copy of an encoded message (position to limit); the stream's position is left where it was. */
    static byte[] copy(Xdr xdr) {
        Buffer b = xdr.asBuffer();
        int position = b.position();
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        b.position(position);
        return bytes;
    }

    /** Whether an encoded message is a reply (RFC 5531 {@code REPLY}) to the call with this xid. */
    static boolean answers(byte[] message, int xid) {
        return message.length >= 12 && intAt(message, 0) == xid && intAt(message, 4) == REPLY;
    }

    private static int intAt(byte[] b, int at) {
        return ((b[at] & 0xff) << 24) | ((b[at + 1] & 0xff) << 16) | ((b[at + 2] & 0xff) << 8) | (b[at + 3] & 0xff);
    }

    private static int pad(int length) {
        return (length + 3) & ~3;
    }
}
