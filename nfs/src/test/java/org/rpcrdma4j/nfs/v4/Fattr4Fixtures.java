package org.rpcrdma4j.nfs.v4;

import java.util.function.Consumer;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileType;
import org.rpcrdma4j.nfs.FsStat;
import org.rpcrdma4j.nfs.NfsTime;

/** Shared pieces of the attribute codec's tests: XDR to bytes and back, sample objects. */
final class Fattr4Fixtures {
    private Fattr4Fixtures() {
    }

    static byte[] encode(Consumer<Xdr> writer) {
        try (Xdr xdr = new Xdr(64)) {
            xdr.beginEncoding();
            writer.accept(xdr);
            xdr.endEncoding();
            return xdr.getBytes();
        }
    }

    static Xdr decoding(byte[] bytes) {
        Xdr xdr = new Xdr(bytes);
        xdr.beginDecoding();
        return xdr;
    }

    /** A character device with a distinct value in every field. */
    static FileAttributes sampleAttributes() {
        return new FileAttributes(FileType.CHAR_DEVICE, 0644, 3, 1000, 100, 123_456_789_012L, 4096L * 7, 136, 5,
                0x1122_3344_5566_7788L, 0x0102_0304_0506_0708L,
                new NfsTime(1_700_000_001L, 111), new NfsTime(1_700_000_002L, 222), new NfsTime(0xFFFF_FFF0L, 333));
    }

    static FsStat sampleFsStat() {
        return new FsStat(1L << 40, 1L << 39, (1L << 39) - 4096, 1_000_000, 900_000, 899_000, 0);
    }

    static byte[] sampleHandle() {
        byte[] fh = new byte[37];
        for (int i = 0; i < fh.length; i++) {
            fh[i] = (byte) (i * 7 + 1);
        }
        return fh;
    }

    /** Values with every optional piece present and distinct from the defaults. */
    static Fattr4Values sampleValues() {
        return Fattr4Values.builder(sampleAttributes())
                .fileHandle(sampleHandle())
                .mountedOnFileid(0xAABB_CCDD_0000_0001L)
                .fsid(0x0FED_CBA9L, 42)
                .fsStat(sampleFsStat())
                .maxFileSize(1L << 50)
                .maxRead(512 * 1024)
                .maxWrite(256 * 1024)
                .maxName(250)
                .maxLink(1000)
                .leaseSeconds(60)
                .timeDelta(new NfsTime(0, 1000))
                .owner("1000")
                .ownerGroup("100")
                .build();
    }
}
