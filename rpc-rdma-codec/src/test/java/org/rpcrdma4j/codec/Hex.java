package org.rpcrdma4j.codec;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;

/** Hex helpers for byte-exact tests. */
final class Hex {

    private Hex() {
    }

    /** Parses hex digits, ignoring whitespace and {@code |} separators. */
    static byte[] bytes(String hex) {
        String digits = hex.replaceAll("[\\s|]", "");
        if (digits.length() % 2 != 0) {
            throw new IllegalArgumentException("odd number of hex digits: " + digits.length());
        }
        return ByteBufUtil.decodeHexDump(digits);
    }

    /** A heap buffer (not leak-tracked) holding a copy of {@code bytes}. */
    static ByteBuf buffer(byte[] bytes) {
        return Unpooled.wrappedBuffer(bytes.clone());
    }

    /** Hex of the readable bytes of {@code buffer}. */
    static String hex(ByteBuf buffer) {
        return ByteBufUtil.hexDump(buffer);
    }

    static String hex(byte[] bytes) {
        return ByteBufUtil.hexDump(bytes);
    }

    /** Encodes {@code header} into a fresh array through {@link RpcRdmaEncoder#encode}. */
    static byte[] encode(RpcRdmaHeader header) {
        ByteBuf out = Unpooled.wrappedBuffer(new byte[RpcRdmaEncoder.encodedLength(header) + 64]).clear();
        int written = RpcRdmaEncoder.encode(out, header);
        if (written != out.readableBytes()) {
            throw new AssertionError("encode returned " + written + " but wrote " + out.readableBytes());
        }
        return ByteBufUtil.getBytes(out);
    }
}
