package org.rpcrdma4j.nfs.v4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.rpcrdma4j.nfs.v4.Fattr4.*;
import static org.rpcrdma4j.nfs.v4.Fattr4Fixtures.decoding;
import static org.rpcrdma4j.nfs.v4.Fattr4Fixtures.encode;
import static org.rpcrdma4j.nfs.v4.Fattr4Fixtures.sampleAttributes;
import static org.rpcrdma4j.nfs.v4.Fattr4Fixtures.sampleFsStat;
import static org.rpcrdma4j.nfs.v4.Fattr4Fixtures.sampleHandle;
import static org.rpcrdma4j.nfs.v4.Fattr4Fixtures.sampleValues;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileType;
import org.rpcrdma4j.nfs.NfsTime;
import org.rpcrdma4j.nfs.xdr.BadXdrException;

/** The client side: {@code fattr4} replies decoded, from the server's encoder and from hand-written XDR. */
class Fattr4DecodeTest {

    private static Fattr4Decoded decode(byte[] bytes) throws BadXdrException {
        Xdr xdr = decoding(bytes);
        Fattr4Decoded d = Fattr4.decode(xdr);
        assertThat(xdr.hasMoreData()).as("the decoder consumed exactly the fattr4").isFalse();
        return d;
    }

    private static byte[] fattr(int[] bitmapWords, XdrWriter body) {
        XdrWriter w = new XdrWriter().word(bitmapWords.length);
        for (int v : bitmapWords) {
            w.word(v);
        }
        return w.word(body.length()).raw(body.bytes()).bytes();
    }

    @Test
    void everySupportedAttributeRoundTrips() throws Exception {
        Fattr4Values v = sampleValues();
        FileAttributes a = v.attributes();
        byte[] bytes = encode(x -> Fattr4.encode(Fattr4.CLIENT_DECODABLE, v, 2, x));
        Fattr4Decoded d = decode(bytes);

        assertThat(d.attrmask()).isEqualTo(Fattr4.CLIENT_DECODABLE);
        assertThat(d.supportedAttrs()).isEqualTo(Fattr4.SERVER_SUPPORTED);
        assertThat(d.type()).isEqualTo(FileType.CHAR_DEVICE);
        assertThat(d.fhExpireType()).isEqualTo(FH4_PERSISTENT);
        assertThat(d.change()).isEqualTo(v.change());
        assertThat(d.size()).isEqualTo(a.size());
        assertThat(d.linkSupport()).isTrue();
        assertThat(d.symlinkSupport()).isTrue();
        assertThat(d.namedAttr()).isFalse();
        assertThat(d.fsidMajor()).isEqualTo(0x0FED_CBA9L);
        assertThat(d.fsidMinor()).isEqualTo(42);
        assertThat(d.uniqueHandles()).isTrue();
        assertThat(d.leaseTime()).isEqualTo(60);
        assertThat(d.rdattrError()).isEqualTo(Nfs4Status.NFS4_OK);
        assertThat(d.aclSupport()).isZero();
        assertThat(d.cansettime()).isTrue();
        assertThat(d.caseInsensitive()).isFalse();
        assertThat(d.casePreserving()).isTrue();
        assertThat(d.chownRestricted()).isTrue();
        assertThat(d.fileHandle()).isEqualTo(sampleHandle());
        assertThat(d.fileid()).isEqualTo(a.fileid());
        assertThat(d.filesAvail()).isEqualTo(sampleFsStat().availableFiles());
        assertThat(d.filesFree()).isEqualTo(sampleFsStat().freeFiles());
        assertThat(d.filesTotal()).isEqualTo(sampleFsStat().totalFiles());
        assertThat(d.homogeneous()).isTrue();
        assertThat(d.maxFileSize()).isEqualTo(1L << 50);
        assertThat(d.maxLink()).isEqualTo(1000);
        assertThat(d.maxName()).isEqualTo(250);
        assertThat(d.maxRead()).isEqualTo(512 * 1024);
        assertThat(d.maxWrite()).isEqualTo(256 * 1024);
        assertThat(d.mode()).isEqualTo(0644);
        assertThat(d.noTrunc()).isTrue();
        assertThat(d.numlinks()).isEqualTo(3);
        assertThat(d.owner()).isEqualTo("1000");
        assertThat(d.ownerGroup()).isEqualTo("100");
        assertThat(d.rawdevMajor()).isEqualTo(136);
        assertThat(d.rawdevMinor()).isEqualTo(5);
        assertThat(d.spaceAvail()).isEqualTo(sampleFsStat().availableBytes());
        assertThat(d.spaceFree()).isEqualTo(sampleFsStat().freeBytes());
        assertThat(d.spaceTotal()).isEqualTo(sampleFsStat().totalBytes());
        assertThat(d.spaceUsed()).isEqualTo(a.used());
        assertThat(d.timeAccess()).isEqualTo(a.atime());
        assertThat(d.timeDelta()).isEqualTo(new NfsTime(0, 1000));
        assertThat(d.timeMetadata()).isEqualTo(a.ctime());
        assertThat(d.timeModify()).isEqualTo(a.mtime());
        assertThat(d.mountedOnFileid()).isEqualTo(0xAABB_CCDD_0000_0001L);
        assertThat(d.suppattrExclcreat()).isEqualTo(Fattr4.SUPPATTR_EXCLCREAT);
        assertThat(d.changeAttrType()).isEqualTo(NFS4_CHANGE_TYPE_IS_TIME_METADATA);
        assertThat(d.toFsStat()).isEqualTo(sampleFsStat());
    }

