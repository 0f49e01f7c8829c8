package org.rpcrdma4j.nfs.v4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.rpcrdma4j.nfs.v4.Fattr4.*;
import static org.rpcrdma4j.nfs.v4.Fattr4Fixtures.encode;
import static org.rpcrdma4j.nfs.v4.Fattr4Fixtures.sampleAttributes;
import static org.rpcrdma4j.nfs.v4.Fattr4Fixtures.sampleHandle;
import static org.rpcrdma4j.nfs.v4.Fattr4Fixtures.sampleValues;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileType;
import org.rpcrdma4j.nfs.NfsTime;

/** The server side: {@code fattr4} encodings checked word by word against hand-written XDR. */
class Fattr4EncodeTest {

    private static byte[] encoded(Bitmap4 requested, Fattr4Values v, int minor) {
        return encode(x -> Fattr4.encode(requested, v, minor, x));
    }

    @Test
    void aSmallSetByteForByte() {
        Fattr4Values v = Fattr4Values.builder(sampleAttributes()).build();
        Bitmap4 requested = Bitmap4.of(FATTR4_OWNER, FATTR4_MODE, FATTR4_FSID, FATTR4_SIZE, FATTR4_CHANGE,
                FATTR4_TYPE);
        byte[] expected = new XdrWriter()
                .word(2).word(0x0000_011A).word(0x0000_0012) // bitmap: type, change, size, fsid | mode, owner
                .word(48)                                      // attrlist4 length
                .word(4)                                       // type: NF4CHR
                .hyper(4_294_967_280_000_000_333L)             // change: ctime in nanoseconds
                .hyper(123_456_789_012L)                       // size
                .hyper(0x1122_3344_5566_7788L).hyper(0)        // fsid: major, minor
                .word(0644)                                    // mode
                .word(4).raw("1000".getBytes(StandardCharsets.US_ASCII)) // owner: the uid in decimal
                .bytes();
        assertThat(encoded(requested, v, 1)).isEqualTo(expected);
        assertThat(Fattr4.encodedSize(requested, v, 1)).isEqualTo(expected.length);
    }

    @Test
    void laterWordsTimesSpecdataAndNestedBitmapsByteForByte() {
        Bitmap4 requested = Bitmap4.of(FATTR4_CHANGE_ATTR_TYPE, FATTR4_SUPPATTR_EXCLCREAT, FATTR4_MOUNTED_ON_FILEID,
                FATTR4_TIME_MODIFY, FATTR4_TIME_ACCESS, FATTR4_RAWDEV);
        byte[] expected = new XdrWriter()
                .word(3).word(0).word((1 << 9) | (1 << 15) | (1 << 21) | (1 << 23)).word((1 << 11) | (1 << 15))
                .word(56)
                .word(136).word(5)                              // rawdev: specdata4
                .hyper(1_700_000_001L).word(111)                // time_access: nfstime4
                .hyper(1_700_000_002L).word(222)                // time_modify
                .hyper(0xAABB_CCDD_0000_0001L)                  // mounted_on_fileid
                .word(2).word(1 << 4).word((1 << 1) | (1 << 4) | (1 << 5)) // suppattr_exclcreat: size | mode, owners
                .word(NFS4_CHANGE_TYPE_IS_TIME_METADATA)        // change_attr_type
                .bytes();
        assertThat(encoded(requested, sampleValues(), 2)).isEqualTo(expected);
    }

