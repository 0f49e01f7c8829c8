package org.rpcrdma4j.nfs.v4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.rpcrdma4j.nfs.v4.Fattr4.*;
import static org.rpcrdma4j.nfs.v4.Fattr4Fixtures.decoding;
import static org.rpcrdma4j.nfs.v4.Fattr4Fixtures.encode;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileType;
import org.rpcrdma4j.nfs.FsStat;
import org.rpcrdma4j.nfs.NfsTime;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.SetAttributes.TimeSetting;
import org.rpcrdma4j.nfs.xdr.BadXdrException;

/** The codec against random objects, requests and settings: what the server encodes the client decodes. */
class Fattr4PropertiesTest {

    // ------------------------------------------------------------------------------------------ generators

    private static Arbitrary<NfsTime> times() {
        return Combinators.combine(Arbitraries.longs().between(0, 0xFFFF_FFFFL),
                Arbitraries.integers().between(0, 999_999_999)).as(NfsTime::new);
    }

    private static Arbitrary<FileAttributes> fileAttributes() {
        Arbitrary<Integer> ints = Arbitraries.integers();
        Arbitrary<Long> longs = Arbitraries.longs();
        return Combinators.combine(
                Combinators.combine(Arbitraries.of(FileType.class), Arbitraries.integers().between(0, 07777), ints,
                        ints, ints, longs, longs, ints).as(List::of),
                Combinators.combine(ints, longs, longs, times(), times(), times()).as(List::of))
                .as((p, q) -> new FileAttributes((FileType) p.get(0), (Integer) p.get(1), (Integer) p.get(2),
                        (Integer) p.get(3), (Integer) p.get(4), (Long) p.get(5), (Long) p.get(6), (Integer) p.get(7),
                        (Integer) q.get(0), (Long) q.get(1), (Long) q.get(2), (NfsTime) q.get(3),
                        (NfsTime) q.get(4), (NfsTime) q.get(5)));
    }

    private static Arbitrary<String> ownerStrings() {
        return Arbitraries.strings().withCharRange('a', 'z').withCharRange('0', '9').withChars('@', '.', 'ä', '字')
                .ofMaxLength(40);
    }

    private static Arbitrary<FsStat> fsStats() {
        Arbitrary<Long> l = Arbitraries.longs();
        return Combinators.combine(l, l, l, l, l, l).as((a, b, c, d, e, f) -> new FsStat(a, b, c, d, e, f, 0));
    }

    @Provide
    Arbitrary<Fattr4Values> values() {
        Arbitrary<Fattr4Values.Builder> base = Arbitraries.oneOf(
                fileAttributes().map(Fattr4Values::builder),
                fileAttributes().map(Fattr4Values::builder),
                Arbitraries.integers().between(0, 10_100).map(e -> Fattr4Values.builder().rdattrError(e)));
        Arbitrary<byte[]> handles = Arbitraries.bytes().array(byte[].class).ofMaxSize(Nfs4.FHSIZE).injectNull(0.2);
        Arbitrary<Long> optionalLong = Arbitraries.longs().injectNull(0.5);
        return Combinators.combine(
                Combinators.combine(base, handles, fsStats().injectNull(0.3), optionalLong, optionalLong,
                        Arbitraries.integers().between(0, 4).injectNull(0.5)).as(Arrays::asList),
                Combinators.combine(ownerStrings().injectNull(0.5), ownerStrings().injectNull(0.5),
                        Arbitraries.longs(), Arbitraries.longs(), Arbitraries.integers(), times()).as(Arrays::asList))
                .as((p, q) -> {
                    Fattr4Values.Builder b = (Fattr4Values.Builder) p.get(0);
                    b.fileHandle((byte[]) p.get(1)).fsStat((FsStat) p.get(2));
                    if (p.get(3) != null) {
                        b.change((Long) p.get(3));
                    }
                    if (p.get(4) != null) {
                        b.mountedOnFileid((Long) p.get(4));
                        b.fsid((Long) p.get(4), ~(Long) p.get(4));
                    }
                    if (p.get(5) != null) {
                        b.changeAttrType((Integer) p.get(5));
                    }
                    if (q.get(0) != null) {
                        b.owner((String) q.get(0));
                    }
                    if (q.get(1) != null) {
                        b.ownerGroup((String) q.get(1));
                    }
                    return b.maxRead((Long) q.get(2)).maxWrite((Long) q.get(3)).maxFileSize((Long) q.get(2) ^ 1)
                            .maxLink((Integer) q.get(4)).maxName(~(Integer) q.get(4)).leaseSeconds((Integer) q.get(4))
                            .timeDelta((NfsTime) q.get(5)).build();
                });
    }

