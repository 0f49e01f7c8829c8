package org.rpcrdma4j.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The decoder has a short path for the common header (version 1, RDMA_MSG or RDMA_NOMSG, valid lists within the
 * first bulk copy) and a checked path for everything, which reports the first rule broken. The short path may only
 * decline; whenever it accepts, the checked path must accept the same bytes with the same result, and the public
 * decode must agree with the checked path on every input, accepted or refused, also with a header reused across
 * messages as a transport reuses it.
 */
class RpcRdmaFastPathTest {

    private static final int INPUTS = 30_000;

    private final long seed = Long.getLong("rpcrdma.fuzz.seed", System.nanoTime());

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void theShortPathAgreesWithTheCheckedPath() throws RpcRdmaDecodeException {
        SplittableRandom random = new SplittableRandom(seed);
        RpcRdmaLimits[] limits = {RpcRdmaLimits.DEFAULT, RpcRdmaFuzzTest.TIGHT};
        RpcRdmaHeader[] reused = {new RpcRdmaHeader(limits[0]), new RpcRdmaHeader(limits[1])};
        long shortAccepted = 0;
        long validCommon = 0;
        for (int i = 0; i < INPUTS; i++) {
            int which = random.nextInt(2);
            byte[] input;
            boolean validCommonHeader = false;
            switch (random.nextInt(4)) {
                case 0:
                    input = RpcRdmaFuzzTest.grammarWalk(random);
                    break;
                case 1: {
                    RpcRdmaHeader h = RpcRdmaFuzzTest.randomHeader(random);
                    input = Hex.encode(h);
                    // a header within the default limits that fits the first copy is the short path's to take
                    validCommonHeader = which == 0 && h.proc() != RpcRdmaProc.RDMA_ERROR && input.length <= 512;
                    break;
                }
                case 2:
                    input = Mutations.overwriteWord(Hex.encode(RpcRdmaFuzzTest.randomHeader(random)), random.nextInt(),
                            random.nextInt(8) == 0 ? random.nextInt() : random.nextInt(3));
                    break;
                default:
                    input = Mutations.truncate(Hex.encode(RpcRdmaFuzzTest.largeRandomHeader(random)),
                            random.nextInt());
                    break;
            }
            String context = "seed " + seed + " input " + i + " " + Hex.hex(input) + " limits " + limits[which];
            Outcome checked = decode(input, new RpcRdmaHeader(limits[which]), true);
            Outcome common = decode(input, reused[which], false);
            assertThat(common.describe()).as(context).isEqualTo(checked.describe());
            if (checked.header != null) {
                assertThat(common.header.contentEquals(checked.header)).as(context).isTrue();
            }

            ByteBuf in = Unpooled.wrappedBuffer(input);
            RpcRdmaHeader fresh = new RpcRdmaHeader(limits[which]);
            // twice: the first may decline only because the chunk start arrays must grow for this header
            int taken = RpcRdmaDecoder.decodeCommon(in, 0, input.length, fresh);
            if (taken == 0 && checked.header != null) {
                assertThat(RpcRdmaDecoder.decodeChecked(in, 0, input.length, fresh)).isEqualTo(checked.length);
                taken = RpcRdmaDecoder.decodeCommon(in, 0, input.length, fresh);
            }
            if (taken != 0) {
                shortAccepted++;
                assertThat(checked.header).as("accepted by the short path only: %s", context).isNotNull();
                assertThat(taken).as(context).isEqualTo(checked.length);
                assertThat(fresh.contentEquals(checked.header)).as(context).isTrue();
                assertThat(fresh.toString()).as(context).isEqualTo(checked.header.toString());
            }
            if (validCommonHeader) {
                validCommon++;
                assertThat(taken).as("a common header the short path declined: %s", context).isNotZero();
            }
        }
        System.out.println("short path (seed " + seed + "): accepted " + shortAccepted + " of " + INPUTS
                + ", of which " + validCommon + " unmutated common headers");
        assertThat(validCommon).isGreaterThan(INPUTS / 20);
    }

    /** A decode's result: the header and its length, or the exception's fields. */
    private static final class Outcome {
        RpcRdmaHeader header;
        int length;
        RpcRdmaDecodeException failure;
        int readerIndex;

        String describe() {
            if (failure != null) {
                return "refused " + failure.reason() + " " + failure.response() + " xid " + failure.hasXid() + "/"
                        + failure.xid() + " offset " + failure.offset() + " readerIndex " + readerIndex + ": "
                        + failure.getMessage();
            }
            return "decoded " + length + " bytes, readerIndex " + readerIndex + ": " + header;
        }
    }

    private static Outcome decode(byte[] input, RpcRdmaHeader into, boolean checkedOnly) {
        Outcome outcome = new Outcome();
        ByteBuf in = Unpooled.wrappedBuffer(input);
        try {
            if (checkedOnly) {
                outcome.length = RpcRdmaDecoder.decodeChecked(in, 0, input.length, into);
                in.readerIndex(outcome.length);
            } else {
                outcome.length = RpcRdmaDecoder.decode(in, into);
            }
            outcome.header = into;
        } catch (RpcRdmaDecodeException e) {
            outcome.failure = e;
        }
        outcome.readerIndex = in.readerIndex();
        return outcome;
    }
}
