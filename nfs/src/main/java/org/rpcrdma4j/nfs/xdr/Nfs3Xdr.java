package org.rpcrdma4j.nfs.xdr;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import org.dcache.oncrpc4j.grizzly.GrizzlyMemoryManager;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.BuffersBuffer;
import org.glassfish.grizzly.memory.ByteBufferWrapper;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.FileType;
import org.rpcrdma4j.nfs.NfsTime;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.SetAttributes.TimeSetting;
import org.rpcrdma4j.nfs.WccAttr;
import org.rpcrdma4j.nfs.WccData;

/**
 * Codecs for the NFSv3 types that many procedures share ({@code nfs_fh3}, {@code fattr3}, {@code post_op_attr},
 * {@code wcc_data}, {@code sattr3}, strings and opaques). Every decoder checks a length against its bound before it
 * allocates, and throws {@link BadXdrException} for anything out of bounds or out of range; oncrpc4j's own
 * decoders allocate first for some types, so they are not used for variable-length items here.
 */
public final class Nfs3Xdr {
    /** Encoded size of {@code fattr3}. */
    public static final int FATTR3_SIZE = 84;
    /** Encoded size of {@code wcc_attr}. */
    public static final int WCC_ATTR_SIZE = 24;

    private Nfs3Xdr() {
    }

    // ---- primitives ----

    /** A bool that must be 0 or 1. */
    public static boolean decodeBool(XdrDecodingStream xdr) throws BadXdrException {
        int v = decodeInt(xdr);
        if (v != 0 && v != 1) {
            throw new BadXdrException("bool must be 0 or 1, got " + v);
        }
        return v == 1;
    }

    public static int decodeInt(XdrDecodingStream xdr) throws BadXdrException {
        try {
            return xdr.xdrDecodeInt();
        } catch (java.io.IOException | RuntimeException e) {
            throw new BadXdrException("stream too short for an int: " + e.getMessage());
        }
    }

    public static long decodeLong(XdrDecodingStream xdr) throws BadXdrException {
        try {
            return xdr.xdrDecodeLong();
        } catch (java.io.IOException | RuntimeException e) {
            throw new BadXdrException("stream too short for a hyper: " + e.getMessage());
        }
    }

    /** An unsigned 32-bit value. */
    public static long decodeUint(XdrDecodingStream xdr) throws BadXdrException {
        return decodeInt(xdr) & 0xFFFFFFFFL;
    }

    /** Reads a length word and checks it against {@code max} (as unsigned) before anything is allocated. */
    public static int decodeLength(XdrDecodingStream xdr, int max, String what) throws BadXdrException {
        long length = decodeUint(xdr);
        if (length > max) {
            throw new BadXdrException(what + " of " + length + " bytes exceeds its bound of " + max);
        }
        return (int) length;
    }

    /** Fixed-length opaque of {@code length} bytes (already bounded by the caller). */
    public static byte[] decodeFixedOpaque(XdrDecodingStream xdr, int length) throws BadXdrException {
        byte[] bytes = new byte[length];
        if (length > 0) {
            try {
                xdr.xdrDecodeOpaque(bytes, 0, length);
            } catch (java.io.IOException | RuntimeException e) {
                throw new BadXdrException("stream too short for " + length + " opaque bytes");
            }
        }
        return bytes;
    }

    /** Variable-length opaque of at most {@code max} bytes. */
    public static byte[] decodeOpaque(XdrDecodingStream xdr, int max, String what) throws BadXdrException {
        return decodeFixedOpaque(xdr, decodeLength(xdr, max, what));
    }

    public static void encodeOpaque(XdrEncodingStream xdr, byte[] bytes) {
        xdr.xdrEncodeInt(bytes.length);
        xdr.xdrEncodeOpaque(bytes, 0, bytes.length);
    }

