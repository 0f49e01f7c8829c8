package org.rpcrdma4j.it.capture;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;

/**
 * Reads the frames of a capture file: classic libpcap (either byte order, microsecond or nanosecond timestamps) or
 * pcapng (sections in either byte order, several interfaces, Enhanced, Simple and obsolete Packet Blocks; other
 * blocks are skipped). A gzip-compressed file is recognised by its magic bytes and decompressed on the fly.
 * <p>
 * Every length read from the file is checked against what remains before it is used, so a truncated or corrupt
 * file raises {@link CaptureFormatException} rather than an {@link OutOfMemoryError} or a wrong frame.
 */
public final class PcapFile {
    /** LINKTYPE_NULL: BSD loopback, a 4-byte address family in host byte order. */
    public static final int LINKTYPE_NULL = 0;
    /** LINKTYPE_ETHERNET. */
    public static final int LINKTYPE_ETHERNET = 1;
    /** LINKTYPE_RAW: an IPv4 or IPv6 header first. */
    public static final int LINKTYPE_RAW = 101;
    /** LINKTYPE_LINUX_SLL: Linux "cooked" capture, 16-byte header. */
    public static final int LINKTYPE_LINUX_SLL = 113;
    /** LINKTYPE_LOOP: OpenBSD loopback, a 4-byte address family in network byte order. */
    public static final int LINKTYPE_LOOP = 108;
    /** LINKTYPE_IPV4. */
    public static final int LINKTYPE_IPV4 = 228;
    /** LINKTYPE_IPV6. */
    public static final int LINKTYPE_IPV6 = 229;
    /** LINKTYPE_LINUX_SLL2: Linux "cooked" capture v2, 20-byte header. */
    public static final int LINKTYPE_LINUX_SLL2 = 276;

    private static final int PCAP_MAGIC_MICROS = 0xA1B2C3D4;
    private static final int PCAP_MAGIC_NANOS = 0xA1B23C4D;
    private static final int PCAPNG_SHB = 0x0A0D0D0A;
    private static final int PCAPNG_BYTE_ORDER_MAGIC = 0x1A2B3C4D;
    private static final int PCAPNG_IDB = 1;
    private static final int PCAPNG_OBSOLETE_PB = 2;
    private static final int PCAPNG_SPB = 3;
    private static final int PCAPNG_EPB = 6;
    private static final int PCAPNG_OPT_IF_TSRESOL = 9;

    private PcapFile() {
    }

    /** Reads every frame of a (possibly gzip-compressed) pcap or pcapng file. */
    public static List<CapturedFrame> read(Path file) throws IOException {
        return parse(Files.readAllBytes(file));
    }

    /** Reads every frame of a (possibly gzip-compressed) pcap or pcapng file held in memory. */
    public static List<CapturedFrame> parse(byte[] file) throws IOException {
        byte[] bytes = isGzip(file) ? gunzip(file) : file;
        if (bytes.length < 4) {
            throw new CaptureFormatException("a capture file of " + bytes.length + " bytes has no header");
        }
        ByteBuffer b = ByteBuffer.wrap(bytes);
        int magic = b.getInt(0);
        if (magic == PCAPNG_SHB) {
            return parsePcapng(b);
        }
        if (magic == PCAP_MAGIC_MICROS || magic == PCAP_MAGIC_NANOS
                || magic == Integer.reverseBytes(PCAP_MAGIC_MICROS) || magic == Integer.reverseBytes(PCAP_MAGIC_NANOS)) {
            return parsePcap(b);
        }
        throw new CaptureFormatException(String.format("not a pcap or pcapng file (magic %08x)", magic));
    }

    private static boolean isGzip(byte[] file) {
        return file.length >= 2 && (file[0] & 0xFF) == 0x1F && (file[1] & 0xFF) == 0x8B;
    }

    private static byte[] gunzip(byte[] file) throws IOException {
        try (InputStream in = new GZIPInputStream(new java.io.ByteArrayInputStream(file))) {
            ByteArrayOutputStream out = new ByteArrayOutputStream(file.length * 4);
            in.transferTo(out);
            return out.toByteArray();
        }
    }

    // ------------------------------------------------------------------------------------------- classic pcap