    @Test
    void whatWasNotReturnedIsNull() throws Exception {
        Fattr4Decoded d = decode(encode(x -> Fattr4.encode(Bitmap4.of(FATTR4_TYPE), sampleValues(), 1, x)));
        assertThat(d.type()).isEqualTo(FileType.CHAR_DEVICE);
        assertThat(d.mode()).isNull();
        assertThat(d.size()).isNull();
        assertThat(d.fileHandle()).isNull();
        assertThat(d.timeModify()).isNull();
        assertThat(d.supportedAttrs()).isNull();
        assertThat(d.toFsStat()).isNull();
    }

    @Test
    void aReplyWrittenByHandWithATrailingZeroWord() throws Exception {
        // type, size, fsid | mode, numlinks, owner_group, time_modify | nothing: Linux sends three words
        XdrWriter body = new XdrWriter()
                .word(2).hyper(4096).hyper(7).hyper(0)
                .word(01777).word(5).opaque("wheel".getBytes(StandardCharsets.UTF_8)).hyper(1_600_000_000L).word(5);
        int w0 = (1 << 1) | (1 << 4) | (1 << 8);
        int w1 = (1 << 1) | (1 << 3) | (1 << 5) | (1 << 21);
        Fattr4Decoded d = decode(fattr(new int[] {w0, w1, 0}, body));
        assertThat(d.attrmask().toArray()).containsExactly(1, 4, 8, 33, 35, 37, 53);
        assertThat(d.type()).isEqualTo(FileType.DIRECTORY);
        assertThat(d.size()).isEqualTo(4096);
        assertThat(d.fsidMajor()).isEqualTo(7);
        assertThat(d.fsidMinor()).isZero();
        assertThat(d.mode()).isEqualTo(01777);
        assertThat(d.numlinks()).isEqualTo(5);
        assertThat(d.ownerGroup()).isEqualTo("wheel");
        assertThat(d.timeModify()).isEqualTo(new NfsTime(1_600_000_000L, 5));
    }

    @Test
    void anEmptyFattrDecodesToNothing() throws Exception {
        Fattr4Decoded d = decode(new XdrWriter().word(0).word(0).bytes());
        assertThat(d.attrmask().isEmpty()).isTrue();
        assertThat(d.type()).isNull();
    }

    @Test
    void aListShorterThanItsValuesIsBadXdr() {
        // size announced, but the list holds only 4 of its 8 bytes
        byte[] bytes = new XdrWriter().word(1).word(1 << 4).word(4).word(0).word(0).word(0).bytes();
        assertThatThrownBy(() -> decode(bytes)).isInstanceOf(BadXdrException.class)
                .hasMessageContaining("ends inside size");
        // an owner string whose bytes run past the list
        byte[] owner = new XdrWriter().word(2).word(0).word(1 << 4).word(8).word(8).raw("1000".getBytes())
                .raw("0000".getBytes()).bytes();
        assertThatThrownBy(() -> decode(owner)).isInstanceOf(BadXdrException.class);
    }

