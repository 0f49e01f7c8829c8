package org.rpcrdma4j.nfs.v4;

import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FsStat;
import org.rpcrdma4j.nfs.NfsTime;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.SetAttributes.TimeSetting;
import org.rpcrdma4j.nfs.xdr.BadXdrException;
import org.rpcrdma4j.nfs.xdr.Nfs3Xdr;

/**
 * NFSv4 file attributes: their numbers (RFC 8881 section 5, RFC 7862 section 12, RFC 8275, RFC 8276) and the codec
 * of {@code fattr4} for both sides.
 *
 * <pre>
 *   struct fattr4 { bitmap4 attrmask; attrlist4 attr_vals; };     attrlist4 = opaque&lt;&gt;
 * </pre>
 * The values in {@code attr_vals} follow each other in ascending attribute order, each in its own XDR type, with
 * nothing between them: an attribute whose type the reader does not know cannot be skipped.
 *
 * <h2>Server</h2>
 * {@link #encode(Bitmap4, Fattr4Values, int, XdrEncodingStream)} writes the attributes of one object for GETATTR, a
 * READDIR entry or the like: those requested that the server {@linkplain #supported(int) supports} in the minor
 * version and has a value for, with the bitmap of what it returned. GETATTR and READDIR first call
 * {@link #requireGettable(Bitmap4)}: asking for a set-only attribute is {@code NFS4ERR_INVAL} (RFC 8881 section 5.5),
 * asking for an unsupported one is not an error (it is just not returned). SETATTR, OPEN's {@code createattrs} and
 * CREATE decode their {@code fattr4} with {@link #decodeSettable(XdrDecodingStream, int)}, and answer with the
 * {@code attrsset} bitmap through {@link Bitmap4#encode}.
 *
 * <h2>Client</h2>
 * {@link #decode(XdrDecodingStream)} reads a {@code fattr4} of a reply into {@link Fattr4Decoded}: it knows the
 * attributes of {@link #CLIENT_DECODABLE}, the ones a client should ask for. {@link #encodeSettable} writes the
 * {@code fattr4} of SETATTR, OPEN and CREATE from a {@link SetAttributes}.
 *
 * <h2>Errors</h2>
 * Decoding throws {@link BadXdrException} for what breaks the XDR or its bounds: a stream too short, a bitmap of
 * more than {@link Nfs4#DECODE_MAX_BITMAP_WORDS} words, an attribute list whose length does not match its values, a
 * bool that is neither 0 nor 1, an enum out of range, an attribute the decoder has no type for (it cannot be
 * skipped). A server reports it as {@code NFS4ERR_BADXDR} for the operation; a client treats the reply as bad.
 * {@link #decodeSettable} throws {@link Nfs4Exception} for the statuses RFC 8881 gives to well-formed requests it
 * refuses: {@code NFS4ERR_ATTRNOTSUPP}, {@code NFS4ERR_INVAL}, {@code NFS4ERR_BADOWNER}, {@code NFS4ERR_FBIG}.
 */
public final class Fattr4 {

    // ----------------------------------------------------------------- REQUIRED attributes (RFC 8881 section 5.6)

    public static final int FATTR4_SUPPORTED_ATTRS = 0;
    public static final int FATTR4_TYPE = 1;
    public static final int FATTR4_FH_EXPIRE_TYPE = 2;
    public static final int FATTR4_CHANGE = 3;
    public static final int FATTR4_SIZE = 4;
    public static final int FATTR4_LINK_SUPPORT = 5;
    public static final int FATTR4_SYMLINK_SUPPORT = 6;
    public static final int FATTR4_NAMED_ATTR = 7;
    public static final int FATTR4_FSID = 8;
    public static final int FATTR4_UNIQUE_HANDLES = 9;
    public static final int FATTR4_LEASE_TIME = 10;
    public static final int FATTR4_RDATTR_ERROR = 11;
    public static final int FATTR4_FILEHANDLE = 19;
    /** REQUIRED from minor version 1 on. */
    public static final int FATTR4_SUPPATTR_EXCLCREAT = 75;

    // -------------------------------------------------------------- RECOMMENDED attributes (RFC 8881 section 5.7)