    private static List<CapturedFrame> parsePcap(ByteBuffer b) throws CaptureFormatException {
        if (b.getInt(0) == Integer.reverseBytes(PCAP_MAGIC_MICROS) || b.getInt(0) == Integer.reverseBytes(PCAP_MAGIC_NANOS)) {
            b.order(ByteOrder.LITTLE_ENDIAN);
        }
        if (b.remaining() < 24) {
            throw new CaptureFormatException("pcap global header truncated");
        }
        boolean nanos = b.getInt(0) == PCAP_MAGIC_NANOS;
        int linkType = b.getInt(20) & 0x0FFFFFFF; // the upper bits may carry FCS information
        List<CapturedFrame> frames = new ArrayList<>();
        int pos = 24;
        while (pos < b.limit()) {
            if (b.limit() - pos < 16) {
                throw new CaptureFormatException("pcap record header truncated at byte " + pos);
            }
            long seconds = Integer.toUnsignedLong(b.getInt(pos));
            long fraction = Integer.toUnsignedLong(b.getInt(pos + 4));
            long captured = Integer.toUnsignedLong(b.getInt(pos + 8));
            long original = Integer.toUnsignedLong(b.getInt(pos + 12));
            pos += 16;
            if (captured > b.limit() - pos) {
                throw new CaptureFormatException("pcap record of " + captured + " bytes at byte " + (pos - 16)
                        + " runs past the end of the file");
            }
            byte[] data = new byte[(int) captured];
            b.get(pos, data);
            pos += (int) captured;
            long ts = seconds * 1_000_000_000L + (nanos ? fraction : fraction * 1000);
            frames.add(new CapturedFrame(frames.size() + 1, ts, linkType, data, (int) Math.min(original,
                    Integer.MAX_VALUE)));
        }
        return frames;
    }

    // ------------------------------------------------------------------------------------------------ pcapng

    /** Per-section state: the interfaces' link types and timestamp resolutions. */
    private static final class Section {
        final ByteOrder order;
        final List<Integer> linkTypes = new ArrayList<>();
        final List<Long> unitsPerSecond = new ArrayList<>();
        final List<Long> snapLengths = new ArrayList<>();

        Section(ByteOrder order) {
            this.order = order;
        }
    }

    private static List<CapturedFrame> parsePcapng(ByteBuffer b) throws CaptureFormatException {
        List<CapturedFrame> frames = new ArrayList<>();
        Section section = null;
        int pos = 0;
        while (pos < b.limit()) {
            if (b.limit() - pos < 12) {
                throw new CaptureFormatException("pcapng block header truncated at byte " + pos);
            }
            int type = b.order(ByteOrder.BIG_ENDIAN).getInt(pos);
            if (type == PCAPNG_SHB) {
                int bom = b.getInt(pos + 8);
                if (bom == PCAPNG_BYTE_ORDER_MAGIC) {
                    b.order(ByteOrder.BIG_ENDIAN);
                } else if (bom == Integer.reverseBytes(PCAPNG_BYTE_ORDER_MAGIC)) {
                    b.order(ByteOrder.LITTLE_ENDIAN);
                } else {
                    throw new CaptureFormatException(String.format("pcapng section at byte %d has byte-order magic %08x",
                            pos, bom));
                }
                section = new Section(b.order());
            } else if (section == null) {
                throw new CaptureFormatException("pcapng file does not start with a Section Header Block");
            } else {
                b.order(section.order);
            }
            type = b.getInt(pos);
            long total = Integer.toUnsignedLong(b.getInt(pos + 4));
            if (total < 12 || (total & 3) != 0 || total > b.limit() - pos) {
                throw new CaptureFormatException("pcapng block at byte " + pos + " has bad total length " + total);
            }
            if (Integer.toUnsignedLong(b.getInt(pos + (int) total - 4)) != total) {
                throw new CaptureFormatException("pcapng block at byte " + pos + ": trailing length differs");
            }
            int body = pos + 8;
            int bodyEnd = pos + (int) total - 4;
            switch (type) {
                case PCAPNG_IDB -> readInterface(b, section, body, bodyEnd);
                case PCAPNG_EPB -> frames.add(readEnhanced(b, section, body, bodyEnd, frames.size() + 1));
                case PCAPNG_SPB -> frames.add(readSimple(b, section, body, bodyEnd, frames.size() + 1));
                case PCAPNG_OBSOLETE_PB -> frames.add(readObsolete(b, section, body, bodyEnd, frames.size() + 1));
                default -> {
                    // SHB handled above; name resolution, statistics, decryption secrets, custom blocks: not frames
                }
            }
            pos += (int) total;
        }
        return frames;
    }

