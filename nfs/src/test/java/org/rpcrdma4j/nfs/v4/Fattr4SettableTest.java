package org.rpcrdma4j.nfs.v4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.rpcrdma4j.nfs.v4.Fattr4.*;
import static org.rpcrdma4j.nfs.v4.Fattr4Fixtures.decoding;
import static org.rpcrdma4j.nfs.v4.Fattr4Fixtures.encode;

import java.nio.charset.StandardCharsets;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs.NfsTime;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.SetAttributes.TimeSetting;
import org.rpcrdma4j.nfs.xdr.BadXdrException;

/** SETATTR / OPEN / CREATE attributes: the server's decoding, the client's encoding, and the two together. */
class Fattr4SettableTest {

    private static byte[] fattr(Bitmap4 mask, XdrWriter body) {
        byte[] m = encode(mask::encode);
        return new XdrWriter().raw(m).word(body.length()).raw(body.bytes()).bytes();
    }

    private static SettableAttributes decode(byte[] bytes) throws Exception {
        Xdr xdr = decoding(bytes);
        SettableAttributes s = Fattr4.decodeSettable(xdr);
        assertThat(xdr.hasMoreData()).isFalse();
        return s;
    }

    private static void assertStatus(ThrowingCallable call, int status) {
        assertThatThrownBy(call).isInstanceOfSatisfying(Nfs4Exception.class,
                e -> assertThat(e.status()).as(e.getMessage()).isEqualTo(status));
    }

    private static XdrWriter string(XdrWriter w, String s) {
        return w.opaque(s.getBytes(StandardCharsets.UTF_8));
    }

    // ------------------------------------------------------------------------------------- each attribute