    public static final int FATTR4_ACL = 12;
    public static final int FATTR4_ACLSUPPORT = 13;
    public static final int FATTR4_ARCHIVE = 14;
    public static final int FATTR4_CANSETTIME = 15;
    public static final int FATTR4_CASE_INSENSITIVE = 16;
    public static final int FATTR4_CASE_PRESERVING = 17;
    public static final int FATTR4_CHOWN_RESTRICTED = 18;
    public static final int FATTR4_FILEID = 20;
    public static final int FATTR4_FILES_AVAIL = 21;
    public static final int FATTR4_FILES_FREE = 22;
    public static final int FATTR4_FILES_TOTAL = 23;
    public static final int FATTR4_FS_LOCATIONS = 24;
    public static final int FATTR4_HIDDEN = 25;
    public static final int FATTR4_HOMOGENEOUS = 26;
    public static final int FATTR4_MAXFILESIZE = 27;
    public static final int FATTR4_MAXLINK = 28;
    public static final int FATTR4_MAXNAME = 29;
    public static final int FATTR4_MAXREAD = 30;
    public static final int FATTR4_MAXWRITE = 31;
    public static final int FATTR4_MIMETYPE = 32;
    public static final int FATTR4_MODE = 33;
    public static final int FATTR4_NO_TRUNC = 34;
    public static final int FATTR4_NUMLINKS = 35;
    public static final int FATTR4_OWNER = 36;
    public static final int FATTR4_OWNER_GROUP = 37;
    public static final int FATTR4_QUOTA_AVAIL_HARD = 38;
    public static final int FATTR4_QUOTA_AVAIL_SOFT = 39;
    public static final int FATTR4_QUOTA_USED = 40;
    public static final int FATTR4_RAWDEV = 41;
    public static final int FATTR4_SPACE_AVAIL = 42;
    public static final int FATTR4_SPACE_FREE = 43;
    public static final int FATTR4_SPACE_TOTAL = 44;
    public static final int FATTR4_SPACE_USED = 45;
    public static final int FATTR4_SYSTEM = 46;
    public static final int FATTR4_TIME_ACCESS = 47;
    public static final int FATTR4_TIME_ACCESS_SET = 48;
    public static final int FATTR4_TIME_BACKUP = 49;
    public static final int FATTR4_TIME_CREATE = 50;
    public static final int FATTR4_TIME_DELTA = 51;
    public static final int FATTR4_TIME_METADATA = 52;
    public static final int FATTR4_TIME_MODIFY = 53;
    public static final int FATTR4_TIME_MODIFY_SET = 54;
    public static final int FATTR4_MOUNTED_ON_FILEID = 55;
    /** Attributes new in minor version 1 (56 to 76). */
    public static final int FATTR4_DIR_NOTIF_DELAY = 56;
    public static final int FATTR4_DIRENT_NOTIF_DELAY = 57;
    public static final int FATTR4_DACL = 58;
    public static final int FATTR4_SACL = 59;
    public static final int FATTR4_CHANGE_POLICY = 60;
    public static final int FATTR4_FS_STATUS = 61;
    public static final int FATTR4_FS_LAYOUT_TYPES = 62;
    public static final int FATTR4_LAYOUT_HINT = 63;
    public static final int FATTR4_LAYOUT_TYPES = 64;
    public static final int FATTR4_LAYOUT_BLKSIZE = 65;
    public static final int FATTR4_LAYOUT_ALIGNMENT = 66;
    public static final int FATTR4_FS_LOCATIONS_INFO = 67;
    public static final int FATTR4_MDSTHRESHOLD = 68;
    public static final int FATTR4_RETENTION_GET = 69;
    public static final int FATTR4_RETENTION_SET = 70;
    public static final int FATTR4_RETENTEVT_GET = 71;
    public static final int FATTR4_RETENTEVT_SET = 72;
    public static final int FATTR4_RETENTION_HOLD = 73;
    public static final int FATTR4_MODE_SET_MASKED = 74;
    public static final int FATTR4_FS_CHARSET_CAP = 76;

    // ------------------------------------------------------- minor version 2 (RFC 7862 section 12, RFC 8275, 8276)

    public static final int FATTR4_CLONE_BLKSIZE = 77;
    public static final int FATTR4_SPACE_FREED = 78;
    public static final int FATTR4_CHANGE_ATTR_TYPE = 79;
    public static final int FATTR4_SEC_LABEL = 80;
    /** RFC 8275. */
    public static final int FATTR4_MODE_UMASK = 81;
    /** RFC 8276. */
    public static final int FATTR4_XATTR_SUPPORT = 82;

    /** Highest attribute number defined by the RFCs this class follows. */
    public static final int LAST_ATTRIBUTE = FATTR4_XATTR_SUPPORT;

    // ------------------------------------------------------------------------------------------------ values

    /** {@code fh_expire_type}: handles never expire. */
    public static final int FH4_PERSISTENT = 0;
    /** {@code time_how4}. */
    public static final int SET_TO_SERVER_TIME4 = 0;
    public static final int SET_TO_CLIENT_TIME4 = 1;
    /** {@code change_attr_type4} (RFC 7862 section 12.2.3). */
    public static final int NFS4_CHANGE_TYPE_IS_MONOTONIC_INCR = 0;
    public static final int NFS4_CHANGE_TYPE_IS_VERSION_COUNTER = 1;
    public static final int NFS4_CHANGE_TYPE_IS_VERSION_COUNTER_NOPNFS = 2;
    public static final int NFS4_CHANGE_TYPE_IS_TIME_METADATA = 3;
    public static final int NFS4_CHANGE_TYPE_IS_UNDEFINED = 4;

