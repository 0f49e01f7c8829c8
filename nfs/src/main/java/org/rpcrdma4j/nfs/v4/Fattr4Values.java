package org.rpcrdma4j.nfs.v4;

import java.util.Objects;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FsStat;
import org.rpcrdma4j.nfs.NfsTime;
import org.rpcrdma4j.nfs.xdr.Nfs3Xdr;

/**
 * What an NFSv4 server knows of one object and its file system, for {@link Fattr4#encode}: the object's
 * {@link FileAttributes} and handle, and the values of the file-system-wide attributes. Immutable; build with
 * {@link #builder(FileAttributes)}, or with {@link #builder()} for a READDIR entry whose attributes could not be read
 * (then only {@code rdattr_error} and the file-system-wide attributes can be returned).
 *
 * <p>An attribute whose value is missing is left out of the {@code fattr4} (its bit is clear in the returned
 * bitmap, as RFC 8881 section 18.7.3 allows): the object's attributes without {@link FileAttributes}, the
 * {@code filehandle} without a handle, the {@code space_*} and {@code files_*} attributes without an {@link FsStat}.
 *
 * <p>Defaults: {@code change} is the ctime in nanoseconds since the epoch with {@code change_attr_type}
 * {@link Fattr4#NFS4_CHANGE_TYPE_IS_TIME_METADATA} (a change value the caller gives has type
 * {@link Fattr4#NFS4_CHANGE_TYPE_IS_UNDEFINED} unless it says otherwise); {@code mounted_on_fileid} is the fileid;
 * {@code fsid} is the attributes' fsid as major, 0 as minor; {@code owner} and {@code owner_group} are the uid and gid
 * as decimal strings (what the Linux client expects with id mapping off); {@code maxfilesize} 2^63-1;
 * {@code maxread} and {@code maxwrite} 1 MiB; {@code maxname} 255; {@code maxlink} 65000; {@code link_support}
 * true; {@code lease_time} 90 seconds; {@code time_delta} 1 ns; {@code rdattr_error} {@code NFS4_OK}.
 */
public final class Fattr4Values {
    private final FileAttributes attributes;
    private final byte[] fileHandle;
    private final long change;
    private final boolean hasChange;
    private final int changeAttrType;
    private final long mountedOnFileid;
    private final boolean hasMountedOnFileid;
    private final long fsidMajor;
    private final long fsidMinor;
    private final boolean hasFsid;
    private final FsStat fsStat;
    private final long maxFileSize;
    private final long maxRead;
    private final long maxWrite;
    private final int maxName;
    private final int maxLink;
    private final boolean linkSupport;
    private final int leaseSeconds;
    private final NfsTime timeDelta;
    private final String owner;
    private final String ownerGroup;
    private final byte[] ownerUtf8;
    private final byte[] ownerGroupUtf8;
    private final int rdattrError;

    private Fattr4Values(Builder b) {
        this.attributes = b.attributes;
        this.fileHandle = b.fileHandle;
        FileAttributes a = b.attributes;
        this.hasChange = b.change != null || a != null;
        if (b.change != null) {
            this.change = b.change;
            this.changeAttrType = b.changeAttrType != null ? b.changeAttrType : Fattr4.NFS4_CHANGE_TYPE_IS_UNDEFINED;
        } else {
            this.change = a == null ? 0 : changeOf(a);
            this.changeAttrType = b.changeAttrType != null ? b.changeAttrType
                    : Fattr4.NFS4_CHANGE_TYPE_IS_TIME_METADATA;
        }
        this.hasMountedOnFileid = b.mountedOnFileid != null || a != null;
        this.mountedOnFileid = b.mountedOnFileid != null ? b.mountedOnFileid : a == null ? 0 : a.fileid();
        this.hasFsid = b.fsidSet || a != null;
        this.fsidMajor = b.fsidSet ? b.fsidMajor : a == null ? 0 : a.fsid();
        this.fsidMinor = b.fsidSet ? b.fsidMinor : 0;
        this.fsStat = b.fsStat;
        this.maxFileSize = b.maxFileSize;
        this.maxRead = b.maxRead;
        this.maxWrite = b.maxWrite;
        this.maxName = b.maxName;
        this.maxLink = b.maxLink;
        this.linkSupport = b.linkSupport;
        this.leaseSeconds = b.leaseSeconds;
        this.timeDelta = b.timeDelta;
        this.owner = b.owner != null ? b.owner : a == null ? null : Integer.toUnsignedString(a.uid());
        this.ownerGroup = b.ownerGroup != null ? b.ownerGroup : a == null ? null : Integer.toUnsignedString(a.gid());
        this.ownerUtf8 = owner == null ? null : Nfs3Xdr.utf8(owner);
        this.ownerGroupUtf8 = ownerGroup == null ? null : Nfs3Xdr.utf8(ownerGroup);
        this.rdattrError = b.rdattrError;
    }

