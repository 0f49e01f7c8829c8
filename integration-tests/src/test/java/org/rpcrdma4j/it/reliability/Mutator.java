package org.rpcrdma4j.it.reliability;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;

/**
 * Mutates valid messages for the fuzz campaign: one to three of bit flips, a 32-bit word replaced by a boundary value
 * (0, 1, -1, the largest and smallest int, the message length and neighbours), a random byte, a word copied over
 * another, truncation, and random bytes appended. Deterministic for a seed.
 */
final class Mutator {
    private final Random rnd;

    Mutator(long seed) {
        this.rnd = new Random(seed);
    }

    Random random() {
        return rnd;
    }

    byte[] mutate(byte[] valid) {
        byte[] b = valid.clone();
        for (int i = 0, n = 1 + rnd.nextInt(3); i < n; i++) {
            b = once(b);
        }
        return b.length == 0 ? new byte[] {(byte) rnd.nextInt()} : b;
    }

    private byte[] once(byte[] b) {
        if (b.length == 0) {
            return b;
        }
        int words = b.length / 4;
        switch (rnd.nextInt(6)) {
            case 0 -> b[rnd.nextInt(b.length)] ^= (byte) (1 << rnd.nextInt(8));
            case 1 -> {
                if (words > 0) {
                    int[] values = {0, 1, -1, Integer.MAX_VALUE, Integer.MIN_VALUE, b.length, b.length + 1,
                        b.length - 1, 0x10000, 4096, 4097};
                    ByteBuffer.wrap(b).putInt(4 * rnd.nextInt(words), values[rnd.nextInt(values.length)]);
                }
            }
            case 2 -> b[rnd.nextInt(b.length)] = (byte) rnd.nextInt();
            case 3 -> {
                if (words > 1) {
                    ByteBuffer w = ByteBuffer.wrap(b);
                    w.putInt(4 * rnd.nextInt(words), w.getInt(4 * rnd.nextInt(words)));
                }
            }
            case 4 -> {
                return Arrays.copyOf(b, rnd.nextInt(b.length));
            }
            default -> {
                byte[] tail = new byte[1 + rnd.nextInt(64)];
                rnd.nextBytes(tail);
                byte[] out = Arrays.copyOf(b, b.length + tail.length);
                System.arraycopy(tail, 0, out, b.length, tail.length);
                return out;
            }
        }
        return b;
    }
}