    // ----------------------------------------------------------------------------------------- attribute sets

    /** The attributes a SETATTR (or OPEN, CREATE) may set here: size, mode, owner, owner_group and the two times. */
    public static final Bitmap4 SETTABLE = Bitmap4.of(FATTR4_SIZE, FATTR4_MODE, FATTR4_OWNER, FATTR4_OWNER_GROUP,
            FATTR4_TIME_ACCESS_SET, FATTR4_TIME_MODIFY_SET).freeze();

    /** The set-only attributes among those supported: a GETATTR may not ask for them (RFC 8881 section 5.5). */
    public static final Bitmap4 SET_ONLY = Bitmap4.of(FATTR4_TIME_ACCESS_SET, FATTR4_TIME_MODIFY_SET).freeze();

    /**
     * The value of {@code suppattr_exclcreat}: what an EXCLUSIVE4_1 OPEN may set. The times are left out since an
     * exclusive create may keep its verifier in them.
     */
    public static final Bitmap4 SUPPATTR_EXCLCREAT = Bitmap4.of(FATTR4_SIZE, FATTR4_MODE, FATTR4_OWNER,
            FATTR4_OWNER_GROUP).freeze();

    /**
     * What the server supports (minor version 2; {@link #supported(int)} trims it for earlier ones): every attribute
     * {@link #encode} can write, and the set-only {@code time_access_set} and {@code time_modify_set} (the Linux client
     * sets the times only if the server lists them in {@code supported_attrs}).
     */
    public static final Bitmap4 SERVER_SUPPORTED = Bitmap4.of(
            FATTR4_SUPPORTED_ATTRS, FATTR4_TYPE, FATTR4_FH_EXPIRE_TYPE, FATTR4_CHANGE, FATTR4_SIZE,
            FATTR4_LINK_SUPPORT, FATTR4_SYMLINK_SUPPORT, FATTR4_NAMED_ATTR, FATTR4_FSID, FATTR4_UNIQUE_HANDLES,
            FATTR4_LEASE_TIME, FATTR4_RDATTR_ERROR, FATTR4_ACLSUPPORT, FATTR4_CANSETTIME, FATTR4_CASE_INSENSITIVE,
            FATTR4_CASE_PRESERVING, FATTR4_CHOWN_RESTRICTED, FATTR4_FILEHANDLE, FATTR4_FILEID, FATTR4_FILES_AVAIL,
            FATTR4_FILES_FREE, FATTR4_FILES_TOTAL, FATTR4_HOMOGENEOUS, FATTR4_MAXFILESIZE, FATTR4_MAXLINK,
            FATTR4_MAXNAME, FATTR4_MAXREAD, FATTR4_MAXWRITE, FATTR4_MODE, FATTR4_NO_TRUNC, FATTR4_NUMLINKS,
            FATTR4_OWNER, FATTR4_OWNER_GROUP, FATTR4_RAWDEV, FATTR4_SPACE_AVAIL, FATTR4_SPACE_FREE,
            FATTR4_SPACE_TOTAL, FATTR4_SPACE_USED, FATTR4_TIME_ACCESS, FATTR4_TIME_ACCESS_SET, FATTR4_TIME_DELTA,
            FATTR4_TIME_METADATA, FATTR4_TIME_MODIFY, FATTR4_TIME_MODIFY_SET, FATTR4_MOUNTED_ON_FILEID,
            FATTR4_SUPPATTR_EXCLCREAT, FATTR4_CHANGE_ATTR_TYPE).freeze();

    /** The attributes {@link #decode} reads: {@link #SERVER_SUPPORTED} but the set-only ones. */
    public static final Bitmap4 CLIENT_DECODABLE = SERVER_SUPPORTED.andNot(SET_ONLY).freeze();

    private static final Bitmap4[] SUPPORTED_BY_MINOR = {
        onlyOfMinorVersion(SERVER_SUPPORTED, 0), onlyOfMinorVersion(SERVER_SUPPORTED, 1), SERVER_SUPPORTED,
    };

    /** The value of {@code suppattr_exclcreat} in each minor version. */
    private static final Bitmap4[] EXCLCREAT_BY_MINOR = {
        SUPPATTR_EXCLCREAT.and(SUPPORTED_BY_MINOR[0]).freeze(), SUPPATTR_EXCLCREAT.and(SUPPORTED_BY_MINOR[1]).freeze(),
        SUPPATTR_EXCLCREAT.and(SUPPORTED_BY_MINOR[2]).freeze(),
    };

