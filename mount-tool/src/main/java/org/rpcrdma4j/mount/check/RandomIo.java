package org.rpcrdma4j.mount.check;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.client.NfsMount;
import org.rpcrdma4j.nfs.client.ReadReply;
import org.rpcrdma4j.nfs.client.WriteReply;

/**
 * Random I/O on one file through a mounted client ({@link NfsMount}: NFSv3 or NFSv4.x), checked against a copy kept
 * here: READs, WRITEs (UNSTABLE, DATA_SYNC, FILE_SYNC), truncations that shrink and grow, COMMITs and GETATTRs one at
 * a time, and bursts of up to 16 WRITEs on ranges apart, then up to 16 READs, in flight together. Offsets and lengths
 * are unaligned; WRITEs leave holes past the end of file (unless {@link #withoutHoles()}) and READs reach past it.
 * The caller's buffers are on the heap (at an offset into a larger array), in direct memory, or the transport's own
 * ({@code DataTransport.allocateData}: registered memory over RDMA), and a READ appends to a buffer that already holds
 * a few bytes. Every READ's count, EOF flag, bytes (and the bytes before them, untouched), every WRITE's count and
 * every size the server reports are checked; a server may return fewer bytes than asked (short READs and WRITEs are
 * legal), but never none and never the wrong ones. A failed check throws {@link DataMismatchException} naming the
 * seed and the last operations before it; the same seed against the same server runs the same operations.
 */
public final class RandomIo {
    /** The operations, as counted in the summary ({@link #toString()}). */
    private enum Kind { WRITE, READ, TRUNCATE, COMMIT, GETATTR, BURST }

    private static final int HISTORY = 48;

    private final NfsMount nfs;
    private final FileHandle fh;
    private final int maxSize;
    private final int maxIo;
    private final long seed;
    private final SplittableRandom random;
    private final byte[] model;
    private final Deque<String> history = new ArrayDeque<>();
    private final Map<Kind, Integer> counts = new EnumMap<>(Kind.class);
    private final Map<Kind, Long> nanos = new EnumMap<>(Kind.class);
    private int size;
    private long done;
    private long bytesWritten;
    private long bytesRead;
    private long shortReads;
    private boolean holes = true;

    /**
     * @param fh      an empty regular file
     * @param maxSize the largest the file grows
     * @param maxIo   the longest READ or WRITE (at most what the server takes in one call)
     */
    public RandomIo(NfsMount nfs, FileHandle fh, int maxSize, int maxIo, long seed) {
        this.nfs = nfs;
        this.fh = fh;
        this.maxSize = maxSize;
        this.maxIo = maxIo;
        this.seed = seed;
        this.random = new SplittableRandom(seed);
        this.model = new byte[maxSize];
        for (Kind k : Kind.values()) {
            counts.put(k, 0);
            nanos.put(k, 0L);
        }
    }

    /**
     * Leaves no page of the file unwritten: WRITEs start at most at the end of file, and truncations grow the file
     * only within its last page. For servers that must not be given holes to read (see
     * {@code docs/interop-linux.md}, knfsd's READ of a hole).
     */
    public RandomIo withoutHoles() {
        holes = false;
        return this;
    }

    /** Runs {@code ops} operations (a burst counts as one). */
    public RandomIo run(int ops) throws IOException {
        for (int i = 0; i < ops; i++) {
            int pick = random.nextInt(100);
            Kind kind = pick < 34 ? Kind.WRITE : pick < 70 ? Kind.READ : pick < 78 ? Kind.TRUNCATE
                    : pick < 83 ? Kind.COMMIT : pick < 90 ? Kind.GETATTR : Kind.BURST;
            long t0 = System.nanoTime();
            switch (kind) {
                case WRITE -> write();
                case READ -> read();
                case TRUNCATE -> truncate();
                case COMMIT -> commit();
                case GETATTR -> getattr();
                case BURST -> burst();
            }
            counts.merge(kind, 1, Integer::sum);
            nanos.merge(kind, System.nanoTime() - t0, Long::sum);
            done++;
        }
        return this;
    }