    private static void readInterface(ByteBuffer b, Section s, int body, int end) throws CaptureFormatException {
        if (end - body < 8) {
            throw new CaptureFormatException("pcapng Interface Description Block truncated at byte " + body);
        }
        s.linkTypes.add(b.getShort(body) & 0xFFFF);
        s.snapLengths.add(Integer.toUnsignedLong(b.getInt(body + 4)));
        long units = 1_000_000; // default resolution: microseconds
        int opt = body + 8;
        while (end - opt >= 4) {
            int code = b.getShort(opt) & 0xFFFF;
            int length = b.getShort(opt + 2) & 0xFFFF;
            if (code == 0) {
                break; // opt_endofopt
            }
            if (length > end - opt - 4) {
                throw new CaptureFormatException("pcapng option of " + length + " bytes runs past its block");
            }
            if (code == PCAPNG_OPT_IF_TSRESOL && length >= 1) {
                int v = b.get(opt + 4) & 0xFF;
                int exponent = v & 0x7F;
                if (exponent > 62) {
                    throw new CaptureFormatException("pcapng if_tsresol " + v + " out of range");
                }
                units = (v & 0x80) != 0 ? 1L << exponent : pow10(exponent);
            }
            opt += 4 + ((length + 3) & ~3);
        }
        s.unitsPerSecond.add(units);
    }

    private static long pow10(int exponent) throws CaptureFormatException {
        if (exponent > 18) {
            throw new CaptureFormatException("pcapng if_tsresol 10^-" + exponent + " out of range");
        }
        long v = 1;
        for (int i = 0; i < exponent; i++) {
            v *= 10;
        }
        return v;
    }

    private static CapturedFrame readEnhanced(ByteBuffer b, Section s, int body, int end, int number)
            throws CaptureFormatException {
        if (end - body < 20) {
            throw new CaptureFormatException("pcapng Enhanced Packet Block truncated at byte " + body);
        }
        int iface = b.getInt(body);
        long ts = (Integer.toUnsignedLong(b.getInt(body + 4)) << 32) | Integer.toUnsignedLong(b.getInt(body + 8));
        long captured = Integer.toUnsignedLong(b.getInt(body + 12));
        long original = Integer.toUnsignedLong(b.getInt(body + 16));
        return frame(b, s, iface, ts, body + 20, end, captured, original, number);
    }

    private static CapturedFrame readObsolete(ByteBuffer b, Section s, int body, int end, int number)
            throws CaptureFormatException {
        if (end - body < 20) {
            throw new CaptureFormatException("pcapng Packet Block truncated at byte " + body);
        }
        int iface = b.getShort(body) & 0xFFFF;
        long ts = (Integer.toUnsignedLong(b.getInt(body + 4)) << 32) | Integer.toUnsignedLong(b.getInt(body + 8));
        long captured = Integer.toUnsignedLong(b.getInt(body + 12));
        long original = Integer.toUnsignedLong(b.getInt(body + 16));
        return frame(b, s, iface, ts, body + 20, end, captured, original, number);
    }

    private static CapturedFrame readSimple(ByteBuffer b, Section s, int body, int end, int number)
            throws CaptureFormatException {
        if (end - body < 4) {
            throw new CaptureFormatException("pcapng Simple Packet Block truncated at byte " + body);
        }
        if (s.linkTypes.isEmpty()) {
            throw new CaptureFormatException("pcapng Simple Packet Block before any interface");
        }
        long original = Integer.toUnsignedLong(b.getInt(body));
        long snap = s.snapLengths.get(0);
        long captured = Math.min(original, Math.min(end - body - 4, snap == 0 ? Long.MAX_VALUE : snap));
        return frame(b, s, 0, -1, body + 4, end, captured, original, number);
    }

    private static CapturedFrame frame(ByteBuffer b, Section s, int iface, long ts, int data, int end, long captured,
                                       long original, int number) throws CaptureFormatException {
        if (iface < 0 || iface >= s.linkTypes.size()) {
            throw new CaptureFormatException("pcapng frame " + number + " names unknown interface " + iface);
        }
        if (captured > end - data) {
            throw new CaptureFormatException("pcapng frame " + number + " of " + captured
                    + " bytes runs past its block");
        }
        byte[] bytes = new byte[(int) captured];
        b.get(data, bytes);
        long nanos = -1;
        if (ts >= 0) {
            long units = s.unitsPerSecond.get(iface);
            nanos = (ts / units) * 1_000_000_000L + (ts % units) * 1_000_000_000L / units;
        }
        return new CapturedFrame(number, nanos, s.linkTypes.get(iface), bytes,
                (int) Math.min(original, Integer.MAX_VALUE));
    }
}