    private static final String[] NAMES = {
        "supported_attrs", "type", "fh_expire_type", "change", "size", "link_support", "symlink_support",
        "named_attr", "fsid", "unique_handles", "lease_time", "rdattr_error", "acl", "aclsupport", "archive",
        "cansettime", "case_insensitive", "case_preserving", "chown_restricted", "filehandle", "fileid",
        "files_avail", "files_free", "files_total", "fs_locations", "hidden", "homogeneous", "maxfilesize",
        "maxlink", "maxname", "maxread", "maxwrite", "mimetype", "mode", "no_trunc", "numlinks", "owner",
        "owner_group", "quota_avail_hard", "quota_avail_soft", "quota_used", "rawdev", "space_avail", "space_free",
        "space_total", "space_used", "system", "time_access", "time_access_set", "time_backup", "time_create",
        "time_delta", "time_metadata", "time_modify", "time_modify_set", "mounted_on_fileid", "dir_notif_delay",
        "dirent_notif_delay", "dacl", "sacl", "change_policy", "fs_status", "fs_layout_types", "layout_hint",
        "layout_types", "layout_blksize", "layout_alignment", "fs_locations_info", "mdsthreshold", "retention_get",
        "retention_set", "retentevt_get", "retentevt_set", "retention_hold", "mode_set_masked",
        "suppattr_exclcreat", "fs_charset_cap", "clone_blksize", "space_freed", "change_attr_type", "sec_label",
        "mode_umask", "xattr_support",
    };

    private Fattr4() {
    }

    /** @return the attribute's name in RFC 8881 ({@code "time_modify"}), or {@code "attribute <n>"} */
    public static String name(int attribute) {
        return attribute >= 0 && attribute < NAMES.length ? NAMES[attribute] : "attribute " + attribute;
    }

    /**
     * @return the minor version that defined the attribute: 0 up to {@code mounted_on_fileid}, 1 up to
     *         {@code fs_charset_cap}, 2 beyond (extensions of minor version 2 included)
     */
    public static int minorVersionOf(int attribute) {
        return attribute <= FATTR4_MOUNTED_ON_FILEID ? 0 : attribute <= FATTR4_FS_CHARSET_CAP ? 1 : 2;
    }

    /**
     * @return what the server reports in {@code supported_attrs} to a COMPOUND of {@code minorVersion}: the attributes
     *         of {@link #SERVER_SUPPORTED} that minor version defines (frozen)
     * @throws IllegalArgumentException for a minor version other than 0, 1 or 2
     */
    public static Bitmap4 supported(int minorVersion) {
        if (minorVersion < 0 || minorVersion >= SUPPORTED_BY_MINOR.length) {
            throw new IllegalArgumentException("no NFSv4 minor version " + minorVersion);
        }
        return SUPPORTED_BY_MINOR[minorVersion];
    }

    private static Bitmap4 onlyOfMinorVersion(Bitmap4 b, int minorVersion) {
        Bitmap4 r = new Bitmap4();
        for (int a = b.nextSetBit(0); a >= 0; a = b.nextSetBit(a + 1)) {
            if (minorVersionOf(a) <= minorVersion) {
                r.set(a);
            }
        }
        return r.freeze();
    }

    // ======================================================================================== server: encoding