    /** A builder for an object with these attributes. */
    public static Builder builder(FileAttributes attributes) {
        return new Builder(Objects.requireNonNull(attributes, "attributes"));
    }

    /**
     * A builder without object attributes: for a READDIR entry whose attributes could not be read, set
     * {@link Builder#rdattrError}.
     */
    public static Builder builder() {
        return new Builder(null);
    }

    /** @return the object's attributes, or null */
    public FileAttributes attributes() {
        return attributes;
    }

    /** @return the wire file handle (not a copy; do not modify), or null */
    public byte[] fileHandle() {
        return fileHandle;
    }

    public long change() {
        return change;
    }

    boolean hasChange() {
        return hasChange;
    }

    /** The default {@code change} of an object with attributes {@code a}: its ctime in nanoseconds since the epoch. */
    public static long changeOf(FileAttributes a) {
        return a.ctime().seconds() * 1_000_000_000L + a.ctime().nseconds();
    }

    /** @return the {@code change_attr_type4} value */
    public int changeAttrType() {
        return changeAttrType;
    }

    public long mountedOnFileid() {
        return mountedOnFileid;
    }

    boolean hasMountedOnFileid() {
        return hasMountedOnFileid;
    }

    public long fsidMajor() {
        return fsidMajor;
    }

    public long fsidMinor() {
        return fsidMinor;
    }

    boolean hasFsid() {
        return hasFsid;
    }

    /** @return the file system's space and file counts, or null */
    public FsStat fsStat() {
        return fsStat;
    }

    public long maxFileSize() {
        return maxFileSize;
    }

    public long maxRead() {
        return maxRead;
    }

    public long maxWrite() {
        return maxWrite;
    }

    public int maxName() {
        return maxName;
    }

    public int maxLink() {
        return maxLink;
    }

    /** @return the {@code link_support} attribute: whether the file system makes hard links */
    public boolean linkSupport() {
        return linkSupport;
    }

    public int leaseSeconds() {
        return leaseSeconds;
    }

    public NfsTime timeDelta() {
        return timeDelta;
    }

    /** @return the {@code owner} string, or null without one */
    public String owner() {
        return owner;
    }

    /** @return the {@code owner_group} string, or null without one */
    public String ownerGroup() {
        return ownerGroup;
    }

    byte[] ownerUtf8() {
        return ownerUtf8;
    }

    byte[] ownerGroupUtf8() {
        return ownerGroupUtf8;
    }

    /** @return the {@code rdattr_error} value ({@code nfsstat4}) */
    public int rdattrError() {
        return rdattrError;
    }

    /** Builds {@link Fattr4Values}; every setter returns the builder. */
    public static final class Builder {
        private final FileAttributes attributes;
        private byte[] fileHandle;
        private Long change;
        private Integer changeAttrType;
        private Long mountedOnFileid;
        private boolean fsidSet;
        private long fsidMajor;
        private long fsidMinor;
        private FsStat fsStat;
        private long maxFileSize = Long.MAX_VALUE;
        private long maxRead = 1 << 20;
        private long maxWrite = 1 << 20;
        private int maxName = 255;
        private int maxLink = 65000;
        private boolean linkSupport = true;
        private int leaseSeconds = 90;
        private NfsTime timeDelta = new NfsTime(0, 1);
        private String owner;
        private String ownerGroup;
        private int rdattrError = Nfs4Status.NFS4_OK;

