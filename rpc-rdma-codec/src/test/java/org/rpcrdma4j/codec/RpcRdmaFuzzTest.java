package org.rpcrdma4j.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fuzzing the decoder with {@value #MUTATED} mutated valid headers and {@value #RANDOM} random inputs per run.
 * Every input must decode canonically or raise {@link RpcRdmaDecodeException} (see {@link FuzzOracle}). The seed
 * changes from run to run and is printed with any failure; {@code -Drpcrdma.fuzz.seed=N} replays a run. The
 * timeouts run the test on a separate thread, so a decoder that loops forever fails the test instead of
 * blocking the build.
 */
class RpcRdmaFuzzTest {

    static final int MUTATED = 60_000;
    static final int RANDOM = 40_000;

    private static final int[] INTERESTING_WORDS = {
        0, 1, 2, 3, 4, 5, 8, 16, 255, 256, 271, 272, 273, 1024, 1_000_000,
        0x7fffffff, 0x80000000, 0xfffffffc, 0xfffffffe, 0xffffffff
    };

    private final long seed = Long.getLong("rpcrdma.fuzz.seed", System.nanoTime());

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void mutatedValidHeaders() {
        SplittableRandom random = new SplittableRandom(seed);
        List<Vectors.Vector> vectors = Vectors.valid();
        RpcRdmaHeader header = new RpcRdmaHeader();
        FuzzOracle.Tally tally = new FuzzOracle.Tally();
        for (int i = 0; i < MUTATED; i++) {
            int kind = random.nextInt(6);
            byte[] input = kind == 0 ? vectors.get(random.nextInt(vectors.size())).bytes()
                    // headers longer than the decoder's first bulk copy, so that its later copies are exercised
                    : kind == 1 ? Hex.encode(largeRandomHeader(random))
                    : Hex.encode(randomHeader(random));
            int edits = 1 + random.nextInt(4);
            for (int e = 0; e < edits; e++) {
                input = mutate(input, random);
            }
            FuzzOracle.check(input, header, "seed " + seed + " mutated input " + i, tally);
        }
        System.out.println("fuzz mutated (seed " + seed + "): " + tally);
        assertThat(tally.decoded + tally.refused).isEqualTo(MUTATED);
        assertThat(tally.decoded).as("some mutations still decode").isPositive();
        assertThat(tally.refused).as("most mutations are refused").isGreaterThan(MUTATED / 4);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void randomInputs() {
        SplittableRandom random = new SplittableRandom(seed ^ 0x5DEECE66DL);
        RpcRdmaHeader header = new RpcRdmaHeader();
        RpcRdmaHeader tight = new RpcRdmaHeader(TIGHT);
        FuzzOracle.Tally tally = new FuzzOracle.Tally();
        for (int i = 0; i < RANDOM; i++) {
            byte[] input;
            if (random.nextInt(4) == 0) {
                input = new byte[random.nextInt(200)];
                for (int b = 0; b < input.length; b++) {
                    input[b] = (byte) random.nextInt(256);
                }
            } else {
                input = grammarWalk(random);
            }
            FuzzOracle.check(input, random.nextBoolean() ? header : tight, "seed " + seed + " random input " + i,
                    tally);
        }
        System.out.println("fuzz random (seed " + seed + "): " + tally);
        assertThat(tally.decoded + tally.refused).isEqualTo(RANDOM);
        for (RpcRdmaDecodeException.Reason reason : RpcRdmaDecodeException.Reason.values()) {
            assertThat(tally.byReason[reason.ordinal()]).as("inputs refused for %s: %s", reason, tally).isPositive();
        }
        assertThat(tally.decoded).as("inputs decoded: %s", tally).isPositive();
    }

    /** Small limits, so that random inputs reach every limit check. */
    static final RpcRdmaLimits TIGHT = new RpcRdmaLimits(3, 2, 3, 6);

    /**
     * Random bytes shaped by the header grammar: each word is usually what the grammar expects there (version 1,
     * a known procedure, a 0 or 1 discriminator, an aligned position near the last one, a small count) and
     * sometimes anything, so that the walk reaches every check of the decoder.
     */
    static byte[] grammarWalk(SplittableRandom random) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.util.function.IntConsumer word = v -> {
            out.write(v >>> 24);
            out.write(v >>> 16);
            out.write(v >>> 8);
            out.write(v);
        };
        java.util.function.IntUnaryOperator usually = expected -> random.nextInt(16) == 0
                ? (random.nextBoolean() ? random.nextInt() : INTERESTING_WORDS[random.nextInt(INTERESTING_WORDS.length)])
                : expected;
        word.accept(random.nextInt());
        word.accept(usually.applyAsInt(1));
        word.accept(random.nextInt());
        int proc = usually.applyAsInt(random.nextInt(8) == 0 ? 4 : random.nextInt(2));
        word.accept(proc);
        if (proc == 4) {
            word.accept(usually.applyAsInt(1 + random.nextInt(2)));
            word.accept(random.nextInt(3));
            word.accept(random.nextInt(3));
        } else {
            int position = 0;
            while (random.nextInt(3) != 0) {
                word.accept(usually.applyAsInt(1));
                int step = random.nextInt(6);
                position = step == 0 ? position - 4 : step == 1 ? position : position + 4 * random.nextInt(32);
                word.accept(usually.applyAsInt(position));
                segmentWords(random, word);
            }
            word.accept(usually.applyAsInt(0));
            while (random.nextInt(3) != 0) {
                word.accept(usually.applyAsInt(1));
                int count = random.nextInt(5);
                word.accept(usually.applyAsInt(count));
                for (int s = 0; s < count; s++) {
                    segmentWords(random, word);
                }
            }
            word.accept(usually.applyAsInt(0));
            if (random.nextBoolean()) {
                word.accept(usually.applyAsInt(1));
                int count = random.nextInt(5);
                word.accept(usually.applyAsInt(count));
                for (int s = 0; s < count; s++) {
                    segmentWords(random, word);
                }
            } else {
                word.accept(usually.applyAsInt(0));
            }
        }
        byte[] bytes = out.toByteArray();
        return random.nextInt(4) == 0 ? Mutations.truncate(bytes, random.nextInt()) : bytes;
    }

    private static void segmentWords(SplittableRandom random, java.util.function.IntConsumer word) {
        for (int w = 0; w < 4; w++) {
            word.accept(random.nextInt());
        }
    }

    private static byte[] mutate(byte[] input, SplittableRandom random) {
        int at = random.nextInt();
        switch (random.nextInt(6)) {
            case 0:
                return Mutations.flipBit(input, at);
            case 1:
                return Mutations.insertByte(input, at, (byte) random.nextInt(256));
            case 2:
                return Mutations.deleteByte(input, at);
            case 3:
                return Mutations.truncate(input, at);
            case 4:
                return Mutations.duplicateRange(input, at, random.nextInt(), random.nextInt());
            default:
                int value = random.nextBoolean() ? random.nextInt()
                        : INTERESTING_WORDS[random.nextInt(INTERESTING_WORDS.length)];
                return Mutations.overwriteWord(input, at, value);
        }
    }

    /** A valid header of 40 to 100 segments (about 0.7 to 2 KB). */
    static RpcRdmaHeader largeRandomHeader(SplittableRandom random) {
        RpcRdmaHeader h = new RpcRdmaHeader().xid(random.nextInt()).credits(random.nextInt());
        int position = 0;
        for (int s = random.nextInt(30); s > 0; s--) {
            position += random.nextInt(3) == 0 ? 4 * random.nextInt(8) : 0;
            h.addReadSegment(position, random.nextInt(), random.nextInt(), random.nextLong());
        }
        for (int c = 1 + random.nextInt(4); c > 0; c--) {
            h.beginWriteChunk();
            for (int s = 5 + random.nextInt(15); s > 0; s--) {
                h.addWriteSegment(random.nextInt(), random.nextInt(), random.nextLong());
            }
        }
        h.beginReplyChunk();
        for (int s = random.nextInt(20); s > 0; s--) {
            h.addReplySegment(random.nextInt(), random.nextInt(), random.nextLong());
        }
        return h;
    }

    /** A valid header of random shape, for mutation. */
    static RpcRdmaHeader randomHeader(SplittableRandom random) {
        RpcRdmaHeader h = new RpcRdmaHeader().xid(random.nextInt()).credits(random.nextInt());
        switch (random.nextInt(8)) {
            case 0:
                return h.errorVers(random.nextInt(3), random.nextInt(3));
            case 1:
                return h.errorChunk();
            case 2:
                h.proc(RpcRdmaProc.RDMA_NOMSG);
                break;
            default:
                break;
        }
        int position = 0;
        for (int c = random.nextInt(4); c > 0; c--) {
            position += 4 * random.nextInt(64);
            for (int s = 1 + random.nextInt(3); s > 0; s--) {
                h.addReadSegment(position, random.nextInt(), random.nextInt(), random.nextLong());
            }
        }
        for (int c = random.nextInt(4); c > 0; c--) {
            h.beginWriteChunk();
            for (int s = random.nextInt(4); s > 0; s--) {
                h.addWriteSegment(random.nextInt(), random.nextInt(), random.nextLong());
            }
        }
        if (random.nextBoolean()) {
            h.beginReplyChunk();
            for (int s = random.nextInt(4); s > 0; s--) {
                h.addReplySegment(random.nextInt(), random.nextInt(), random.nextLong());
            }
        }
        return h;
    }
}