    /** A UTF-8 string of at most {@code max} bytes; bytes that are not UTF-8 are garbage. */
    public static String decodeString(XdrDecodingStream xdr, int max, String what) throws BadXdrException {
        byte[] bytes = decodeOpaque(xdr, max, what);
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new BadXdrException(what + " is not UTF-8");
        }
    }

    /** Encodes a string as UTF-8; the caller bounds its length. */
    public static void encodeString(XdrEncodingStream xdr, String s) {
        encodeOpaque(xdr, utf8(s));
    }

    /** The UTF-8 bytes of {@code s}; unpaired surrogates are an error rather than silently replaced. */
    public static byte[] utf8(String s) {
        try {
            ByteBuffer b = StandardCharsets.UTF_8.newEncoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .encode(CharBuffer.wrap(s));
            byte[] bytes = new byte[b.remaining()];
            b.get(bytes);
            return bytes;
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("not encodable as UTF-8: " + s, e);
        }
    }

    /** Length in bytes of {@code s} encoded as UTF-8. */
    public static int utf8Length(String s) {
        return utf8(s).length;
    }

    /**
     * Encodes {@code data} (its remaining bytes) as a variable-length opaque without copying it when the stream is
     * an oncrpc4j {@link Xdr} (the bytes are referenced until the message is sent): borrows {@code data}, whose
     * content must not change until then.
     */
    public static void encodeDataShallow(XdrEncodingStream xdr, ByteBuffer data) {
        if (xdr instanceof Xdr flat && data.remaining() > 0) {
            flat.xdrEncodeShallowByteBuffer(data.slice());
        } else {
            xdr.xdrEncodeByteBuffer(data.duplicate());
        }
    }

    /**
     * Encodes the bytes of {@code pieces} (each from its position to its limit, in order; none for no bytes) as one
     * variable-length opaque, by reference when the stream is an oncrpc4j {@link Xdr} (the pieces must stay unchanged
     * until the message has been sent), else copied.
     */
    public static void encodeDataShallow(XdrEncodingStream xdr, ByteBuffer[] pieces) {
        int count = pieces.length;
        if (count == 1) {
            encodeDataShallow(xdr, pieces[0]);
            return;
        }
        int total = 0;
        for (int i = 0; i < count; i++) {
            total += pieces[i].remaining();
        }
        if (xdr instanceof Xdr flat && total > 0) {
            Buffer[] wrapped = new Buffer[count];
            for (int i = 0; i < count; i++) {
                ByteBufferWrapper w = new ByteBufferWrapper(pieces[i].slice());
                w.allowBufferDispose(true);
                wrapped[i] = w;
            }
            BuffersBuffer data = BuffersBuffer.create(GrizzlyMemoryManager.getDefaultMemoryManager(), wrapped);
            data.allowBufferDispose(true);
            flat.xdrEncodeShallowByteBuffer(data);
        } else {
            ByteBuffer joined = ByteBuffer.allocate(total);
            for (int i = 0; i < count; i++) {
                joined.put(pieces[i].duplicate());
            }
            xdr.xdrEncodeByteBuffer(joined.flip());
        }
    }

    /** Encodes the readable bytes of {@code data} as a variable-length opaque, without copying where possible. */
    public static void encodeDataShallow(XdrEncodingStream xdr, ByteBuf data) {
        encodeDataShallow(xdr, data.nioBuffer(data.readerIndex(), data.readableBytes()));
    }

    /**
     * Decodes a variable-length opaque of at most {@code max} bytes as a view of the stream's buffer (no copy); the
     * view is valid only while the stream's buffer is.
     */
    public static ByteBuffer decodeDataView(XdrDecodingStream xdr, int max, String what) throws BadXdrException {
        ByteBuffer view;
        try {
            view = xdr.xdrDecodeByteBuffer();
        } catch (java.io.IOException | RuntimeException e) {
            // oncrpc4j checks the length against the bytes left only after adding the padding, which overflows for
            // lengths near 2^31 and then fails inside the buffer: either way the length was beyond the data
            throw new BadXdrException(what + ": length beyond the data (" + e.getMessage() + ")");
        }
        if (view.remaining() > max) {
            throw new BadXdrException(what + " of " + view.remaining() + " bytes exceeds its bound of " + max);
        }
        return view;
    }

    // ---- nfs_fh3 ----

    public static FileHandle decodeFileHandle(XdrDecodingStream xdr) throws BadXdrException {
        return FileHandle.wrap(decodeOpaque(xdr, Nfs3.FHSIZE, "nfs_fh3"));
    }

    public static void encodeFileHandle(XdrEncodingStream xdr, FileHandle fh) {
        encodeOpaque(xdr, fh.unsafeBytes());
    }

    /** {@code post_op_fh3}: an optional handle. */
    public static FileHandle decodePostOpFileHandle(XdrDecodingStream xdr) throws BadXdrException {
        return decodeBool(xdr) ? decodeFileHandle(xdr) : null;
    }

    public static void encodePostOpFileHandle(XdrEncodingStream xdr, FileHandle fh) {
        xdr.xdrEncodeBoolean(fh != null);
        if (fh != null) {
            encodeFileHandle(xdr, fh);
        }
    }

    // ---- nfstime3, fattr3 ----

    public static NfsTime decodeTime(XdrDecodingStream xdr) throws BadXdrException {
        long seconds = decodeUint(xdr);
        long nseconds = decodeUint(xdr);
        if (nseconds > 999_999_999L) {
            throw new BadXdrException("nfstime3 nseconds out of range: " + nseconds);
        }
        return new NfsTime(seconds, (int) nseconds);
    }

    public static void encodeTime(XdrEncodingStream xdr, NfsTime time) {
        xdr.xdrEncodeInt((int) time.seconds());
        xdr.xdrEncodeInt(time.nseconds());
    }

    public static FileAttributes decodeFattr(XdrDecodingStream xdr) throws BadXdrException {
        int typeValue = decodeInt(xdr);
        FileType type = FileType.fromWire(typeValue);
        if (type == null) {
            throw new BadXdrException("ftype3 out of range: " + typeValue);
        }
        int mode = decodeInt(xdr);
        int nlink = decodeInt(xdr);
        int uid = decodeInt(xdr);
        int gid = decodeInt(xdr);
        long size = decodeLong(xdr);
        long used = decodeLong(xdr);
        int major = decodeInt(xdr);
        int minor = decodeInt(xdr);
        long fsid = decodeLong(xdr);
        long fileid = decodeLong(xdr);
        NfsTime atime = decodeTime(xdr);
        NfsTime mtime = decodeTime(xdr);
        NfsTime ctime = decodeTime(xdr);
        return new FileAttributes(type, mode, nlink, uid, gid, size, used, major, minor, fsid, fileid, atime, mtime,
                ctime);
    }

    public static void encodeFattr(XdrEncodingStream xdr, FileAttributes a) {
        xdr.xdrEncodeInt(a.type().wireValue());
        xdr.xdrEncodeInt(a.mode());
        xdr.xdrEncodeInt(a.nlink());
        xdr.xdrEncodeInt(a.uid());
        xdr.xdrEncodeInt(a.gid());
        xdr.xdrEncodeLong(a.size());
        xdr.xdrEncodeLong(a.used());
        xdr.xdrEncodeInt(a.rdevMajor());
        xdr.xdrEncodeInt(a.rdevMinor());
        xdr.xdrEncodeLong(a.fsid());
        xdr.xdrEncodeLong(a.fileid());
        encodeTime(xdr, a.atime());
        encodeTime(xdr, a.mtime());
        encodeTime(xdr, a.ctime());
    }

    /** {@code post_op_attr}: optional attributes; null when absent. */
    public static FileAttributes decodePostOpAttr(XdrDecodingStream xdr) throws BadXdrException {
        return decodeBool(xdr) ? decodeFattr(xdr) : null;
    }

    public static void encodePostOpAttr(XdrEncodingStream xdr, FileAttributes a) {
        xdr.xdrEncodeBoolean(a != null);
        if (a != null) {
            encodeFattr(xdr, a);
        }
    }

    // ---- wcc_data ----

    public static WccData decodeWcc(XdrDecodingStream xdr) throws BadXdrException {
        WccAttr before = null;
        if (decodeBool(xdr)) {
            long size = decodeLong(xdr);
            NfsTime mtime = decodeTime(xdr);
            NfsTime ctime = decodeTime(xdr);
            before = new WccAttr(size, mtime, ctime);
        }
        return new WccData(before, decodePostOpAttr(xdr));
    }

    public static void encodeWcc(XdrEncodingStream xdr, WccData wcc) {
        WccData w = wcc == null ? WccData.NONE : wcc;
        xdr.xdrEncodeBoolean(w.before() != null);
        if (w.before() != null) {
            xdr.xdrEncodeLong(w.before().size());
            encodeTime(xdr, w.before().mtime());
            encodeTime(xdr, w.before().ctime());
        }
        encodePostOpAttr(xdr, w.after());
    }

    // ---- sattr3 ----

    public static SetAttributes decodeSattr(XdrDecodingStream xdr) throws BadXdrException {
        Integer mode = decodeBool(xdr) ? decodeInt(xdr) : null;
        Integer uid = decodeBool(xdr) ? decodeInt(xdr) : null;
        Integer gid = decodeBool(xdr) ? decodeInt(xdr) : null;
        Long size = null;
        if (decodeBool(xdr)) {
            long s = decodeLong(xdr);
            if (s < 0) {
                throw new BadXdrException("size3 beyond 2^63-1 is not supported: " + Long.toUnsignedString(s));
            }
            size = s;
        }
        TimeSetting atime = decodeTimeSetting(xdr, "set_atime");
        TimeSetting mtime = decodeTimeSetting(xdr, "set_mtime");
        return new SetAttributes(mode, uid, gid, size, atime, mtime);
    }

    private static TimeSetting decodeTimeSetting(XdrDecodingStream xdr, String what) throws BadXdrException {
        int how = decodeInt(xdr);
        switch (how) {
            case 0:
                return null;
            case 1:
                return TimeSetting.SERVER_TIME;
            case 2:
                return TimeSetting.client(decodeTime(xdr));
            default:
                throw new BadXdrException(what + ": time_how out of range: " + how);
        }
    }

    public static void encodeSattr(XdrEncodingStream xdr, SetAttributes s) {
        SetAttributes a = s == null ? SetAttributes.NONE : s;
        encodeOptionalInt(xdr, a.mode());
        encodeOptionalInt(xdr, a.uid());
        encodeOptionalInt(xdr, a.gid());
        xdr.xdrEncodeBoolean(a.size() != null);
        if (a.size() != null) {
            xdr.xdrEncodeLong(a.size());
        }
        encodeTimeSetting(xdr, a.atime());
        encodeTimeSetting(xdr, a.mtime());
    }

    private static void encodeOptionalInt(XdrEncodingStream xdr, Integer v) {
        xdr.xdrEncodeBoolean(v != null);
        if (v != null) {
            xdr.xdrEncodeInt(v);
        }
    }

    private static void encodeTimeSetting(XdrEncodingStream xdr, TimeSetting t) {
        if (t == null) {
            xdr.xdrEncodeInt(0);
        } else if (t.isServerTime()) {
            xdr.xdrEncodeInt(1);
        } else {
            xdr.xdrEncodeInt(2);
            encodeTime(xdr, t.time());
        }
    }

    /** Encoded size of an opaque or string of {@code length} bytes with its length word and padding. */
    public static int opaqueSize(int length) {
        return 4 + ((length + 3) & ~3);
    }
}