    @Test
    void size() throws Exception {
        SettableAttributes s = decode(fattr(Bitmap4.of(FATTR4_SIZE), new XdrWriter().hyper(1L << 40)));
        assertThat(s.attributes()).isEqualTo(SetAttributes.NONE.withSize(1L << 40));
        assertThat(s.attrmask()).isEqualTo(Bitmap4.of(FATTR4_SIZE));
        assertThat(decode(fattr(Bitmap4.of(FATTR4_SIZE), new XdrWriter().hyper(0))).attributes().size()).isZero();
        assertThat(decode(fattr(Bitmap4.of(FATTR4_SIZE), new XdrWriter().hyper(Long.MAX_VALUE))).attributes().size())
                .isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void mode() throws Exception {
        SettableAttributes s = decode(fattr(Bitmap4.of(FATTR4_MODE), new XdrWriter().word(04755)));
        assertThat(s.attributes()).isEqualTo(SetAttributes.NONE.withMode(04755));
        assertThat(s.attrmask()).isEqualTo(Bitmap4.of(FATTR4_MODE));
    }

    @Test
    void ownerAndGroupAsNumericStrings() throws Exception {
        SettableAttributes s = decode(fattr(Bitmap4.of(FATTR4_OWNER, FATTR4_OWNER_GROUP),
                string(string(new XdrWriter(), "1000"), "27")));
        assertThat(s.attributes()).isEqualTo(new SetAttributes(null, 1000, 27, null, null, null));
        SettableAttributes owner = decode(fattr(Bitmap4.of(FATTR4_OWNER), string(new XdrWriter(), "0")));
        assertThat(owner.attributes()).isEqualTo(new SetAttributes(null, 0, null, null, null, null));
        SettableAttributes group = decode(fattr(Bitmap4.of(FATTR4_OWNER_GROUP), string(new XdrWriter(), "0100")));
        assertThat(group.attributes()).isEqualTo(new SetAttributes(null, null, 100, null, null, null));
        SettableAttributes top = decode(fattr(Bitmap4.of(FATTR4_OWNER), string(new XdrWriter(), "4294967295")));
        assertThat(top.attributes().uid()).isEqualTo(-1);
    }

    @Test
    void timesToTheServersClock() throws Exception {
        SettableAttributes s = decode(fattr(Bitmap4.of(FATTR4_TIME_ACCESS_SET, FATTR4_TIME_MODIFY_SET),
                new XdrWriter().word(SET_TO_SERVER_TIME4).word(SET_TO_SERVER_TIME4)));
        assertThat(s.attributes()).isEqualTo(new SetAttributes(null, null, null, null, TimeSetting.SERVER_TIME,
                TimeSetting.SERVER_TIME));
    }

    @Test
    void timesToTheClientsClock() throws Exception {
        SettableAttributes a = decode(fattr(Bitmap4.of(FATTR4_TIME_ACCESS_SET),
                new XdrWriter().word(SET_TO_CLIENT_TIME4).hyper(1_700_000_000L).word(999_999_999)));
        assertThat(a.attributes()).isEqualTo(SetAttributes.NONE.withAtime(
                TimeSetting.client(new NfsTime(1_700_000_000L, 999_999_999))));
        SettableAttributes m = decode(fattr(Bitmap4.of(FATTR4_TIME_MODIFY_SET),
                new XdrWriter().word(SET_TO_CLIENT_TIME4).hyper(0xFFFF_FFFFL).word(0)));
        assertThat(m.attributes()).isEqualTo(SetAttributes.NONE.withMtime(
                TimeSetting.client(new NfsTime(0xFFFF_FFFFL, 0))));
        SettableAttributes both = decode(fattr(Bitmap4.of(FATTR4_TIME_ACCESS_SET, FATTR4_TIME_MODIFY_SET),
                new XdrWriter().word(SET_TO_SERVER_TIME4).word(SET_TO_CLIENT_TIME4).hyper(0).word(1)));
        assertThat(both.attributes()).isEqualTo(new SetAttributes(null, null, null, null, TimeSetting.SERVER_TIME,
                TimeSetting.client(new NfsTime(0, 1))));
    }

    @Test
    void allTogetherInAttributeOrder() throws Exception {
        Bitmap4 mask = Bitmap4.of(FATTR4_SIZE, FATTR4_MODE, FATTR4_OWNER, FATTR4_OWNER_GROUP, FATTR4_TIME_ACCESS_SET,
                FATTR4_TIME_MODIFY_SET);
        XdrWriter body = new XdrWriter().hyper(12).word(0600);
        string(string(body, "1001"), "1002").word(SET_TO_CLIENT_TIME4).hyper(5).word(6).word(SET_TO_SERVER_TIME4);
        SettableAttributes s = decode(fattr(mask, body));
        assertThat(s.attributes()).isEqualTo(new SetAttributes(0600, 1001, 1002, 12L,
                TimeSetting.client(new NfsTime(5, 6)), TimeSetting.SERVER_TIME));
        assertThat(s.attrmask()).isEqualTo(mask);
        assertThat(s.attrmask().isFrozen()).isTrue();
    }

    @Test
    void nothingToSet() throws Exception {
        SettableAttributes s = decode(new XdrWriter().word(0).word(0).bytes());
        assertThat(s.attributes()).isEqualTo(SetAttributes.NONE);
        assertThat(s.attrmask().isEmpty()).isTrue();
    }

    // ---------------------------------------------------------------------------------------- refusals

    @Test
    void anOwnerThatIsNotANumberIsBadowner() {
        for (String owner : new String[] {"alice", "alice@example.com", "1000@example.com", "", "-1", "+5", " 7",
            "4294967296", "99999999999", "１２"}) {
            assertStatus(() -> decode(fattr(Bitmap4.of(FATTR4_OWNER), string(new XdrWriter(), owner))),
                    Nfs4Status.NFS4ERR_BADOWNER);
            assertStatus(() -> decode(fattr(Bitmap4.of(FATTR4_OWNER_GROUP), string(new XdrWriter(), owner))),
                    Nfs4Status.NFS4ERR_BADOWNER);
        }
        // bytes that are not UTF-8 are no number either
        assertStatus(() -> decode(fattr(Bitmap4.of(FATTR4_OWNER), new XdrWriter().opaque(new byte[] {(byte) 0xFF}))),
                Nfs4Status.NFS4ERR_BADOWNER);
    }

    @Test
    void anUnsupportedAttributeIsAttrnotsupp() {
        for (int a : new int[] {FATTR4_ACL, FATTR4_ARCHIVE, FATTR4_HIDDEN, FATTR4_MIMETYPE, FATTR4_SYSTEM,
            FATTR4_TIME_BACKUP, FATTR4_TIME_CREATE, FATTR4_MODE_SET_MASKED, FATTR4_SEC_LABEL, FATTR4_MODE_UMASK,
            FATTR4_QUOTA_USED, 83, Bitmap4.MAX_ATTRIBUTE}) {
            assertStatus(() -> decode(fattr(Bitmap4.of(FATTR4_MODE, a), new XdrWriter().word(0644).word(0))),
                    Nfs4Status.NFS4ERR_ATTRNOTSUPP);
        }
    }

    @Test
    void aGetOnlyAttributeIsInval() {
        for (int a : new int[] {FATTR4_SUPPORTED_ATTRS, FATTR4_TYPE, FATTR4_CHANGE, FATTR4_FSID, FATTR4_FILEHANDLE,
            FATTR4_FILEID, FATTR4_NUMLINKS, FATTR4_SPACE_USED, FATTR4_TIME_ACCESS, FATTR4_TIME_MODIFY,
            FATTR4_TIME_METADATA, FATTR4_MOUNTED_ON_FILEID, FATTR4_SUPPATTR_EXCLCREAT}) {
            assertStatus(() -> decode(fattr(Bitmap4.of(a), new XdrWriter().hyper(0))), Nfs4Status.NFS4ERR_INVAL);
        }
    }

    @Test
    void attributesOfALaterMinorVersionAreUnsupportedInAnEarlierOne() throws Exception {
        byte[] bytes = fattr(Bitmap4.of(FATTR4_CHANGE_ATTR_TYPE), new XdrWriter().word(0));
        assertStatus(() -> Fattr4.decodeSettable(decoding(bytes), 1), Nfs4Status.NFS4ERR_ATTRNOTSUPP);
        assertStatus(() -> Fattr4.decodeSettable(decoding(bytes), 2), Nfs4Status.NFS4ERR_INVAL);
        byte[] excl = fattr(Bitmap4.of(FATTR4_SUPPATTR_EXCLCREAT), new XdrWriter().word(0));
        assertStatus(() -> Fattr4.decodeSettable(decoding(excl), 0), Nfs4Status.NFS4ERR_ATTRNOTSUPP);
        assertStatus(() -> Fattr4.decodeSettable(decoding(excl), 1), Nfs4Status.NFS4ERR_INVAL);
        byte[] mode = fattr(Bitmap4.of(FATTR4_MODE), new XdrWriter().word(0640));
        assertThat(Fattr4.decodeSettable(decoding(mode), 0).attributes().mode()).isEqualTo(0640);
    }

    @Test
    void attrnotsuppComesBeforeInval() {
        assertStatus(() -> decode(fattr(Bitmap4.of(FATTR4_TYPE, FATTR4_ACL), new XdrWriter().word(1).word(0))),
                Nfs4Status.NFS4ERR_ATTRNOTSUPP);
    }

    @Test
    void aTimeOutsideNfsTimeIsInval() {
        long[][] bad = {{-1, 0}, {1L << 32, 0}, {Long.MIN_VALUE, 0}, {0, 1_000_000_000}, {5, 0xFFFF_FFFFL}};
        for (int a : new int[] {FATTR4_TIME_ACCESS_SET, FATTR4_TIME_MODIFY_SET}) {
            for (long[] t : bad) {
                assertStatus(() -> decode(fattr(Bitmap4.of(a),
                        new XdrWriter().word(SET_TO_CLIENT_TIME4).hyper(t[0]).word((int) t[1]))),
                        Nfs4Status.NFS4ERR_INVAL);
            }
        }
    }

    @Test
    void aTimeHowOutOfRangeIsBadXdr() {
        for (int how : new int[] {2, -1, 100}) {
            assertThatThrownBy(() -> decode(fattr(Bitmap4.of(FATTR4_TIME_MODIFY_SET), new XdrWriter().word(how))))
                    .isInstanceOf(BadXdrException.class).hasMessageContaining("time_how4");
        }
    }

    @Test
    void aModeBeyondThePermissionBitsIsInval() {
        assertStatus(() -> decode(fattr(Bitmap4.of(FATTR4_MODE), new XdrWriter().word(010000))),
                Nfs4Status.NFS4ERR_INVAL);
        assertStatus(() -> decode(fattr(Bitmap4.of(FATTR4_MODE), new XdrWriter().word(0100644))),
                Nfs4Status.NFS4ERR_INVAL);
    }

    @Test
    void aSizeBeyondTheSignedRangeIsFbig() {
        assertStatus(() -> decode(fattr(Bitmap4.of(FATTR4_SIZE), new XdrWriter().hyper(Long.MIN_VALUE))),
                Nfs4Status.NFS4ERR_FBIG);
        assertStatus(() -> decode(fattr(Bitmap4.of(FATTR4_SIZE), new XdrWriter().hyper(-1))),
                Nfs4Status.NFS4ERR_FBIG);
    }

    @Test
    void aListThatDoesNotMatchItsValuesIsBadXdr() {
        byte[] shortList = new XdrWriter().word(2).word(0).word(2).word(0).word(0644).bytes();
        assertThatThrownBy(() -> decode(shortList)).isInstanceOf(BadXdrException.class);
        byte[] longList = new XdrWriter().word(2).word(0).word(2).word(8).word(0644).word(0).bytes();
        assertThatThrownBy(() -> decode(longList)).isInstanceOf(BadXdrException.class);
        byte[] ownerPastTheList = new XdrWriter().word(2).word(0).word(1 << 4).word(4).word(4).raw("1000".getBytes())
                .bytes();
        assertThatThrownBy(() -> decode(ownerPastTheList)).isInstanceOf(BadXdrException.class);
        byte[] truncated = new XdrWriter().word(2).word(0).word(2).word(4).bytes();
        assertThatThrownBy(() -> decode(truncated)).isInstanceOf(BadXdrException.class);
        byte[] tooManyWords = new XdrWriter().word(9).word(0).word(0).word(0).word(0).word(0).word(0).word(0).word(0)
                .word(0).word(0).bytes();
        assertThatThrownBy(() -> decode(tooManyWords)).isInstanceOf(BadXdrException.class);
    }

    // ------------------------------------------------------------------------------------- client encoding

    @Test
    void encodeSettableByteForByte() {
        SetAttributes s = new SetAttributes(0640, 1000, null, 0L, TimeSetting.SERVER_TIME,
                TimeSetting.client(new NfsTime(1_700_000_000L, 5)));
        Bitmap4[] mask = new Bitmap4[1];
        byte[] bytes = encode(x -> mask[0] = Fattr4.encodeSettable(s, x));
        assertThat(mask[0].toArray()).containsExactly(4, 33, 36, 48, 54);
        assertThat(bytes).isEqualTo(new XdrWriter()
                .word(2).word(1 << 4).word((1 << 1) | (1 << 4) | (1 << 16) | (1 << 22))
                .word(8 + 4 + 8 + 4 + 16)
                .hyper(0).word(0640).word(4).raw("1000".getBytes(StandardCharsets.US_ASCII))
                .word(SET_TO_SERVER_TIME4).word(SET_TO_CLIENT_TIME4).hyper(1_700_000_000L).word(5)
                .bytes());
    }

    @Test
    void encodeSettableOfNothing() {
        assertThat(encode(x -> Fattr4.encodeSettable(SetAttributes.NONE, x)))
                .isEqualTo(new XdrWriter().word(0).word(0).bytes());
        assertThat(encode(x -> Fattr4.encodeSettable(null, x)))
                .isEqualTo(new XdrWriter().word(0).word(0).bytes());
    }

    @Test
    void encodeSettableThenDecodeSettable() throws Exception {
        SetAttributes[] cases = {
            SetAttributes.NONE.withMode(0755),
            SetAttributes.NONE.withSize(0),
            SetAttributes.NONE.withOwner(0, 0),
            SetAttributes.NONE.withOwner(-1, -2),
            new SetAttributes(null, null, 65534, null, null, null),
            SetAttributes.NONE.withAtime(TimeSetting.SERVER_TIME),
            SetAttributes.NONE.withMtime(TimeSetting.client(new NfsTime(0xFFFF_FFFFL, 999_999_999))),
            new SetAttributes(07777, 123456, 654321, Long.MAX_VALUE, TimeSetting.client(NfsTime.ZERO),
                    TimeSetting.SERVER_TIME),
        };
        for (SetAttributes s : cases) {
            Bitmap4[] mask = new Bitmap4[1];
            byte[] bytes = encode(x -> mask[0] = Fattr4.encodeSettable(s, x));
            SettableAttributes back = decode(bytes);
            assertThat(back.attributes()).as(s.toString()).isEqualTo(s);
            assertThat(back.attrmask()).isEqualTo(mask[0]);
        }
    }
}