        private Builder(FileAttributes attributes) {
            this.attributes = attributes;
        }

        /** The wire handle ({@code nfs_fh4}, at most {@link Nfs4#FHSIZE} bytes; kept, not copied). */
        public Builder fileHandle(byte[] handle) {
            if (handle != null && handle.length > Nfs4.FHSIZE) {
                throw new IllegalArgumentException("an nfs_fh4 has at most " + Nfs4.FHSIZE + " bytes, got "
                        + handle.length);
            }
            this.fileHandle = handle;
            return this;
        }

        /** The {@code change} attribute (uint64), instead of the ctime in nanoseconds. */
        public Builder change(long value) {
            this.change = value;
            return this;
        }

        /** The {@code change_attr_type4} describing {@code change} (0..4, RFC 7862 section 12.2.3). */
        public Builder changeAttrType(int type) {
            if (type < Fattr4.NFS4_CHANGE_TYPE_IS_MONOTONIC_INCR || type > Fattr4.NFS4_CHANGE_TYPE_IS_UNDEFINED) {
                throw new IllegalArgumentException("change_attr_type4 out of range: " + type);
            }
            this.changeAttrType = type;
            return this;
        }

        /** The fileid of the object the entry covers when it is a mount point; the fileid otherwise. */
        public Builder mountedOnFileid(long fileid) {
            this.mountedOnFileid = fileid;
            return this;
        }

        public Builder fsid(long major, long minor) {
            this.fsidSet = true;
            this.fsidMajor = major;
            this.fsidMinor = minor;
            return this;
        }

        /** Space and file counts; null leaves {@code space_avail/free/total} and {@code files_*} out. */
        public Builder fsStat(FsStat stat) {
            this.fsStat = stat;
            return this;
        }

        public Builder maxFileSize(long bytes) {
            this.maxFileSize = bytes;
            return this;
        }

        public Builder maxRead(long bytes) {
            this.maxRead = bytes;
            return this;
        }

        public Builder maxWrite(long bytes) {
            this.maxWrite = bytes;
            return this;
        }

        public Builder maxName(int bytes) {
            this.maxName = bytes;
            return this;
        }

        public Builder maxLink(int links) {
            this.maxLink = links;
            return this;
        }

        public Builder linkSupport(boolean supported) {
            this.linkSupport = supported;
            return this;
        }

        public Builder leaseSeconds(int seconds) {
            this.leaseSeconds = seconds;
            return this;
        }

        /** The granularity of the file system's times ({@code time_delta}). */
        public Builder timeDelta(NfsTime delta) {
            this.timeDelta = Objects.requireNonNull(delta, "delta");
            return this;
        }

        /** The {@code owner} string, instead of the uid in decimal. */
        public Builder owner(String name) {
            this.owner = name;
            return this;
        }

        /** The {@code owner_group} string, instead of the gid in decimal. */
        public Builder ownerGroup(String name) {
            this.ownerGroup = name;
            return this;
        }

        /** The {@code rdattr_error} value ({@code nfsstat4}). */
        public Builder rdattrError(int status) {
            this.rdattrError = status;
            return this;
        }

        /**
         * @throws IllegalArgumentException when an owner string is not encodable as UTF-8 or longer than
         *                                  {@link Nfs4#DECODE_MAX_NAME} bytes
         */
        public Fattr4Values build() {
            Fattr4Values v = new Fattr4Values(this);
            for (byte[] s : new byte[][] {v.ownerUtf8, v.ownerGroupUtf8}) {
                if (s != null && s.length > Nfs4.DECODE_MAX_NAME) {
                    throw new IllegalArgumentException("an owner string has at most " + Nfs4.DECODE_MAX_NAME
                            + " bytes, got " + s.length);
                }
            }
            return v;
        }
    }
}