    /**
     * For GETATTR and READDIR: a request for a set-only attribute is refused (RFC 8881 section 5.5); a request for
     * any other attribute, supported or not, is fine.
     *
     * @throws Nfs4Exception {@code NFS4ERR_INVAL} when {@code requested} holds {@code time_access_set} or
     *                       {@code time_modify_set}
     */
    public static void requireGettable(Bitmap4 requested) throws Nfs4Exception {
        Bitmap4 setOnly = requested.and(SET_ONLY);
        if (!setOnly.isEmpty()) {
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_INVAL, "set-only attribute requested: "
                    + name(setOnly.nextSetBit(0)));
        }
    }

    /**
     * @return the attributes {@link #encode} returns: those of {@code requested} that are supported in the minor
     *         version, are not set-only, and have a value in {@code v}
     */
    public static Bitmap4 returned(Bitmap4 requested, Fattr4Values v, int minorVersion) {
        Bitmap4 r = requested.and(supported(minorVersion)).andNot(SET_ONLY);
        for (int a = r.nextSetBit(0); a >= 0; a = r.nextSetBit(a + 1)) {
            if (!hasValue(a, v)) {
                r.clear(a);
            }
        }
        return r;
    }

    /** @return the bytes {@link #encode} writes for these arguments */
    public static int encodedSize(Bitmap4 requested, Fattr4Values v, int minorVersion) {
        Bitmap4 r = returned(requested, v, minorVersion);
        return r.encodedSize() + 4 + attrListLength(r, v, minorVersion);
    }

    /** {@link #encode(Bitmap4, Fattr4Values, int, XdrEncodingStream)} for minor version 1. */
    public static Bitmap4 encode(Bitmap4 requested, Fattr4Values v, XdrEncodingStream xdr) {
        return encode(requested, v, 1, xdr);
    }

    /**
     * Writes a {@code fattr4}: the bitmap of the attributes returned ({@link #returned}), then their values in
     * ascending attribute order as an {@code attrlist4}.
     *
     * @return the bitmap written
     */
    public static Bitmap4 encode(Bitmap4 requested, Fattr4Values v, int minorVersion, XdrEncodingStream xdr) {
        Bitmap4 r = returned(requested, v, minorVersion);
        r.encode(xdr);
        xdr.xdrEncodeInt(attrListLength(r, v, minorVersion));
        for (int a = r.nextSetBit(0); a >= 0; a = r.nextSetBit(a + 1)) {
            encodeValue(a, v, minorVersion, xdr);
        }
        return r;
    }

    /** Writes a {@code bitmap4} (the {@code attrsset} of SETATTR, OPEN and CREATE, a request's mask). */
    public static void encodeBitmap(Bitmap4 bitmap, XdrEncodingStream xdr) {
        bitmap.encode(xdr);
    }

    /** Reads a {@code bitmap4}; see {@link Bitmap4#decode}. */
    public static Bitmap4 decodeBitmap(XdrDecodingStream xdr) throws BadXdrException {
        return Bitmap4.decode(xdr);
    }

    private static boolean hasValue(int attribute, Fattr4Values v) {
        FileAttributes a = v.attributes();
        switch (attribute) {
            case FATTR4_TYPE, FATTR4_SIZE, FATTR4_FILEID, FATTR4_MODE, FATTR4_NUMLINKS, FATTR4_RAWDEV,
                    FATTR4_SPACE_USED, FATTR4_TIME_ACCESS, FATTR4_TIME_METADATA, FATTR4_TIME_MODIFY:
                return a != null;
            case FATTR4_CHANGE:
                return v.hasChange();
            case FATTR4_FSID:
                return v.hasFsid();
            case FATTR4_MOUNTED_ON_FILEID:
                return v.hasMountedOnFileid();
            case FATTR4_FILEHANDLE:
                return v.fileHandle() != null;
            case FATTR4_OWNER:
                return v.owner() != null;
            case FATTR4_OWNER_GROUP:
                return v.ownerGroup() != null;
            case FATTR4_FILES_AVAIL, FATTR4_FILES_FREE, FATTR4_FILES_TOTAL, FATTR4_SPACE_AVAIL, FATTR4_SPACE_FREE,
                    FATTR4_SPACE_TOTAL:
                return v.fsStat() != null;
            default:
                return true;
        }
    }

    private static int attrListLength(Bitmap4 returned, Fattr4Values v, int minorVersion) {
        int n = 0;
        for (int a = returned.nextSetBit(0); a >= 0; a = returned.nextSetBit(a + 1)) {
            n += valueSize(a, v, minorVersion);
        }
        return n;
    }

    private static int valueSize(int attribute, Fattr4Values v, int minorVersion) {
        switch (attribute) {
            case FATTR4_SUPPORTED_ATTRS:
                return supported(minorVersion).encodedSize();
            case FATTR4_SUPPATTR_EXCLCREAT:
                return EXCLCREAT_BY_MINOR[minorVersion].encodedSize();
            case FATTR4_TYPE, FATTR4_FH_EXPIRE_TYPE, FATTR4_LINK_SUPPORT, FATTR4_SYMLINK_SUPPORT, FATTR4_NAMED_ATTR,
                    FATTR4_UNIQUE_HANDLES, FATTR4_LEASE_TIME, FATTR4_RDATTR_ERROR, FATTR4_ACLSUPPORT,
                    FATTR4_CANSETTIME, FATTR4_CASE_INSENSITIVE, FATTR4_CASE_PRESERVING, FATTR4_CHOWN_RESTRICTED,
                    FATTR4_HOMOGENEOUS, FATTR4_MAXLINK, FATTR4_MAXNAME, FATTR4_MODE, FATTR4_NO_TRUNC,
                    FATTR4_NUMLINKS, FATTR4_CHANGE_ATTR_TYPE:
                return 4;
            case FATTR4_CHANGE, FATTR4_SIZE, FATTR4_FILEID, FATTR4_FILES_AVAIL, FATTR4_FILES_FREE, FATTR4_FILES_TOTAL,
                    FATTR4_MAXFILESIZE, FATTR4_MAXREAD, FATTR4_MAXWRITE, FATTR4_SPACE_AVAIL, FATTR4_SPACE_FREE,
                    FATTR4_SPACE_TOTAL, FATTR4_SPACE_USED, FATTR4_MOUNTED_ON_FILEID, FATTR4_RAWDEV:
                return 8;
            case FATTR4_FSID:
                return 16;
            case FATTR4_TIME_ACCESS, FATTR4_TIME_DELTA, FATTR4_TIME_METADATA, FATTR4_TIME_MODIFY:
                return Nfs4.NFSTIME_SIZE;
            case FATTR4_FILEHANDLE:
                return Nfs3Xdr.opaqueSize(v.fileHandle().length);
            case FATTR4_OWNER:
                return Nfs3Xdr.opaqueSize(v.ownerUtf8().length);
            case FATTR4_OWNER_GROUP:
                return Nfs3Xdr.opaqueSize(v.ownerGroupUtf8().length);
            default:
                throw new IllegalStateException("no encoder for " + name(attribute));
        }
    }

    private static void encodeValue(int attribute, Fattr4Values v, int minorVersion, XdrEncodingStream xdr) {
        FileAttributes a = v.attributes();
        FsStat fs = v.fsStat();
        switch (attribute) {
            case FATTR4_SUPPORTED_ATTRS -> supported(minorVersion).encode(xdr);
            case FATTR4_TYPE -> xdr.xdrEncodeInt(a.type().wireValue());
            case FATTR4_FH_EXPIRE_TYPE -> xdr.xdrEncodeInt(FH4_PERSISTENT);
            case FATTR4_CHANGE -> xdr.xdrEncodeLong(v.change());
            case FATTR4_SIZE -> xdr.xdrEncodeLong(a.size());
            case FATTR4_LINK_SUPPORT -> xdr.xdrEncodeBoolean(v.linkSupport());
            case FATTR4_SYMLINK_SUPPORT, FATTR4_UNIQUE_HANDLES, FATTR4_CANSETTIME,
                    FATTR4_CASE_PRESERVING, FATTR4_CHOWN_RESTRICTED, FATTR4_HOMOGENEOUS, FATTR4_NO_TRUNC ->
                    xdr.xdrEncodeBoolean(true);
            case FATTR4_NAMED_ATTR, FATTR4_CASE_INSENSITIVE -> xdr.xdrEncodeBoolean(false);
            case FATTR4_FSID -> {
                xdr.xdrEncodeLong(v.fsidMajor());
                xdr.xdrEncodeLong(v.fsidMinor());
            }
            case FATTR4_LEASE_TIME -> xdr.xdrEncodeInt(v.leaseSeconds());
            case FATTR4_RDATTR_ERROR -> xdr.xdrEncodeInt(v.rdattrError());
            case FATTR4_ACLSUPPORT -> xdr.xdrEncodeInt(0);
            case FATTR4_FILEHANDLE -> Nfs3Xdr.encodeOpaque(xdr, v.fileHandle());
            case FATTR4_FILEID -> xdr.xdrEncodeLong(a.fileid());
            case FATTR4_FILES_AVAIL -> xdr.xdrEncodeLong(fs.availableFiles());
            case FATTR4_FILES_FREE -> xdr.xdrEncodeLong(fs.freeFiles());
            case FATTR4_FILES_TOTAL -> xdr.xdrEncodeLong(fs.totalFiles());
            case FATTR4_MAXFILESIZE -> xdr.xdrEncodeLong(v.maxFileSize());
            case FATTR4_MAXLINK -> xdr.xdrEncodeInt(v.maxLink());
            case FATTR4_MAXNAME -> xdr.xdrEncodeInt(v.maxName());
            case FATTR4_MAXREAD -> xdr.xdrEncodeLong(v.maxRead());
            case FATTR4_MAXWRITE -> xdr.xdrEncodeLong(v.maxWrite());
            case FATTR4_MODE -> xdr.xdrEncodeInt(a.mode() & 07777);
            case FATTR4_NUMLINKS -> xdr.xdrEncodeInt(a.nlink());
            case FATTR4_OWNER -> Nfs3Xdr.encodeOpaque(xdr, v.ownerUtf8());
            case FATTR4_OWNER_GROUP -> Nfs3Xdr.encodeOpaque(xdr, v.ownerGroupUtf8());
            case FATTR4_RAWDEV -> {
                xdr.xdrEncodeInt(a.rdevMajor());
                xdr.xdrEncodeInt(a.rdevMinor());
            }
            case FATTR4_SPACE_AVAIL -> xdr.xdrEncodeLong(fs.availableBytes());
            case FATTR4_SPACE_FREE -> xdr.xdrEncodeLong(fs.freeBytes());
            case FATTR4_SPACE_TOTAL -> xdr.xdrEncodeLong(fs.totalBytes());
            case FATTR4_SPACE_USED -> xdr.xdrEncodeLong(a.used());
            case FATTR4_TIME_ACCESS -> encodeTime(xdr, a.atime());
            case FATTR4_TIME_DELTA -> encodeTime(xdr, v.timeDelta());
            case FATTR4_TIME_METADATA -> encodeTime(xdr, a.ctime());
            case FATTR4_TIME_MODIFY -> encodeTime(xdr, a.mtime());
            case FATTR4_MOUNTED_ON_FILEID -> xdr.xdrEncodeLong(v.mountedOnFileid());
            case FATTR4_SUPPATTR_EXCLCREAT -> EXCLCREAT_BY_MINOR[minorVersion].encode(xdr);
            case FATTR4_CHANGE_ATTR_TYPE -> xdr.xdrEncodeInt(v.changeAttrType());
            default -> throw new IllegalStateException("no encoder for " + name(attribute));
        }
    }

    /** {@code nfstime4}: seconds as int64, nanoseconds as uint32. */
    static void encodeTime(XdrEncodingStream xdr, NfsTime t) {
        xdr.xdrEncodeLong(t.seconds());
        xdr.xdrEncodeInt(t.nseconds());
    }

    // ======================================================================================== client: decoding

    /**
     * Reads a {@code fattr4} of a reply.
     *
     * @throws BadXdrException when the XDR is broken (see the class comment), when the bitmap holds an attribute
     *                         outside {@link #CLIENT_DECODABLE} (its value cannot be skipped), or when a value is out
     *                         of its type's range
     */
    public static Fattr4Decoded decode(XdrDecodingStream xdr) throws BadXdrException {
        Bitmap4 mask = Bitmap4.decode(xdr);
        Bitmap4 unknown = mask.andNot(CLIENT_DECODABLE);
        if (!unknown.isEmpty()) {
            int a = unknown.nextSetBit(0);
            throw new BadXdrException("fattr4 holds " + name(a) + " (" + a + "), whose value cannot be decoded here,"
                    + " so the attributes after it cannot be found");
        }
        AttrListReader r = AttrListReader.begin(xdr);
        Fattr4Decoded d = Fattr4Decoded.read(mask, r);
        r.end();
        return d;
    }

    // ================================================================================ settable: both directions

    /** {@link #decodeSettable(XdrDecodingStream, int)} for minor version 1. */
    public static SettableAttributes decodeSettable(XdrDecodingStream xdr) throws BadXdrException, Nfs4Exception {
        return decodeSettable(xdr, 1);
    }

    /**
     * Reads the {@code fattr4} of SETATTR, OPEN's {@code createattrs} or CREATE's {@code createattrs}.
     *
     * <p>The bitmap is checked before any value is read, like the Linux server does: an attribute the server does
     * not support in the minor version (RFC-defined or not) is {@code NFS4ERR_ATTRNOTSUPP}; a supported attribute
     * that cannot be set (a get-only one such as {@code type} or {@code fileid}) is {@code NFS4ERR_INVAL} (RFC 8881
     * section 5.5). An EXCLUSIVE4_1 OPEN should then check the result against {@link #SUPPATTR_EXCLCREAT}.
     *
     * @return the attributes to set and the bitmap they came with
     * @throws BadXdrException for broken XDR, including a {@code time_how4} other than 0 or 1
     * @throws Nfs4Exception   {@code NFS4ERR_ATTRNOTSUPP} or {@code NFS4ERR_INVAL} as above; {@code NFS4ERR_BADOWNER}
     *                         for an owner or group that is not a decimal id of 0 to 2^32-1; {@code NFS4ERR_INVAL}
     *                         for a mode with bits beyond 07777 or a time outside {@link NfsTime}'s range (seconds
     *                         0 to 2^32-1, nanoseconds to 999,999,999); {@code NFS4ERR_FBIG} for a size beyond
     *                         2^63-1
     */
    public static SettableAttributes decodeSettable(XdrDecodingStream xdr, int minorVersion)
            throws BadXdrException, Nfs4Exception {
        Bitmap4 mask = Bitmap4.decode(xdr);
        AttrListReader r = AttrListReader.begin(xdr);
        Bitmap4 unsupported = mask.andNot(supported(minorVersion));
        if (!unsupported.isEmpty()) {
            int a = unsupported.nextSetBit(0);
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_ATTRNOTSUPP, name(a) + " (" + a + ") is not supported");
        }
        Bitmap4 readOnly = mask.andNot(SETTABLE);
        if (!readOnly.isEmpty()) {
            int a = readOnly.nextSetBit(0);
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_INVAL, name(a) + " (" + a + ") cannot be set");
        }
        Integer mode = null;
        Integer uid = null;
        Integer gid = null;
        Long size = null;
        TimeSetting atime = null;
        TimeSetting mtime = null;
        for (int a = mask.nextSetBit(0); a >= 0; a = mask.nextSetBit(a + 1)) {
            switch (a) {
                case FATTR4_SIZE -> {
                    long s = r.uint64("size");
                    if (s < 0) {
                        throw new Nfs4Exception(Nfs4Status.NFS4ERR_FBIG, "size beyond 2^63-1: "
                                + Long.toUnsignedString(s));
                    }
                    size = s;
                }
                case FATTR4_MODE -> {
                    int m = r.uint32("mode");
                    if ((m & ~07777) != 0) {
                        throw new Nfs4Exception(Nfs4Status.NFS4ERR_INVAL, "mode has bits beyond 07777: 0"
                                + Integer.toOctalString(m));
                    }
                    mode = m;
                }
                case FATTR4_OWNER -> uid = numericId(r.opaque(Nfs4.DECODE_MAX_NAME, "owner"), "owner");
                case FATTR4_OWNER_GROUP -> gid = numericId(r.opaque(Nfs4.DECODE_MAX_NAME, "owner_group"),
                        "owner_group");
                case FATTR4_TIME_ACCESS_SET -> atime = decodeSettime(r, "time_access_set");
                case FATTR4_TIME_MODIFY_SET -> mtime = decodeSettime(r, "time_modify_set");
                default -> throw new IllegalStateException("no decoder for settable " + name(a));
            }
        }
        r.end();
        return new SettableAttributes(new SetAttributes(mode, uid, gid, size, atime, mtime), mask);
    }

    /** An owner string that must be a decimal number of 0 to 2^32-1; returned as the int with those bits. */
    private static int numericId(byte[] s, String what) throws Nfs4Exception {
        if (s.length == 0 || s.length > 10) {
            throw badOwner(s, what);
        }
        long v = 0;
        for (byte b : s) {
            if (b < '0' || b > '9') {
                throw badOwner(s, what);
            }
            v = v * 10 + (b - '0');
        }
        if (v > 0xFFFFFFFFL) {
            throw badOwner(s, what);
        }
        return (int) v;
    }

    private static Nfs4Exception badOwner(byte[] s, String what) {
        String shown = new String(s, 0, Math.min(s.length, 64), java.nio.charset.StandardCharsets.UTF_8);
        return new Nfs4Exception(Nfs4Status.NFS4ERR_BADOWNER, what + " is not a numeric id: \"" + shown + "\"");
    }

    private static TimeSetting decodeSettime(AttrListReader r, String what) throws BadXdrException, Nfs4Exception {
        int how = r.uint32(what);
        switch (how) {
            case SET_TO_SERVER_TIME4:
                return TimeSetting.SERVER_TIME;
            case SET_TO_CLIENT_TIME4:
                long seconds = r.seconds(what);
                long nseconds = r.uint32(what) & 0xFFFFFFFFL;
                if (seconds < 0 || seconds > 0xFFFFFFFFL || nseconds > 999_999_999L) {
                    throw new Nfs4Exception(Nfs4Status.NFS4ERR_INVAL, what + " out of range: " + seconds + " s "
                            + nseconds + " ns");
                }
                return TimeSetting.client(new NfsTime(seconds, (int) nseconds));
            default:
                throw new BadXdrException(what + ": time_how4 out of range: " + how);
        }
    }

    /**
     * Writes the {@code fattr4} of SETATTR, OPEN or CREATE: size, mode, owner and owner_group (the ids in decimal),
     * time_access_set and time_modify_set, those that are not null, in that (ascending) order.
     *
     * @return the bitmap written, to compare with the server's {@code attrsset}
     */
    public static Bitmap4 encodeSettable(SetAttributes s, XdrEncodingStream xdr) {
        SetAttributes a = s == null ? SetAttributes.NONE : s;
        Bitmap4 mask = new Bitmap4();
        int length = 0;
        byte[] owner = null;
        byte[] group = null;
        if (a.size() != null) {
            mask.set(FATTR4_SIZE);
            length += 8;
        }
        if (a.mode() != null) {
            mask.set(FATTR4_MODE);
            length += 4;
        }
        if (a.uid() != null) {
            mask.set(FATTR4_OWNER);
            owner = Nfs3Xdr.utf8(Integer.toUnsignedString(a.uid()));
            length += Nfs3Xdr.opaqueSize(owner.length);
        }
        if (a.gid() != null) {
            mask.set(FATTR4_OWNER_GROUP);
            group = Nfs3Xdr.utf8(Integer.toUnsignedString(a.gid()));
            length += Nfs3Xdr.opaqueSize(group.length);
        }
        if (a.atime() != null) {
            mask.set(FATTR4_TIME_ACCESS_SET);
            length += settimeSize(a.atime());
        }
        if (a.mtime() != null) {
            mask.set(FATTR4_TIME_MODIFY_SET);
            length += settimeSize(a.mtime());
        }
        mask.encode(xdr);
        xdr.xdrEncodeInt(length);
        if (a.size() != null) {
            xdr.xdrEncodeLong(a.size());
        }
        if (a.mode() != null) {
            xdr.xdrEncodeInt(a.mode());
        }
        if (owner != null) {
            Nfs3Xdr.encodeOpaque(xdr, owner);
        }
        if (group != null) {
            Nfs3Xdr.encodeOpaque(xdr, group);
        }
        if (a.atime() != null) {
            encodeSettime(xdr, a.atime());
        }
        if (a.mtime() != null) {
            encodeSettime(xdr, a.mtime());
        }
        return mask;
    }

    private static int settimeSize(TimeSetting t) {
        return t.isServerTime() ? 4 : 4 + Nfs4.NFSTIME_SIZE;
    }

    private static void encodeSettime(XdrEncodingStream xdr, TimeSetting t) {
        if (t.isServerTime()) {
            xdr.xdrEncodeInt(SET_TO_SERVER_TIME4);
        } else {
            xdr.xdrEncodeInt(SET_TO_CLIENT_TIME4);
            encodeTime(xdr, t.time());
        }
    }
}