    @Provide
    Arbitrary<Bitmap4> requests() {
        Arbitrary<Integer> attributes = Arbitraries.oneOf(Arbitraries.integers().between(0, 90),
                Arbitraries.integers().between(0, Bitmap4.MAX_ATTRIBUTE));
        return Arbitraries.oneOf(
                attributes.list().ofMaxSize(60).map(l -> Bitmap4.of(l.stream().mapToInt(i -> i).toArray())),
                Arbitraries.just(Fattr4.SERVER_SUPPORTED.andNot(Fattr4.SET_ONLY)));
    }

    @Provide
    Arbitrary<SetAttributes> settings() {
        Arbitrary<TimeSetting> timeSettings = Arbitraries.oneOf(Arbitraries.just(TimeSetting.SERVER_TIME),
                times().map(TimeSetting::client)).injectNull(0.4);
        return Combinators.combine(Arbitraries.integers().between(0, 07777).injectNull(0.4),
                Arbitraries.integers().injectNull(0.4), Arbitraries.integers().injectNull(0.4),
                Arbitraries.longs().between(0, Long.MAX_VALUE).injectNull(0.4), timeSettings, timeSettings)
                .as(SetAttributes::new);
    }

    // ------------------------------------------------------------------------------------------ properties

    @Property
    void whatTheServerEncodesTheClientDecodes(@ForAll("values") Fattr4Values v, @ForAll("requests") Bitmap4 requested,
                                              @ForAll @IntRange(min = 0, max = 2) int minor) throws Exception {
        Bitmap4[] written = new Bitmap4[1];
        byte[] bytes = encode(x -> written[0] = Fattr4.encode(requested, v, minor, x));
        assertThat(bytes.length).isEqualTo(Fattr4.encodedSize(requested, v, minor));

        Bitmap4 returned = written[0];
        Bitmap4 allowed = requested.and(Fattr4.supported(minor)).andNot(Fattr4.SET_ONLY);
        assertThat(allowed.containsAll(returned)).isTrue();
        for (int a = allowed.nextSetBit(0); a >= 0; a = allowed.nextSetBit(a + 1)) {
            assertThat(returned.contains(a)).as(Fattr4.name(a)).isEqualTo(expected(v, a, minor) != null);
        }

        Xdr xdr = decoding(bytes);
        Fattr4Decoded d = Fattr4.decode(xdr);
        assertThat(xdr.hasMoreData()).isFalse();
        assertThat(d.attrmask()).isEqualTo(returned);
        for (int a = 0; a <= Fattr4.LAST_ATTRIBUTE; a++) {
            if (!Fattr4.CLIENT_DECODABLE.contains(a)) {
                continue;
            }
            Object got = decoded(d, a);
            if (returned.contains(a)) {
                assertThat(got).as(Fattr4.name(a)).isEqualTo(expected(v, a, minor));
            } else {
                assertThat(got).as(Fattr4.name(a)).isNull();
            }
        }
    }

    @Property
    void aListWithTheWrongLengthIsRefused(@ForAll("values") Fattr4Values v, @ForAll("requests") Bitmap4 requested,
                                          @ForAll @IntRange(min = 1, max = 16) int words,
                                          @ForAll boolean longer) {
        Bitmap4 returned = Fattr4.returned(requested, v, 1);
        byte[] bytes = encode(x -> Fattr4.encode(requested, v, 1, x));
        ByteBuffer b = ByteBuffer.wrap(bytes);
        int lengthAt = returned.encodedSize();
        int length = b.getInt(lengthAt);
        byte[] changed;
        if (longer) {
            changed = Arrays.copyOf(bytes, bytes.length + 4 * words);
            ByteBuffer.wrap(changed).putInt(lengthAt, length + 4 * words);
        } else {
            if (length < 4 * words) {
                return;
            }
            changed = bytes.clone();
            ByteBuffer.wrap(changed).putInt(lengthAt, length - 4 * words);
        }
        assertThatThrownBy(() -> Fattr4.decode(decoding(changed))).isInstanceOf(BadXdrException.class);
    }

    @Property
    void settableAttributesRoundTrip(@ForAll("settings") SetAttributes s,
                                     @ForAll @IntRange(min = 0, max = 2) int minor) throws Exception {
        Bitmap4[] mask = new Bitmap4[1];
        byte[] bytes = encode(x -> mask[0] = Fattr4.encodeSettable(s, x));
        Xdr xdr = decoding(bytes);
        SettableAttributes back = Fattr4.decodeSettable(xdr, minor);
        assertThat(xdr.hasMoreData()).isFalse();
        assertThat(back.attributes()).isEqualTo(s);
        assertThat(back.attrmask()).isEqualTo(mask[0]);
        assertThat(Fattr4.SETTABLE.containsAll(mask[0])).isTrue();
        assertThat(mask[0].isEmpty()).isEqualTo(s.isEmpty());
    }

