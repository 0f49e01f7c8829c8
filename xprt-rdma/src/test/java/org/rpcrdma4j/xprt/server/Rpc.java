package org.rpcrdma4j.xprt.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;

/** ONC RPC messages (RFC 5531) built and checked byte by byte, for the wire tests. */
final class Rpc {
    static final int AUTH_NONE = 0;
    static final int AUTH_SYS = 1;
    static final int RPCSEC_GSS = 6;
    static final int AUTH_TLS = 7;

    private Rpc() {
    }

    /** AUTH_NONE credential and verifier. */
    static ByteBuf authNone() {
        return Unpooled.buffer().writeInt(AUTH_NONE).writeInt(0).writeInt(AUTH_NONE).writeInt(0);
    }

    /** A credential of {@code flavor} with {@code body} as is, then an AUTH_NONE verifier. */
    static ByteBuf credential(int flavor, ByteBuf body) {
        ByteBuf b = Unpooled.buffer().writeInt(flavor).writeInt(body.readableBytes()).writeBytes(body);
        body.release();
        pad(b);
        return b.writeInt(AUTH_NONE).writeInt(0);
    }

    /** A well-formed AUTH_SYS body. */
    static ByteBuf authSysBody(String machine, int uid, int gid, int... gids) {
        byte[] name = machine.getBytes(StandardCharsets.US_ASCII);
        ByteBuf b = Unpooled.buffer().writeInt(0x1234).writeInt(name.length).writeBytes(name);
        pad(b);
        b.writeInt(uid).writeInt(gid).writeInt(gids.length);
        for (int g : gids) {
            b.writeInt(g);
        }
        return b;
    }

    /** A call message: header, credential and verifier ({@code auth}), arguments. Takes both buffers. */
    static ByteBuf call(int xid, int program, int version, int procedure, ByteBuf auth, ByteBuf args) {
        ByteBuf b = Unpooled.buffer().writeInt(xid).writeInt(0).writeInt(2).writeInt(program).writeInt(version)
                .writeInt(procedure).writeBytes(auth);
        auth.release();
        if (args != null) {
            b.writeBytes(args);
            args.release();
        }
        return b;
    }

    /** A call to {@link EchoProgram} with AUTH_NONE. */
    static ByteBuf echoCall(int xid, int procedure, ByteBuf args) {
        return call(xid, EchoProgram.PROGRAM, EchoProgram.VERSION, procedure, authNone(), args);
    }

    /** XDR opaque&lt;&gt;: length, bytes, zero pad. */
    static ByteBuf opaque(byte[] data) {
        ByteBuf b = Unpooled.buffer().writeInt(data.length).writeBytes(data);
        return pad(b);
    }

    static ByteBuf ints(int... values) {
        ByteBuf b = Unpooled.buffer();
        for (int v : values) {
            b.writeInt(v);
        }
        return b;
    }

    static ByteBuf pad(ByteBuf b) {
        while ((b.writerIndex() & 3) != 0) {
            b.writeByte(0);
        }
        return b;
    }

    /** Offset of the arguments in a call with AUTH_NONE: 6 words of header, 4 of credential and verifier. */
    static final int ARGS_OFFSET_AUTH_NONE = 40;

    /** The expected accepted SUCCESS reply header for {@code xid}: xid, REPLY, MSG_ACCEPTED, AUTH_NONE verf, 0. */
    static ByteBuf successHeader(int xid) {
        return ints(xid, 1, 0, 0, 0, 0);
    }

    /** Asserts {@code actual} equals {@code expected} byte for byte (readable bytes); releases {@code expected}. */
    static void assertBytes(ByteBuf actual, ByteBuf expected) {
        try {
            assertThat(ByteBufUtil.hexDump(actual)).isEqualTo(ByteBufUtil.hexDump(expected));
        } finally {
            expected.release();
        }
    }

    /** Concatenation (takes the buffers). */
    static ByteBuf concat(ByteBuf... parts) {
        ByteBuf b = Unpooled.buffer();
        for (ByteBuf p : parts) {
            b.writeBytes(p);
            p.release();
        }
        return b;
    }
}