    @Test
    void fileSystemPropertiesByteForByte() {
        Bitmap4 requested = Bitmap4.of(FATTR4_FH_EXPIRE_TYPE, FATTR4_LINK_SUPPORT, FATTR4_SYMLINK_SUPPORT,
                FATTR4_NAMED_ATTR, FATTR4_UNIQUE_HANDLES, FATTR4_LEASE_TIME, FATTR4_RDATTR_ERROR, FATTR4_ACLSUPPORT,
                FATTR4_CANSETTIME, FATTR4_CASE_INSENSITIVE, FATTR4_CASE_PRESERVING, FATTR4_CHOWN_RESTRICTED,
                FATTR4_FILEHANDLE, FATTR4_HOMOGENEOUS, FATTR4_MAXFILESIZE, FATTR4_MAXLINK, FATTR4_MAXNAME,
                FATTR4_MAXREAD, FATTR4_MAXWRITE, FATTR4_NO_TRUNC, FATTR4_TIME_DELTA);
        XdrWriter body = new XdrWriter()
                .word(FH4_PERSISTENT).bool(true).bool(true).bool(false).bool(true).word(60).word(0).word(0)
                .bool(true).bool(false).bool(true).bool(true)
                .opaque(sampleHandle())
                .bool(true).hyper(1L << 50).word(1000).word(250).hyper(512 * 1024).hyper(256 * 1024)
                .bool(true)
                .hyper(0).word(1000);
        byte[] expected = new XdrWriter()
                .word(2).word(0xFC0F_AEE4).word(1 << 2 | 1 << 19)
                .word(body.length()).raw(body.bytes())
                .bytes();
        assertThat(requested.word(0)).isEqualTo(0xFC0F_AEE4);
        assertThat(encoded(requested, sampleValues(), 1)).isEqualTo(expected);
    }

    @Test
    void supportedAttrsPerMinorVersion() {
        Bitmap4 requested = Bitmap4.of(FATTR4_SUPPORTED_ATTRS);
        int word0 = 0xFCFF_AFFF;
        int word1 = 0x00F9_BE3E;
        assertThat(encoded(requested, sampleValues(), 0))
                .isEqualTo(new XdrWriter().word(1).word(1).word(12).word(2).word(word0).word(word1).bytes());
        assertThat(encoded(requested, sampleValues(), 1))
                .isEqualTo(new XdrWriter().word(1).word(1).word(16).word(3).word(word0).word(word1).word(0x800)
                        .bytes());
        assertThat(encoded(requested, sampleValues(), 2))
                .isEqualTo(new XdrWriter().word(1).word(1).word(16).word(3).word(word0).word(word1).word(0x8800)
                        .bytes());
    }

    @Test
    void theThreeArgumentEncodeIsMinorVersionOne() {
        Bitmap4 requested = Bitmap4.of(FATTR4_TYPE, FATTR4_CHANGE_ATTR_TYPE);
        byte[] bytes = encode(x -> Fattr4.encode(requested, sampleValues(), x));
        assertThat(bytes).isEqualTo(encoded(requested, sampleValues(), 1));
        assertThat(bytes).isEqualTo(new XdrWriter().word(1).word(2).word(4).word(4).bytes());
    }

    @Test
    void onlyRequestedSupportedAttributesAreReturned() {
        Bitmap4 requested = Bitmap4.of(FATTR4_TYPE, FATTR4_ACL, FATTR4_ARCHIVE, FATTR4_FS_LOCATIONS,
                FATTR4_MIMETYPE, FATTR4_QUOTA_USED, FATTR4_TIME_CREATE, FATTR4_TIME_ACCESS_SET,
                FATTR4_TIME_MODIFY_SET, FATTR4_SEC_LABEL, FATTR4_XATTR_SUPPORT, 83, 200, Bitmap4.MAX_ATTRIBUTE);
        Bitmap4[] written = new Bitmap4[1];
        byte[] bytes = encode(x -> written[0] = Fattr4.encode(requested, sampleValues(), 2, x));
        assertThat(written[0]).isEqualTo(Bitmap4.of(FATTR4_TYPE));
        assertThat(Fattr4.returned(requested, sampleValues(), 2)).isEqualTo(Bitmap4.of(FATTR4_TYPE));
        assertThat(bytes).isEqualTo(new XdrWriter().word(1).word(2).word(4).word(4).bytes());
        // and nothing that was not requested, however supported
        assertThat(Fattr4.returned(Bitmap4.of(FATTR4_MODE), sampleValues(), 2)).isEqualTo(Bitmap4.of(FATTR4_MODE));
    }

    @Test
    void anEmptyRequestIsAnEmptyBitmapAndAnEmptyList() {
        assertThat(encoded(new Bitmap4(), sampleValues(), 1)).isEqualTo(new XdrWriter().word(0).word(0).bytes());
        assertThat(Fattr4.encodedSize(new Bitmap4(), sampleValues(), 1)).isEqualTo(8);
    }

