package org.rpcrdma4j.nfs.v4;

import static org.rpcrdma4j.nfs.v4.Fattr4.*;

import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileType;
import org.rpcrdma4j.nfs.FsStat;
import org.rpcrdma4j.nfs.NfsTime;
import org.rpcrdma4j.nfs.xdr.BadXdrException;

/**
 * The attributes of a {@code fattr4} a client received, as {@link Fattr4#decode} read them: one accessor per
 * attribute of {@link Fattr4#CLIENT_DECODABLE}, null when the server did not return it. Immutable.
 *
 * <p>Types: uint32 values are ints holding the 32 bits (as {@link FileAttributes} does), uint64 values longs holding
 * the 64 bits; an {@code nfstime4} becomes an {@link NfsTime}, its seconds clamped to NfsTime's unsigned 32-bit range
 * (a time before 1970 becomes {@link NfsTime#ZERO}).
 */
public final class Fattr4Decoded {
    private final Bitmap4 attrmask;
    private Bitmap4 supportedAttrs;
    private FileType type;
    private Integer fhExpireType;
    private Long change;
    private Long size;
    private Boolean linkSupport;
    private Boolean symlinkSupport;
    private Boolean namedAttr;
    private Long fsidMajor;
    private Long fsidMinor;
    private Boolean uniqueHandles;
    private Integer leaseTime;
    private Integer rdattrError;
    private Integer aclSupport;
    private Boolean cansettime;
    private Boolean caseInsensitive;
    private Boolean casePreserving;
    private Boolean chownRestricted;
    private byte[] fileHandle;
    private Long fileid;
    private Long filesAvail;
    private Long filesFree;
    private Long filesTotal;
    private Boolean homogeneous;
    private Long maxFileSize;
    private Integer maxLink;
    private Integer maxName;
    private Long maxRead;
    private Long maxWrite;
    private Integer mode;
    private Boolean noTrunc;
    private Integer numlinks;
    private String owner;
    private String ownerGroup;
    private Integer rawdevMajor;
    private Integer rawdevMinor;
    private Long spaceAvail;
    private Long spaceFree;
    private Long spaceTotal;
    private Long spaceUsed;
    private NfsTime timeAccess;
    private NfsTime timeDelta;
    private NfsTime timeMetadata;
    private NfsTime timeModify;
    private Long mountedOnFileid;
    private Bitmap4 suppattrExclcreat;
    private Integer changeAttrType;

    private Fattr4Decoded(Bitmap4 attrmask) {
        this.attrmask = attrmask.freeze();
    }

