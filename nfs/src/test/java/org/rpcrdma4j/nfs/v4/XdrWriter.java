package org.rpcrdma4j.nfs.v4;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.Random;

/** Writes XDR for tests: big-endian words, hypers, padded opaques, random filler. */
final class XdrWriter {
    private final ByteBuf out = Unpooled.buffer(256);

    int length() {
        return out.writerIndex();
    }

    byte[] bytes() {
        return ByteBufUtil.getBytes(out);
    }

    XdrWriter word(int v) {
        out.writeInt(v);
        return this;
    }

    XdrWriter bool(boolean v) {
        return word(v ? 1 : 0);
    }

    XdrWriter hyper(long v) {
        out.writeLong(v);
        return this;
    }

    /** Fixed-length opaque of {@code n} random bytes ({@code n} a multiple of 4). */
    XdrWriter fixed(Random r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        out.writeBytes(b);
        return this;
    }

    /** Variable-length opaque: length word, bytes, zero pad. */
    XdrWriter opaque(byte[] b) {
        out.writeInt(b.length).writeBytes(b).writeZero((4 - (b.length & 3)) & 3);
        return this;
    }

    XdrWriter opaque(Random r, int length) {
        byte[] b = new byte[length];
        r.nextBytes(b);
        return opaque(b);
    }

    XdrWriter raw(byte[] b) {
        out.writeBytes(b);
        return this;
    }
}