    @Test
    void setOnlyAttributesAreRefusedForGetattr() throws Exception {
        Fattr4.requireGettable(Bitmap4.of(FATTR4_TYPE, FATTR4_ACL, 200));
        Fattr4.requireGettable(new Bitmap4());
        for (int a : new int[] {FATTR4_TIME_ACCESS_SET, FATTR4_TIME_MODIFY_SET}) {
            assertThatThrownBy(() -> Fattr4.requireGettable(Bitmap4.of(FATTR4_TYPE, a)))
                    .isInstanceOfSatisfying(Nfs4Exception.class,
                            e -> assertThat(e.status()).isEqualTo(Nfs4Status.NFS4ERR_INVAL))
                    .hasMessageContaining(Fattr4.name(a));
        }
    }

    @Test
    void withoutFsStatTheSpaceAndFileCountsAreLeftOut() {
        Fattr4Values v = Fattr4Values.builder(sampleAttributes()).build();
        Bitmap4 requested = Bitmap4.of(FATTR4_FILES_AVAIL, FATTR4_FILES_FREE, FATTR4_FILES_TOTAL, FATTR4_SPACE_AVAIL,
                FATTR4_SPACE_FREE, FATTR4_SPACE_TOTAL, FATTR4_SPACE_USED);
        assertThat(encoded(requested, v, 1))
                .isEqualTo(new XdrWriter().word(2).word(0).word(1 << 13).word(8).hyper(4096L * 7).bytes());
        byte[] withStat = encoded(requested, sampleValues(), 1);
        assertThat(withStat).isEqualTo(new XdrWriter()
                .word(2).word(0x00E0_0000).word(0x3C00).word(56)
                .hyper(899_000).hyper(900_000).hyper(1_000_000)
                .hyper((1L << 39) - 4096).hyper(1L << 39).hyper(1L << 40).hyper(4096L * 7)
                .bytes());
    }

    @Test
    void anEntryWithoutAttributesReturnsItsErrorAndTheFileSystemWideOnes() {
        Fattr4Values v = Fattr4Values.builder().rdattrError(Nfs4Status.NFS4ERR_ACCESS).build();
        Bitmap4 requested = Bitmap4.of(FATTR4_TYPE, FATTR4_CHANGE, FATTR4_SIZE, FATTR4_FSID, FATTR4_LEASE_TIME,
                FATTR4_RDATTR_ERROR, FATTR4_FILEHANDLE, FATTR4_FILEID, FATTR4_MAXNAME, FATTR4_MODE, FATTR4_OWNER,
                FATTR4_OWNER_GROUP, FATTR4_RAWDEV, FATTR4_SPACE_USED, FATTR4_TIME_MODIFY, FATTR4_MOUNTED_ON_FILEID);
        assertThat(encoded(requested, v, 1)).isEqualTo(new XdrWriter()
                .word(1).word((1 << 10) | (1 << 11) | (1 << 29)).word(12)
                .word(90).word(Nfs4Status.NFS4ERR_ACCESS).word(255)
                .bytes());
        Fattr4Values known = Fattr4Values.builder().rdattrError(Nfs4Status.NFS4ERR_ACCESS)
                .mountedOnFileid(77).fsid(1, 2).fileHandle(new byte[] {9}).build();
        assertThat(Fattr4.returned(requested, known, 1).toArray()).containsExactly(FATTR4_FSID, FATTR4_LEASE_TIME,
                FATTR4_RDATTR_ERROR, FATTR4_FILEHANDLE, FATTR4_MAXNAME, FATTR4_MOUNTED_ON_FILEID);
    }