    /** The file as it must be now. */
    public byte[] expected() {
        return Arrays.copyOf(model, size);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("seed ").append(seed).append(", ").append(done).append(" operations:");
        for (Kind k : Kind.values()) {
            int n = counts.get(k);
            b.append(k.ordinal() == 0 ? " " : ", ").append(k.name()).append(' ').append(n);
            if (n > 0) {
                b.append(" (").append(nanos.get(k) / n / 1000).append(" us each)");
            }
        }
        b.append("; ").append(bytesWritten).append(" bytes written, ").append(bytesRead).append(" read, size ")
                .append(size);
        return shortReads == 0 ? b.toString() : b.append(", ").append(shortReads).append(" short READs").toString();
    }

    /** The whole file through {@code nfs}, read in parts of 1 MiB at most until EOF. */
    public static byte[] readBack(NfsMount nfs, String path) throws IOException {
        FileHandle fh = nfs.resolve(path);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuf part = Unpooled.buffer(1 << 20, 1 << 20);
        try {
            while (true) {
                part.clear();
                ReadReply r = nfs.read(fh, out.size(), part);
                part.readBytes(out, part.readableBytes());
                if (r.eof()) {
                    return out.toByteArray();
                }
                if (r.count() == 0) {
                    throw new DataMismatchException("a READ at " + out.size() + " short of end of file returned"
                            + " nothing");
                }
            }
        } finally {
            part.release();
        }
    }

    private int length() {
        // mostly short, now and then up to the largest
        return 1 + (random.nextInt(4) == 0 ? random.nextInt(maxIo) : random.nextInt(Math.min(maxIo, 16 * 1024)));
    }

    private ByteBuf buffer(int capacity) throws IOException {
        return switch (random.nextInt(3)) {
            case 0 -> {
                int at = random.nextInt(8);
                yield Unpooled.wrappedBuffer(new byte[capacity + at + 8], at, capacity).clear();
            }
            case 1 -> Unpooled.directBuffer(capacity, capacity);
            default -> nfs.transport().allocateData(capacity);
        };
    }

    private void write() throws IOException {
        int off = holes ? random.nextInt(maxSize) : withinFile();
        Pending w = startWrite(off, Math.min(length(), maxSize - off));
        finishWrite(w, await(w.reply));
        checkSize(w.attributes, w.what);
    }

    private void read() throws IOException {
        Pending r = startRead();
        finishRead(r, await(r.reply));
    }

    /** Where a WRITE starts without leaving a hole: anywhere within the file, a third of the time at its end. */
    private int withinFile() {
        int end = Math.min(size, maxSize - 1);
        return random.nextInt(3) == 0 ? end : random.nextInt(end + 1);
    }