    @Property
    void bitmapsBehaveLikeBitSets(@ForAll @Size(max = 40) List<@IntRange(min = 0, max = 255) Integer> x,
                                  @ForAll @Size(max = 40) List<@IntRange(min = 0, max = 255) Integer> y)
            throws Exception {
        Bitmap4 a = Bitmap4.of(x.stream().mapToInt(i -> i).toArray());
        Bitmap4 b = Bitmap4.of(y.stream().mapToInt(i -> i).toArray());
        BitSet sa = new BitSet();
        x.forEach(sa::set);
        BitSet sb = new BitSet();
        y.forEach(sb::set);
        assertThat(a.toArray()).containsExactly(sa.stream().toArray());
        assertThat(a.size()).isEqualTo(sa.cardinality());
        assertThat(a.isEmpty()).isEqualTo(sa.isEmpty());
        BitSet and = (BitSet) sa.clone();
        and.and(sb);
        assertThat(a.and(b).toArray()).containsExactly(and.stream().toArray());
        BitSet andNot = (BitSet) sa.clone();
        andNot.andNot(sb);
        assertThat(a.andNot(b).toArray()).containsExactly(andNot.stream().toArray());
        BitSet or = (BitSet) sa.clone();
        or.or(sb);
        assertThat(a.or(b).toArray()).containsExactly(or.stream().toArray());
        assertThat(a.equals(b)).isEqualTo(sa.equals(sb));
        assertThat(a.containsAll(b)).isEqualTo(andNot(sb, sa).isEmpty());

        byte[] bytes = encode(a::encode);
        assertThat(bytes.length).isEqualTo(a.encodedSize()).isEqualTo(4 + 4 * ((sa.length() + 31) / 32));
        Xdr xdr = decoding(bytes);
        assertThat(Bitmap4.decode(xdr)).isEqualTo(a);
        assertThat(xdr.hasMoreData()).isFalse();
    }

    private static BitSet andNot(BitSet p, BitSet q) {
        BitSet r = (BitSet) p.clone();
        r.andNot(q);
        return r;
    }

    // -------------------------------------------------------------------- the values, attribute by attribute

    /** What the server should send for {@code a}, in the client's types; null when it has no value. */
    private static Object expected(Fattr4Values v, int a, int minor) {
        FileAttributes f = v.attributes();
        FsStat fs = v.fsStat();
        return switch (a) {
            case FATTR4_SUPPORTED_ATTRS -> Fattr4.supported(minor);
            case FATTR4_TYPE -> f == null ? null : f.type();
            case FATTR4_FH_EXPIRE_TYPE -> FH4_PERSISTENT;
            case FATTR4_CHANGE -> v.hasChange() ? v.change() : null;
            case FATTR4_SIZE -> f == null ? null : f.size();
            case FATTR4_LINK_SUPPORT, FATTR4_SYMLINK_SUPPORT, FATTR4_UNIQUE_HANDLES, FATTR4_CANSETTIME,
                    FATTR4_CASE_PRESERVING, FATTR4_CHOWN_RESTRICTED, FATTR4_HOMOGENEOUS, FATTR4_NO_TRUNC -> true;
            case FATTR4_NAMED_ATTR, FATTR4_CASE_INSENSITIVE -> false;
            case FATTR4_FSID -> v.hasFsid() ? List.of(v.fsidMajor(), v.fsidMinor()) : null;
            case FATTR4_LEASE_TIME -> v.leaseSeconds();
            case FATTR4_RDATTR_ERROR -> v.rdattrError();
            case FATTR4_ACLSUPPORT -> 0;
            case FATTR4_FILEHANDLE -> v.fileHandle() == null ? null : ByteBuffer.wrap(v.fileHandle());
            case FATTR4_FILEID -> f == null ? null : f.fileid();
            case FATTR4_FILES_AVAIL -> fs == null ? null : fs.availableFiles();
            case FATTR4_FILES_FREE -> fs == null ? null : fs.freeFiles();
            case FATTR4_FILES_TOTAL -> fs == null ? null : fs.totalFiles();
            case FATTR4_MAXFILESIZE -> v.maxFileSize();
            case FATTR4_MAXLINK -> v.maxLink();
            case FATTR4_MAXNAME -> v.maxName();
            case FATTR4_MAXREAD -> v.maxRead();
            case FATTR4_MAXWRITE -> v.maxWrite();
            case FATTR4_MODE -> f == null ? null : f.mode();
            case FATTR4_NUMLINKS -> f == null ? null : f.nlink();
            case FATTR4_OWNER -> v.owner();
            case FATTR4_OWNER_GROUP -> v.ownerGroup();
            case FATTR4_RAWDEV -> f == null ? null : List.of(f.rdevMajor(), f.rdevMinor());
            case FATTR4_SPACE_AVAIL -> fs == null ? null : fs.availableBytes();
            case FATTR4_SPACE_FREE -> fs == null ? null : fs.freeBytes();
            case FATTR4_SPACE_TOTAL -> fs == null ? null : fs.totalBytes();
            case FATTR4_SPACE_USED -> f == null ? null : f.used();
            case FATTR4_TIME_ACCESS -> f == null ? null : f.atime();
            case FATTR4_TIME_DELTA -> v.timeDelta();
            case FATTR4_TIME_METADATA -> f == null ? null : f.ctime();
            case FATTR4_TIME_MODIFY -> f == null ? null : f.mtime();
            case FATTR4_MOUNTED_ON_FILEID -> v.hasMountedOnFileid() ? v.mountedOnFileid() : null;
            case FATTR4_SUPPATTR_EXCLCREAT -> Fattr4.SUPPATTR_EXCLCREAT;
            case FATTR4_CHANGE_ATTR_TYPE -> v.changeAttrType();
            default -> throw new AssertionError("no expectation for " + Fattr4.name(a));
        };
    }