    @Test
    void valuesAndTheirDefaults() {
        FileAttributes a = sampleAttributes();
        Fattr4Values d = Fattr4Values.builder(a).build();
        assertThat(d.change()).isEqualTo(a.ctime().seconds() * 1_000_000_000L + a.ctime().nseconds());
        assertThat(d.changeAttrType()).isEqualTo(NFS4_CHANGE_TYPE_IS_TIME_METADATA);
        assertThat(d.mountedOnFileid()).isEqualTo(a.fileid());
        assertThat(d.fsidMajor()).isEqualTo(a.fsid());
        assertThat(d.fsidMinor()).isZero();
        assertThat(d.owner()).isEqualTo("1000");
        assertThat(d.ownerGroup()).isEqualTo("100");
        assertThat(d.maxName()).isEqualTo(255);
        assertThat(d.leaseSeconds()).isEqualTo(90);
        assertThat(d.timeDelta()).isEqualTo(new NfsTime(0, 1));
        assertThat(d.rdattrError()).isEqualTo(Nfs4Status.NFS4_OK);
        assertThat(d.fsStat()).isNull();
        assertThat(d.fileHandle()).isNull();

        Fattr4Values given = Fattr4Values.builder(a).change(7).build();
        assertThat(given.change()).isEqualTo(7);
        assertThat(given.changeAttrType()).isEqualTo(NFS4_CHANGE_TYPE_IS_UNDEFINED);
        Fattr4Values counter = Fattr4Values.builder(a).change(8)
                .changeAttrType(NFS4_CHANGE_TYPE_IS_MONOTONIC_INCR).build();
        assertThat(counter.changeAttrType()).isEqualTo(NFS4_CHANGE_TYPE_IS_MONOTONIC_INCR);

        FileAttributes negativeIds = new FileAttributes(FileType.REGULAR, 0, 1, -2, -1, 0, 0, 0, 0, 0, 0,
                NfsTime.ZERO, NfsTime.ZERO, NfsTime.ZERO);
        Fattr4Values unsigned = Fattr4Values.builder(negativeIds).build();
        assertThat(unsigned.owner()).isEqualTo("4294967294");
        assertThat(unsigned.ownerGroup()).isEqualTo("4294967295");
    }

    @Test
    void modeBitsBeyondThePermissionsAreNotSent() {
        FileAttributes a = new FileAttributes(FileType.REGULAR, 0100755, 1, 0, 0, 0, 0, 0, 0, 0, 0,
                NfsTime.ZERO, NfsTime.ZERO, NfsTime.ZERO);
        assertThat(encoded(Bitmap4.of(FATTR4_MODE), Fattr4Values.builder(a).build(), 1))
                .isEqualTo(new XdrWriter().word(2).word(0).word(2).word(4).word(0755).bytes());
    }

    @Test
    void theBuilderRefusesWhatCannotBeEncoded() {
        Fattr4Values.Builder b = Fattr4Values.builder(sampleAttributes());
        assertThatThrownBy(() -> b.fileHandle(new byte[Nfs4.FHSIZE + 1])).isInstanceOf(IllegalArgumentException.class);
        b.fileHandle(new byte[Nfs4.FHSIZE]);
        assertThatThrownBy(() -> b.changeAttrType(5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.changeAttrType(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Fattr4Values.builder(sampleAttributes()).owner("x".repeat(Nfs4.DECODE_MAX_NAME + 1))
                .build()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Fattr4Values.builder(sampleAttributes()).owner("\ud800").build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Fattr4Values.builder(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void theComputedSizeIsWhatIsWritten() {
        for (int minor = 0; minor <= 2; minor++) {
            Bitmap4 all = Fattr4.SERVER_SUPPORTED.or(Bitmap4.of(12, 14, 83));
            for (Fattr4Values v : new Fattr4Values[] {sampleValues(), Fattr4Values.builder(sampleAttributes())
                    .owner("jürgen@example.com").build(), Fattr4Values.builder().build()}) {
                assertThat(Fattr4.encodedSize(all, v, minor)).isEqualTo(encoded(all, v, minor).length);
            }
        }
    }

    @Test
    void anUnknownMinorVersionIsAnError() {
        assertThatThrownBy(() -> Fattr4.supported(3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Fattr4.supported(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theAttrssetBitmapOfSetattr() {
        assertThat(encode(x -> Fattr4.encodeBitmap(Bitmap4.of(FATTR4_SIZE, FATTR4_TIME_MODIFY_SET), x)))
                .isEqualTo(new XdrWriter().word(2).word(1 << 4).word(1 << 22).bytes());
    }
}