    /**
     * Up to 16 WRITEs on ranges apart in flight together, then up to 16 READs anywhere. Without holes, the WRITEs
     * start within the file, and only the last may reach past its end.
     */
    private void burst() throws IOException {
        int n = 2 + random.nextInt(15);
        note("BURST of " + n);
        int[] cuts = new int[n + 1];
        for (int i = 1; i < n; i++) {
            cuts[i] = random.nextInt(holes ? maxSize : Math.min(size, maxSize - 1) + 1);
        }
        cuts[n] = maxSize;
        Arrays.sort(cuts);
        List<Pending> writes = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                int room = cuts[i + 1] - cuts[i];
                if (room == 0) {
                    continue;
                }
                int off = cuts[i] + random.nextInt(holes || i < n - 1 ? room : Math.min(room, size - cuts[i] + 1));
                writes.add(startWrite(off, Math.min(length(), cuts[i + 1] - off)));
            }
            int sizeBefore = size;
            for (Pending w : writes) {
                finishWrite(w, await(w.reply));
            }
            // each WRITE's attributes were taken while the others were in flight: at least its own end of file, at
            // most where the burst left it
            for (Pending w : writes) {
                if (w.attributes != null) {
                    long seen = w.attributes.size();
                    check(seen >= Math.max(sizeBefore, w.offset + w.count) && seen <= size, w.what
                            + ": the attributes returned say " + seen + " bytes, not within "
                            + Math.max(sizeBefore, w.offset + w.count) + " to " + size);
                }
            }
        } finally {
            releaseAll(writes);
        }
        List<Pending> reads = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                reads.add(startRead());
            }
            for (Pending r : reads) {
                finishRead(r, await(r.reply));
            }
        } finally {
            releaseAll(reads);
        }
    }

    /** A READ or WRITE sent and not yet checked. */
    private static final class Pending {
        final String what;
        final int offset;
        final int length;
        final ByteBuf buffer;
        byte[] data;
        int before;
        ByteBuf target;
        CompletableFuture<?> reply;
        boolean released;
        int count;
        /** The file's attributes a WRITE's reply carried, or null. */
        FileAttributes attributes;

        Pending(String what, int offset, int length, ByteBuf buffer) {
            this.what = what;
            this.offset = offset;
            this.length = length;
            this.buffer = buffer;
        }

        void release() {
            if (!released) {
                released = true;
                if (reply != null && !reply.isDone()) {
                    // the transport still borrows the buffer: it is dropped, not given back
                    return;
                }
                buffer.release();
            }
        }
    }

    private Pending startWrite(int off, int len) throws IOException {
        StableHow stable = StableHow.values()[random.nextInt(StableHow.values().length)];
        Pending w = new Pending("WRITE " + stable + " off " + off + " len " + len, off, len, buffer(len));
        note(w.what);
        w.data = new byte[len];
        random.nextBytes(w.data);
        w.buffer.writeBytes(w.data);
        w.reply = nfs.async().write(fh, off, w.buffer, stable);
        return w;
    }

    private void finishWrite(Pending w, Object reply) throws DataMismatchException {
        try {
            WriteReply r = (WriteReply) reply;
            check(r.count() > 0 && r.count() <= w.length, w.what + " wrote " + r.count() + " bytes");
            int wrote = (int) r.count();
            w.count = wrote;
            System.arraycopy(w.data, 0, model, w.offset, wrote);
            size = Math.max(size, w.offset + wrote);
            bytesWritten += wrote;
            check(w.buffer.readerIndex() == 0 && w.buffer.readableBytes() == w.length,
                    w.what + " moved its source's indexes");
            w.attributes = r.attributes();
        } finally {
            w.release();
        }
    }

    private Pending startRead() throws IOException {
        int off = random.nextInt(Math.min(maxSize, size + 16 * 1024) + 1);
        int len = length();
        int before = random.nextInt(5);
        Pending r = new Pending("READ off " + off + " len " + len + " (" + before + " bytes in the buffer before)",
                off, len, buffer(len + before));
        note(r.what);
        for (int i = 0; i < before; i++) {
            r.buffer.writeByte(0x5a);
        }
        r.before = before;
        // READ appends at the writer index, up to the writable bytes: exactly len of them
        r.target = r.buffer.writableBytes() == len ? r.buffer : r.buffer.slice(0, before + len).writerIndex(before);
        r.reply = nfs.async().read(fh, off, r.target);
        return r;
    }

    private void finishRead(Pending r, Object reply) throws DataMismatchException {
        try {
            ReadReply read = (ReadReply) reply;
            int available = Math.max(0, Math.min(r.length, size - r.offset));
            // a server may return fewer bytes than asked (a short READ, not at end of file), but not none
            boolean isShort = read.count() > 0 && read.count() < available && !read.eof();
            check(read.count() == available || isShort, r.what + " returned " + read.count() + " bytes (eof "
                    + read.eof() + "), " + available + " expected (size " + size + ")");
            int expect = read.count();
            if (isShort) {
                shortReads++;
            }
            check(r.target.writerIndex() == r.before + expect, r.what + " left the writer index at "
                    + r.target.writerIndex() + ", " + (r.before + expect) + " expected");
            check(isShort || read.eof() == (r.offset + expect >= size), r.what + "'s eof is " + read.eof() + " at "
                    + (r.offset + expect) + " of " + size);
            byte[] got = new byte[r.before + expect];
            r.buffer.getBytes(0, got);
            for (int i = 0; i < r.before; i++) {
                check(got[i] == 0x5a, r.what + " overwrote byte " + i + " before its destination");
            }
            int at = Arrays.mismatch(got, r.before, got.length, model, r.offset, r.offset + expect);
            if (at >= 0) {
                check(false, r.what + ": byte " + at + " (file offset " + (r.offset + at) + ") is "
                        + (got[r.before + at] & 0xff) + ", expected " + (model[r.offset + at] & 0xff) + "; "
                        + differences(got, r.before, r.offset, expect));
            }
            bytesRead += expect;
            checkSize(read.attributes(), r.what);
        } finally {
            r.release();
        }
    }

    /** Where and how {@code expect} bytes read at {@code offset} differ from the copy, in a few words. */
    private String differences(byte[] got, int from, int offset, int expect) {
        int first = -1;
        int last = -1;
        int count = 0;
        int zeros = 0;
        for (int i = 0; i < expect; i++) {
            if (got[from + i] != model[offset + i]) {
                first = first < 0 ? i : first;
                last = i;
                count++;
                zeros += got[from + i] == 0 ? 1 : 0;
            }
        }
        return count + " of the " + expect + " bytes differ, from byte " + first + " to byte " + last + ", " + zeros
                + " of them zeros read where the copy has data";
    }

    private void truncate() throws IOException {
        int to;
        if (holes) {
            to = random.nextInt(maxSize + 1);
        } else {
            // within the last page when growing; mostly a little shorter when shrinking, so the file stays large
            int page = 4096;
            int top = Math.min(maxSize, (size + page - 1) / page * page);
            int bottom = random.nextInt(16) == 0 ? 0 : Math.max(0, size - 16 * 1024);
            to = bottom + random.nextInt(top - bottom + 1);
        }
        note("SETATTR size " + to + " (from " + size + ")");
        FileAttributes after = nfs.setattr(fh, SetAttributes.NONE.withSize(to));
        if (to < size) {
            Arrays.fill(model, to, size, (byte) 0);
        }
        size = to;
        checkSize(after, "SETATTR");
    }

    private void commit() throws IOException {
        note("COMMIT");
        nfs.commit(fh, 0, 0);
    }

    private void getattr() throws IOException {
        note("GETATTR");
        long got = nfs.getattr(fh).size();
        check(got == size, "GETATTR says " + got + " bytes, " + size + " expected");
    }

    private void checkSize(FileAttributes attributes, String what) throws DataMismatchException {
        if (attributes != null) {
            check(attributes.size() == size, what + ": the attributes returned say " + attributes.size()
                    + " bytes, " + size + " expected");
        }
    }

    /** The reply of a call; each call is bounded by the client's own timeout. */
    private Object await(CompletableFuture<?> f) throws IOException {
        try {
            return f.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                // an NFS error or a broken connection, as the blocking call would have thrown it
                throw io;
            }
            throw new IOException("seed " + seed + ": " + cause + "; the last operations:\n  "
                    + String.join("\n  ", history), cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted");
        }
    }

    private static void releaseAll(List<Pending> pending) {
        for (Pending p : pending) {
            p.release();
        }
    }

    private void note(String what) {
        if (history.size() == HISTORY) {
            history.removeFirst();
        }
        history.addLast("#" + done + " " + what);
    }

    private void check(boolean ok, String what) throws DataMismatchException {
        if (!ok) {
            throw new DataMismatchException("seed " + seed + ": " + what + "; the last operations:\n  "
                    + String.join("\n  ", history));
        }
    }
}