    /** Reads the values of the attributes of {@code mask} (all in {@link Fattr4#CLIENT_DECODABLE}). */
    static Fattr4Decoded read(Bitmap4 mask, AttrListReader r) throws BadXdrException {
        Fattr4Decoded d = new Fattr4Decoded(mask);
        for (int a = mask.nextSetBit(0); a >= 0; a = mask.nextSetBit(a + 1)) {
            String what = Fattr4.name(a);
            switch (a) {
                case FATTR4_SUPPORTED_ATTRS -> d.supportedAttrs = r.bitmap(what).freeze();
                case FATTR4_TYPE -> {
                    int t = r.uint32(what);
                    d.type = FileType.fromWire(t);
                    if (d.type == null) {
                        throw new BadXdrException("nfs_ftype4 " + t + " is not a type this client knows");
                    }
                }
                case FATTR4_FH_EXPIRE_TYPE -> d.fhExpireType = r.uint32(what);
                case FATTR4_CHANGE -> d.change = r.uint64(what);
                case FATTR4_SIZE -> d.size = r.uint64(what);
                case FATTR4_LINK_SUPPORT -> d.linkSupport = r.bool(what);
                case FATTR4_SYMLINK_SUPPORT -> d.symlinkSupport = r.bool(what);
                case FATTR4_NAMED_ATTR -> d.namedAttr = r.bool(what);
                case FATTR4_FSID -> {
                    d.fsidMajor = r.uint64(what);
                    d.fsidMinor = r.uint64(what);
                }
                case FATTR4_UNIQUE_HANDLES -> d.uniqueHandles = r.bool(what);
                case FATTR4_LEASE_TIME -> d.leaseTime = r.uint32(what);
                case FATTR4_RDATTR_ERROR -> d.rdattrError = r.uint32(what);
                case FATTR4_ACLSUPPORT -> d.aclSupport = r.uint32(what);
                case FATTR4_CANSETTIME -> d.cansettime = r.bool(what);
                case FATTR4_CASE_INSENSITIVE -> d.caseInsensitive = r.bool(what);
                case FATTR4_CASE_PRESERVING -> d.casePreserving = r.bool(what);
                case FATTR4_CHOWN_RESTRICTED -> d.chownRestricted = r.bool(what);
                case FATTR4_FILEHANDLE -> d.fileHandle = r.opaque(Nfs4.FHSIZE, what);
                case FATTR4_FILEID -> d.fileid = r.uint64(what);
                case FATTR4_FILES_AVAIL -> d.filesAvail = r.uint64(what);
                case FATTR4_FILES_FREE -> d.filesFree = r.uint64(what);
                case FATTR4_FILES_TOTAL -> d.filesTotal = r.uint64(what);
                case FATTR4_HOMOGENEOUS -> d.homogeneous = r.bool(what);
                case FATTR4_MAXFILESIZE -> d.maxFileSize = r.uint64(what);
                case FATTR4_MAXLINK -> d.maxLink = r.uint32(what);
                case FATTR4_MAXNAME -> d.maxName = r.uint32(what);
                case FATTR4_MAXREAD -> d.maxRead = r.uint64(what);
                case FATTR4_MAXWRITE -> d.maxWrite = r.uint64(what);
                case FATTR4_MODE -> d.mode = r.uint32(what);
                case FATTR4_NO_TRUNC -> d.noTrunc = r.bool(what);
                case FATTR4_NUMLINKS -> d.numlinks = r.uint32(what);
                case FATTR4_OWNER -> d.owner = r.utf8(what);
                case FATTR4_OWNER_GROUP -> d.ownerGroup = r.utf8(what);
                case FATTR4_RAWDEV -> {
                    d.rawdevMajor = r.uint32(what);
                    d.rawdevMinor = r.uint32(what);
                }
                case FATTR4_SPACE_AVAIL -> d.spaceAvail = r.uint64(what);
                case FATTR4_SPACE_FREE -> d.spaceFree = r.uint64(what);
                case FATTR4_SPACE_TOTAL -> d.spaceTotal = r.uint64(what);
                case FATTR4_SPACE_USED -> d.spaceUsed = r.uint64(what);
                case FATTR4_TIME_ACCESS -> d.timeAccess = r.time(what);
                case FATTR4_TIME_DELTA -> d.timeDelta = r.time(what);
                case FATTR4_TIME_METADATA -> d.timeMetadata = r.time(what);
                case FATTR4_TIME_MODIFY -> d.timeModify = r.time(what);
                case FATTR4_MOUNTED_ON_FILEID -> d.mountedOnFileid = r.uint64(what);
                case FATTR4_SUPPATTR_EXCLCREAT -> d.suppattrExclcreat = r.bitmap(what).freeze();
                case FATTR4_CHANGE_ATTR_TYPE -> {
                    int t = r.uint32(what);
                    if (t < NFS4_CHANGE_TYPE_IS_MONOTONIC_INCR || t > NFS4_CHANGE_TYPE_IS_UNDEFINED) {
                        throw new BadXdrException("change_attr_type4 out of range: " + t);
                    }
                    d.changeAttrType = t;
                }
                default -> throw new BadXdrException("no decoder for " + what + " (" + a + ")");
            }
        }
        return d;
    }

    // ------------------------------------------------------------------------------------------ conversions

    /**
     * The attributes as the version-neutral {@link FileAttributes}. Only {@code type} is required; a missing attribute
     * gets a default: mode 0, nlink 1, size and space used 0, rdev 0/0, fileid 0, times {@link NfsTime#ZERO}, fsid 0,
     * and uid / gid 65534 (the usual "nobody") when the owner or group is missing or not a decimal id. The fsid is the
     * major number when the minor is 0 (the usual case), else major XOR the minor rotated by 32 bits.
     *
     * @throws IllegalStateException when the server did not return {@code type}
     */
    public FileAttributes toFileAttributes() {
        if (type == null) {
            throw new IllegalStateException("the server did not return the type attribute");
        }
        long fsid = fsidMajor == null ? 0 : fsidMajor ^ Long.rotateLeft(fsidMinor, 32);
        return new FileAttributes(type,
                mode == null ? 0 : mode,
                numlinks == null ? 1 : numlinks,
                numericId(owner),
                numericId(ownerGroup),
                size == null ? 0 : size,
                spaceUsed == null ? 0 : spaceUsed,
                rawdevMajor == null ? 0 : rawdevMajor,
                rawdevMinor == null ? 0 : rawdevMinor,
                fsid,
                fileid == null ? 0 : fileid,
                timeAccess == null ? NfsTime.ZERO : timeAccess,
                timeModify == null ? NfsTime.ZERO : timeModify,
                timeMetadata == null ? NfsTime.ZERO : timeMetadata);
    }

