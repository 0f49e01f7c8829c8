package org.rpcrdma4j.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Arrays;

/**
 * What must hold for any input at all: it decodes, and then re-encoding the header reproduces exactly the bytes
 * consumed (the encoding is canonical, so nothing was misread or kept from an earlier message), or it raises
 * {@link RpcRdmaDecodeException} with consistent fields and untouched indices. Anything else fails.
 */
final class FuzzOracle {

    private FuzzOracle() {
    }

    /** Outcome counters, so that a fuzz run can show it reached both outcomes. */
    static final class Tally {
        long decoded;
        long refused;
        final long[] byReason = new long[RpcRdmaDecodeException.Reason.values().length];

        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder("decoded ").append(decoded).append(", refused ").append(refused);
            for (RpcRdmaDecodeException.Reason reason : RpcRdmaDecodeException.Reason.values()) {
                sb.append(", ").append(reason).append(' ').append(byReason[reason.ordinal()]);
            }
            return sb.toString();
        }
    }

    static void check(byte[] input, RpcRdmaHeader header, String context) {
        check(input, header, context, new Tally());
    }

    static void check(byte[] input, RpcRdmaHeader header, String context, Tally tally) {
        try {
            checkOne(input, header, tally);
        } catch (Throwable t) {
            throw new AssertionError(context + ": input " + Hex.hex(input) + " (" + input.length + " bytes): " + t, t);
        }
    }

    private static void checkOne(byte[] input, RpcRdmaHeader header, Tally tally) {
        ByteBuf in = Unpooled.wrappedBuffer(input);
        try {
            int consumed = RpcRdmaDecoder.decode(in, header);
            assertThat(consumed).isBetween(RpcRdmaLayout.ERR_CHUNK_LENGTH, input.length);
            assertThat(in.readerIndex()).isEqualTo(consumed);
            assertThat(Hex.encode(header)).isEqualTo(Arrays.copyOf(input, consumed));
            tally.decoded++;
        } catch (RpcRdmaDecodeException e) {
            assertThat(in.readerIndex()).isZero();
            assertThat(e.hasXid()).isEqualTo(input.length >= 4);
            if (e.hasXid()) {
                assertThat(e.xid()).isEqualTo(RpcRdmaLayout.xid(in, 0));
            } else {
                assertThat(e.response()).isEqualTo(RpcRdmaDecodeException.Response.DROP);
            }
            assertThat(e.offset()).isBetween(0, input.length);
            assertThat(e.getMessage()).startsWith(e.reason().name());
            tally.refused++;
            tally.byReason[e.reason().ordinal()]++;
        }
    }
}