    private static Object decoded(Fattr4Decoded d, int a) {
        return switch (a) {
            case FATTR4_SUPPORTED_ATTRS -> d.supportedAttrs();
            case FATTR4_TYPE -> d.type();
            case FATTR4_FH_EXPIRE_TYPE -> d.fhExpireType();
            case FATTR4_CHANGE -> d.change();
            case FATTR4_SIZE -> d.size();
            case FATTR4_LINK_SUPPORT -> d.linkSupport();
            case FATTR4_SYMLINK_SUPPORT -> d.symlinkSupport();
            case FATTR4_NAMED_ATTR -> d.namedAttr();
            case FATTR4_FSID -> d.fsidMajor() == null ? null : List.of(d.fsidMajor(), d.fsidMinor());
            case FATTR4_UNIQUE_HANDLES -> d.uniqueHandles();
            case FATTR4_LEASE_TIME -> d.leaseTime();
            case FATTR4_RDATTR_ERROR -> d.rdattrError();
            case FATTR4_ACLSUPPORT -> d.aclSupport();
            case FATTR4_CANSETTIME -> d.cansettime();
            case FATTR4_CASE_INSENSITIVE -> d.caseInsensitive();
            case FATTR4_CASE_PRESERVING -> d.casePreserving();
            case FATTR4_CHOWN_RESTRICTED -> d.chownRestricted();
            case FATTR4_FILEHANDLE -> d.fileHandle() == null ? null : ByteBuffer.wrap(d.fileHandle());
            case FATTR4_FILEID -> d.fileid();
            case FATTR4_FILES_AVAIL -> d.filesAvail();
            case FATTR4_FILES_FREE -> d.filesFree();
            case FATTR4_FILES_TOTAL -> d.filesTotal();
            case FATTR4_HOMOGENEOUS -> d.homogeneous();
            case FATTR4_MAXFILESIZE -> d.maxFileSize();
            case FATTR4_MAXLINK -> d.maxLink();
            case FATTR4_MAXNAME -> d.maxName();
            case FATTR4_MAXREAD -> d.maxRead();
            case FATTR4_MAXWRITE -> d.maxWrite();
            case FATTR4_MODE -> d.mode();
            case FATTR4_NO_TRUNC -> d.noTrunc();
            case FATTR4_NUMLINKS -> d.numlinks();
            case FATTR4_OWNER -> d.owner();
            case FATTR4_OWNER_GROUP -> d.ownerGroup();
            case FATTR4_RAWDEV -> d.rawdevMajor() == null ? null : List.of(d.rawdevMajor(), d.rawdevMinor());
            case FATTR4_SPACE_AVAIL -> d.spaceAvail();
            case FATTR4_SPACE_FREE -> d.spaceFree();
            case FATTR4_SPACE_TOTAL -> d.spaceTotal();
            case FATTR4_SPACE_USED -> d.spaceUsed();
            case FATTR4_TIME_ACCESS -> d.timeAccess();
            case FATTR4_TIME_DELTA -> d.timeDelta();
            case FATTR4_TIME_METADATA -> d.timeMetadata();
            case FATTR4_TIME_MODIFY -> d.timeModify();
            case FATTR4_MOUNTED_ON_FILEID -> d.mountedOnFileid();
            case FATTR4_SUPPATTR_EXCLCREAT -> d.suppattrExclcreat();
            case FATTR4_CHANGE_ATTR_TYPE -> d.changeAttrType();
            default -> throw new AssertionError("no accessor for " + Fattr4.name(a));
        };
    }
}
