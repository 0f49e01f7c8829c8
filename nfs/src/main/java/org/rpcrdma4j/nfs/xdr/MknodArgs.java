package org.rpcrdma4j.nfs.xdr;

import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.FileType;
import org.rpcrdma4j.nfs.SetAttributes;

/** MKNOD3args: where and {@code mknoddata3} (a device with its numbers, a socket or FIFO, or another type). */
public final class MknodArgs implements XdrAble {
    public FileHandle dir;
    public String name;
    public FileType type;
    /** For CHR, BLK, SOCK and FIFO. */
    public SetAttributes attributes;
    public int major;
    public int minor;

    public MknodArgs() {
    }

    public MknodArgs(FileHandle dir, String name, FileType type, SetAttributes attributes, int major, int minor) {
        this.dir = dir;
        this.name = name;
        this.type = type;
        this.attributes = attributes;
        this.major = major;
        this.minor = minor;
    }

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws BadXdrException {
        dir = Nfs3Xdr.decodeFileHandle(xdr);
        name = Nfs3Xdr.decodeString(xdr, Nfs3.DECODE_MAX_NAME, "filename3");
        int t = Nfs3Xdr.decodeInt(xdr);
        type = FileType.fromWire(t);
        if (type == null) {
            throw new BadXdrException("ftype3 out of range: " + t);
        }
        switch (type) {
            case CHAR_DEVICE, BLOCK_DEVICE -> {
                attributes = Nfs3Xdr.decodeSattr(xdr);
                major = Nfs3Xdr.decodeInt(xdr);
                minor = Nfs3Xdr.decodeInt(xdr);
            }
            case SOCKET, FIFO -> attributes = Nfs3Xdr.decodeSattr(xdr);
            default -> attributes = null;
        }
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) {
        Nfs3Xdr.encodeFileHandle(xdr, dir);
        Nfs3Xdr.encodeString(xdr, name);
        xdr.xdrEncodeInt(type.wireValue());
        switch (type) {
            case CHAR_DEVICE, BLOCK_DEVICE -> {
                Nfs3Xdr.encodeSattr(xdr, attributes);
                xdr.xdrEncodeInt(major);
                xdr.xdrEncodeInt(minor);
            }
            case SOCKET, FIFO -> Nfs3Xdr.encodeSattr(xdr, attributes);
            default -> {
            }
        }
    }
}
