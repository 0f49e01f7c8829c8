package org.rpcrdma4j.codec;

import java.util.Arrays;

/** Byte-array mutations for fuzzing; positions are reduced modulo the input length, so any int is valid. */
final class Mutations {

    private Mutations() {
    }

    static byte[] flipBit(byte[] in, int at) {
        if (in.length == 0) {
            return in;
        }
        byte[] out = in.clone();
        int bit = Math.floorMod(at, in.length * 8);
        out[bit / 8] ^= (byte) (1 << (bit % 8));
        return out;
    }

    static byte[] insertByte(byte[] in, int at, byte value) {
        int i = Math.floorMod(at, in.length + 1);
        byte[] out = new byte[in.length + 1];
        System.arraycopy(in, 0, out, 0, i);
        out[i] = value;
        System.arraycopy(in, i, out, i + 1, in.length - i);
        return out;
    }

    static byte[] deleteByte(byte[] in, int at) {
        if (in.length == 0) {
            return in;
        }
        int i = Math.floorMod(at, in.length);
        byte[] out = new byte[in.length - 1];
        System.arraycopy(in, 0, out, 0, i);
        System.arraycopy(in, i + 1, out, i, in.length - i - 1);
        return out;
    }

    static byte[] truncate(byte[] in, int at) {
        return Arrays.copyOf(in, Math.floorMod(at, in.length + 1));
    }

    /** Overwrites the aligned word {@code at} (mod word count) with {@code value}: counts, discriminators, procs. */
    static byte[] overwriteWord(byte[] in, int at, int value) {
        if (in.length < 4) {
            return in;
        }
        byte[] out = in.clone();
        int i = Math.floorMod(at, in.length / 4) * 4;
        out[i] = (byte) (value >>> 24);
        out[i + 1] = (byte) (value >>> 16);
        out[i + 2] = (byte) (value >>> 8);
        out[i + 3] = (byte) value;
        return out;
    }

    /** Copies {@code length} bytes from {@code from} to {@code to} (mod length), e.g. duplicating a segment. */
    static byte[] duplicateRange(byte[] in, int from, int length, int to) {
        if (in.length == 0) {
            return in;
        }
        int f = Math.floorMod(from, in.length);
        int n = Math.min(Math.floorMod(length, 64), in.length - f);
        int t = Math.floorMod(to, in.length + 1);
        byte[] out = new byte[in.length + n];
        System.arraycopy(in, 0, out, 0, t);
        System.arraycopy(in, f, out, t, n);
        System.arraycopy(in, t, out, t + n, in.length - t);
        return out;
    }
}