    @Test
    void aListLongerThanItsValuesIsBadXdr() {
        byte[] bytes = new XdrWriter().word(1).word(1 << 4).word(12).hyper(5).word(0).bytes();
        assertThatThrownBy(() -> decode(bytes)).isInstanceOf(BadXdrException.class)
                .hasMessageContaining("4 bytes after");
        byte[] empty = new XdrWriter().word(0).word(4).word(0).bytes();
        assertThatThrownBy(() -> decode(empty)).isInstanceOf(BadXdrException.class);
    }

    @Test
    void aListLengthThatIsNotWholeWordsIsBadXdr() {
        byte[] bytes = new XdrWriter().word(1).word(1 << 1).word(5).word(1).word(0).bytes();
        assertThatThrownBy(() -> decode(bytes)).isInstanceOf(BadXdrException.class);
    }

    @Test
    void aTruncatedStreamIsBadXdr() {
        byte[] full = encode(x -> Fattr4.encode(Fattr4.CLIENT_DECODABLE, sampleValues(), 2, x));
        for (int cut = 0; cut < full.length; cut++) {
            byte[] part = Arrays.copyOf(full, cut);
            assertThatThrownBy(() -> Fattr4.decode(decoding(part))).as("cut at %d", cut)
                    .isInstanceOf(BadXdrException.class);
        }
    }

    @Test
    void anAttributeWithoutADecoderCannotBeSkipped() {
        for (int a : new int[] {FATTR4_ACL, FATTR4_ARCHIVE, FATTR4_FS_LOCATIONS, FATTR4_TIME_CREATE,
            FATTR4_SEC_LABEL, 83, Bitmap4.MAX_ATTRIBUTE, FATTR4_TIME_ACCESS_SET, FATTR4_TIME_MODIFY_SET}) {
            Bitmap4 mask = Bitmap4.of(FATTR4_TYPE, a);
            byte[] bytes = encode(x -> {
                mask.encode(x);
                x.xdrEncodeInt(8);
                x.xdrEncodeInt(1);
                x.xdrEncodeInt(0);
            });
            assertThatThrownBy(() -> decode(bytes)).as(Fattr4.name(a)).isInstanceOf(BadXdrException.class)
                    .hasMessageContaining(Fattr4.name(a));
        }
    }

    @Test
    void valuesOutOfTheirTypesAreBadXdr() {
        // a bool of 2
        assertThatThrownBy(() -> decode(fattr(new int[] {1 << 5}, new XdrWriter().word(2))))
                .isInstanceOf(BadXdrException.class).hasMessageContaining("link_support");
        // nfs_ftype4 0, 8 (named attribute directory), 10
        for (int t : new int[] {0, 8, 10}) {
            assertThatThrownBy(() -> decode(fattr(new int[] {1 << 1}, new XdrWriter().word(t))))
                    .isInstanceOf(BadXdrException.class);
        }
        // nanoseconds of a whole second
        assertThatThrownBy(() -> decode(fattr(new int[] {0, 1 << 21}, new XdrWriter().hyper(1).word(1_000_000_000))))
                .isInstanceOf(BadXdrException.class);
        // change_attr_type4 beyond UNDEFINED
        assertThatThrownBy(() -> decode(fattr(new int[] {0, 0, 1 << 15}, new XdrWriter().word(5))))
                .isInstanceOf(BadXdrException.class);
        // an owner that is not UTF-8
        assertThatThrownBy(() -> decode(fattr(new int[] {0, 1 << 4},
                new XdrWriter().opaque(new byte[] {(byte) 0xC3, (byte) 0x28}))))
                .isInstanceOf(BadXdrException.class);
        // a filehandle beyond NFS4_FHSIZE
        assertThatThrownBy(() -> decode(fattr(new int[] {1 << 19}, new XdrWriter().opaque(new byte[129]))))
                .isInstanceOf(BadXdrException.class);
        // supported_attrs of more words than the bound
        XdrWriter nine = new XdrWriter().word(9);
        for (int i = 0; i < 9; i++) {
            nine.word(1);
        }
        assertThatThrownBy(() -> decode(fattr(new int[] {1}, nine))).isInstanceOf(BadXdrException.class);
        // an attribute list beyond DECODE_MAX_OPAQUE
        assertThatThrownBy(() -> decode(new XdrWriter().word(0).word(Nfs4.DECODE_MAX_OPAQUE + 4).bytes()))
                .isInstanceOf(BadXdrException.class);
    }