    /** The uid 65534 ("nobody") stands in for an owner that is missing or not a decimal id. */
    public static final int NOBODY = 65534;

    private static int numericId(String s) {
        if (s == null || s.isEmpty() || s.length() > 10) {
            return NOBODY;
        }
        long v = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return NOBODY;
            }
            v = v * 10 + (c - '0');
        }
        return v > 0xFFFFFFFFL ? NOBODY : (int) v;
    }

    /**
     * @return the space and file counts as an {@link FsStat} (invarSeconds 0), or null unless all six of
     *         {@code space_total/free/avail} and {@code files_total/free/avail} were returned
     */
    public FsStat toFsStat() {
        if (spaceTotal == null || spaceFree == null || spaceAvail == null || filesTotal == null || filesFree == null
                || filesAvail == null) {
            return null;
        }
        return new FsStat(spaceTotal, spaceFree, spaceAvail, filesTotal, filesFree, filesAvail, 0);
    }

    // ------------------------------------------------------------------------------------------- accessors

    /** @return the bitmap the server returned: which attributes are present (frozen) */
    public Bitmap4 attrmask() {
        return attrmask;
    }

    public Bitmap4 supportedAttrs() {
        return supportedAttrs;
    }

    public FileType type() {
        return type;
    }

    public Integer fhExpireType() {
        return fhExpireType;
    }

    public Long change() {
        return change;
    }

    public Long size() {
        return size;
    }

    public Boolean linkSupport() {
        return linkSupport;
    }

    public Boolean symlinkSupport() {
        return symlinkSupport;
    }

    public Boolean namedAttr() {
        return namedAttr;
    }

    public Long fsidMajor() {
        return fsidMajor;
    }

    public Long fsidMinor() {
        return fsidMinor;
    }

    public Boolean uniqueHandles() {
        return uniqueHandles;
    }

    /** @return {@code lease_time} in seconds */
    public Integer leaseTime() {
        return leaseTime;
    }

    /** @return {@code rdattr_error} ({@code nfsstat4}) */
    public Integer rdattrError() {
        return rdattrError;
    }

    public Integer aclSupport() {
        return aclSupport;
    }

    public Boolean cansettime() {
        return cansettime;
    }

    public Boolean caseInsensitive() {
        return caseInsensitive;
    }

    public Boolean casePreserving() {
        return casePreserving;
    }

    public Boolean chownRestricted() {
        return chownRestricted;
    }

    /** @return the {@code filehandle} bytes (a copy), or null */
    public byte[] fileHandle() {
        return fileHandle == null ? null : fileHandle.clone();
    }

    public Long fileid() {
        return fileid;
    }

    public Long filesAvail() {
        return filesAvail;
    }

    public Long filesFree() {
        return filesFree;
    }

    public Long filesTotal() {
        return filesTotal;
    }

    public Boolean homogeneous() {
        return homogeneous;
    }

    public Long maxFileSize() {
        return maxFileSize;
    }

    public Integer maxLink() {
        return maxLink;
    }

    public Integer maxName() {
        return maxName;
    }

    public Long maxRead() {
        return maxRead;
    }

    public Long maxWrite() {
        return maxWrite;
    }

    public Integer mode() {
        return mode;
    }

    public Boolean noTrunc() {
        return noTrunc;
    }

    public Integer numlinks() {
        return numlinks;
    }

    public String owner() {
        return owner;
    }

    public String ownerGroup() {
        return ownerGroup;
    }

    /** @return {@code rawdev.specdata1} */
    public Integer rawdevMajor() {
        return rawdevMajor;
    }

    /** @return {@code rawdev.specdata2} */
    public Integer rawdevMinor() {
        return rawdevMinor;
    }

    public Long spaceAvail() {
        return spaceAvail;
    }

    public Long spaceFree() {
        return spaceFree;
    }

    public Long spaceTotal() {
        return spaceTotal;
    }

    public Long spaceUsed() {
        return spaceUsed;
    }

    public NfsTime timeAccess() {
        return timeAccess;
    }

    public NfsTime timeDelta() {
        return timeDelta;
    }

    public NfsTime timeMetadata() {
        return timeMetadata;
    }

    public NfsTime timeModify() {
        return timeModify;
    }

    public Long mountedOnFileid() {
        return mountedOnFileid;
    }

    public Bitmap4 suppattrExclcreat() {
        return suppattrExclcreat;
    }

    /** @return the {@code change_attr_type4} value */
    public Integer changeAttrType() {
        return changeAttrType;
    }

    @Override
    public String toString() {
        return "fattr4" + attrmask + (type != null ? " " + type : "") + (fileid != null ? " fileid " + fileid : "");
    }
}
