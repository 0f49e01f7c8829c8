package org.rpcrdma4j.nfs.testing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.SplittableRandom;

/** Test data: deterministic pseudo-random bytes and digests of files. */
public final class Bytes {
    private Bytes() {
    }

    public static byte[] random(int size, long seed) {
        byte[] b = new byte[size];
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < size; ) {
            long v = r.nextLong();
            for (int k = 0; k < 8 && i < size; k++, i++) {
                b[i] = (byte) (v >>> (8 * k));
            }
        }
        return b;
    }

    /** Writes {@code size} pseudo-random bytes to {@code file} in 1 MiB pieces. */
    public static void writeRandomFile(Path file, long size, long seed) throws IOException {
        try (var out = Files.newOutputStream(file)) {
            long done = 0;
            int piece = 0;
            while (done < size) {
                int n = (int) Math.min(1 << 20, size - done);
                out.write(random(n, seed + piece++));
                done += n;
            }
        }
    }

    public static String sha256(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[1 << 16];
            int n;
            while ((n = in.read(buf)) > 0) {
                md.update(buf, 0, n);
            }
            return HexFormat.of().formatHex(md.digest());
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }
}