    @Test
    void timesOutsideNfsTimeAreClamped() throws Exception {
        Fattr4Decoded before = decode(fattr(new int[] {0, 1 << 15}, new XdrWriter().hyper(-5).word(7)));
        assertThat(before.timeAccess()).isEqualTo(NfsTime.ZERO);
        Fattr4Decoded after = decode(fattr(new int[] {0, 1 << 15}, new XdrWriter().hyper(1L << 33).word(7)));
        assertThat(after.timeAccess()).isEqualTo(new NfsTime(0xFFFF_FFFFL, 999_999_999));
        Fattr4Decoded last = decode(fattr(new int[] {0, 1 << 15}, new XdrWriter().hyper(0xFFFF_FFFFL).word(7)));
        assertThat(last.timeAccess()).isEqualTo(new NfsTime(0xFFFF_FFFFL, 7));
    }

    @Test
    void toFileAttributesGivesBackWhatTheServerHad() throws Exception {
        FileAttributes a = sampleAttributes();
        Fattr4Values v = Fattr4Values.builder(a).build();
        Fattr4Decoded d = decode(encode(x -> Fattr4.encode(Fattr4.CLIENT_DECODABLE, v, 1, x)));
        assertThat(d.toFileAttributes()).isEqualTo(a);
    }

    @Test
    void toFileAttributesFillsInDefaults() throws Exception {
        Fattr4Decoded d = decode(fattr(new int[] {1 << 1}, new XdrWriter().word(5)));
        assertThat(d.toFileAttributes()).isEqualTo(new FileAttributes(FileType.SYMLINK, 0, 1,
                Fattr4Decoded.NOBODY, Fattr4Decoded.NOBODY, 0, 0, 0, 0, 0, 0, NfsTime.ZERO, NfsTime.ZERO,
                NfsTime.ZERO));
        assertThat(Fattr4Decoded.NOBODY).isEqualTo(65534);
    }

    @Test
    void toFileAttributesMapsOwnersAndTheFsid() throws Exception {
        Fattr4Values v = Fattr4Values.builder(sampleAttributes()).owner("alice@example.com").ownerGroup("4294967295")
                .fsid(0x10, 0x3).build();
        FileAttributes f = decode(encode(x -> Fattr4.encode(Fattr4.CLIENT_DECODABLE, v, 1, x))).toFileAttributes();
        assertThat(f.uid()).isEqualTo(Fattr4Decoded.NOBODY);
        assertThat(f.gid()).isEqualTo(-1);
        assertThat(f.fsid()).isEqualTo(0x3_0000_0010L);
        for (String bad : new String[] {"", "-1", "4294967296", "12345678901", "1 000"}) {
            Fattr4Values w = Fattr4Values.builder(sampleAttributes()).owner(bad).build();
            assertThat(decode(encode(x -> Fattr4.encode(Fattr4.CLIENT_DECODABLE, w, 1, x))).toFileAttributes().uid())
                    .as(bad).isEqualTo(Fattr4Decoded.NOBODY);
        }
    }

    @Test
    void toFileAttributesNeedsTheType() throws Exception {
        Fattr4Decoded d = decode(fattr(new int[] {1 << 4}, new XdrWriter().hyper(3)));
        assertThatThrownBy(d::toFileAttributes).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theDecodedBitmapsAreFrozenAndTheHandleIsACopy() throws Exception {
        Fattr4Decoded d = decode(encode(x -> Fattr4.encode(Fattr4.CLIENT_DECODABLE, sampleValues(), 1, x)));
        assertThat(d.attrmask().isFrozen()).isTrue();
        assertThat(d.supportedAttrs().isFrozen()).isTrue();
        d.fileHandle()[0] = 99;
        assertThat(d.fileHandle()).isEqualTo(sampleHandle());
        assertThat(d.toString()).contains("CHAR_DEVICE");
    }
}
