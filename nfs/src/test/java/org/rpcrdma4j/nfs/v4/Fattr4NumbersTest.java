package org.rpcrdma4j.nfs.v4;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The attribute numbers against the XDR of RFC 8881's companion description (RFC 5662 with its errata), RFC 7863
 * (minor version 2), RFC 8275 and RFC 8276, restated here independently of {@link Fattr4}.
 */
class Fattr4NumbersTest {

    /** {@code const FATTR4_... = n;} in the RFCs' XDR, in the order the numbers run. */
    private static final String[] RFC_ORDER = {
        "supported_attrs", "type", "fh_expire_type", "change", "size", "link_support", "symlink_support",
        "named_attr", "fsid", "unique_handles", "lease_time", "rdattr_error", "acl", "aclsupport", "archive",
        "cansettime", "case_insensitive", "case_preserving", "chown_restricted", "filehandle", "fileid",
        "files_avail", "files_free", "files_total", "fs_locations", "hidden", "homogeneous", "maxfilesize", "maxlink",
        "maxname", "maxread", "maxwrite", "mimetype", "mode", "no_trunc", "numlinks", "owner", "owner_group",
        "quota_avail_hard", "quota_avail_soft", "quota_used", "rawdev", "space_avail", "space_free", "space_total",
        "space_used", "system", "time_access", "time_access_set", "time_backup", "time_create", "time_delta",
        "time_metadata", "time_modify", "time_modify_set", "mounted_on_fileid",
        // minor version 1
        "dir_notif_delay", "dirent_notif_delay", "dacl", "sacl", "change_policy", "fs_status", "fs_layout_types",
        "layout_hint", "layout_types", "layout_blksize", "layout_alignment", "fs_locations_info", "mdsthreshold",
        "retention_get", "retention_set", "retentevt_get", "retentevt_set", "retention_hold", "mode_set_masked",
        "suppattr_exclcreat", "fs_charset_cap",
        // minor version 2: RFC 7862, then RFC 8275 and RFC 8276
        "clone_blksize", "space_freed", "change_attr_type", "sec_label", "mode_umask", "xattr_support",
    };

    private static Map<String, Integer> constants() throws IllegalAccessException {
        Map<String, Integer> m = new LinkedHashMap<>();
        for (Field f : Fattr4.class.getFields()) {
            if (f.getName().startsWith("FATTR4_") && Modifier.isStatic(f.getModifiers()) && f.getType() == int.class) {
                m.put(f.getName().substring("FATTR4_".length()).toLowerCase(Locale.ROOT), f.getInt(null));
            }
        }
        return m;
    }

    @Test
    void everyRfcAttributeHasItsNumber() throws Exception {
        Map<String, Integer> c = constants();
        assertThat(c).hasSize(RFC_ORDER.length);
        for (int n = 0; n < RFC_ORDER.length; n++) {
            assertThat(c.get(RFC_ORDER[n])).as(RFC_ORDER[n]).isEqualTo(n);
            assertThat(Fattr4.name(n)).isEqualTo(RFC_ORDER[n]);
        }
        assertThat(Fattr4.LAST_ATTRIBUTE).isEqualTo(RFC_ORDER.length - 1);
        assertThat(Fattr4.name(83)).isEqualTo("attribute 83");
    }

    @Test
    void spotChecksAgainstTheRfcText() {
        // a few numbers the codec depends on, spelled out once more
        assertThat(Fattr4.FATTR4_MODE).isEqualTo(33);
        assertThat(Fattr4.FATTR4_SIZE).isEqualTo(4);
        assertThat(Fattr4.FATTR4_OWNER).isEqualTo(36);
        assertThat(Fattr4.FATTR4_OWNER_GROUP).isEqualTo(37);
        assertThat(Fattr4.FATTR4_TIME_ACCESS_SET).isEqualTo(48);
        assertThat(Fattr4.FATTR4_TIME_MODIFY_SET).isEqualTo(54);
        assertThat(Fattr4.FATTR4_MOUNTED_ON_FILEID).isEqualTo(55);
        assertThat(Fattr4.FATTR4_SUPPATTR_EXCLCREAT).isEqualTo(75);
        assertThat(Fattr4.FATTR4_FS_CHARSET_CAP).isEqualTo(76);
        assertThat(Fattr4.FATTR4_CHANGE_ATTR_TYPE).isEqualTo(79);
        assertThat(Fattr4.FATTR4_XATTR_SUPPORT).isEqualTo(82);
    }

    @Test
    void minorVersionsOfTheAttributes() {
        assertThat(Fattr4.minorVersionOf(Fattr4.FATTR4_MOUNTED_ON_FILEID)).isZero();
        assertThat(Fattr4.minorVersionOf(Fattr4.FATTR4_DIR_NOTIF_DELAY)).isEqualTo(1);
        assertThat(Fattr4.minorVersionOf(Fattr4.FATTR4_SUPPATTR_EXCLCREAT)).isEqualTo(1);
        assertThat(Fattr4.minorVersionOf(Fattr4.FATTR4_FS_CHARSET_CAP)).isEqualTo(1);
        assertThat(Fattr4.minorVersionOf(Fattr4.FATTR4_CLONE_BLKSIZE)).isEqualTo(2);
        assertThat(Fattr4.minorVersionOf(Fattr4.FATTR4_XATTR_SUPPORT)).isEqualTo(2);
    }

    @Test
    void valueConstants() {
        assertThat(Fattr4.FH4_PERSISTENT).isZero();
        assertThat(Fattr4.SET_TO_SERVER_TIME4).isZero();
        assertThat(Fattr4.SET_TO_CLIENT_TIME4).isEqualTo(1);
        assertThat(Fattr4.NFS4_CHANGE_TYPE_IS_MONOTONIC_INCR).isZero();
        assertThat(Fattr4.NFS4_CHANGE_TYPE_IS_VERSION_COUNTER).isEqualTo(1);
        assertThat(Fattr4.NFS4_CHANGE_TYPE_IS_VERSION_COUNTER_NOPNFS).isEqualTo(2);
        assertThat(Fattr4.NFS4_CHANGE_TYPE_IS_TIME_METADATA).isEqualTo(3);
        assertThat(Fattr4.NFS4_CHANGE_TYPE_IS_UNDEFINED).isEqualTo(4);
    }

    @Test
    void theServersSupportedSetIsWhatTheBriefAsksFor() {
        int[] expected = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 16, 17, 18, 19, 20, 21, 22, 23, 26, 27, 28,
            29, 30, 31, 33, 34, 35, 36, 37, 41, 42, 43, 44, 45, 47, 48, 51, 52, 53, 54, 55, 75, 79};
        assertThat(Fattr4.SERVER_SUPPORTED.toArray()).containsExactly(expected);
        assertThat(Fattr4.SERVER_SUPPORTED.isFrozen()).isTrue();
        assertThat(Fattr4.supported(2)).isEqualTo(Fattr4.SERVER_SUPPORTED);
        assertThat(Fattr4.supported(1).contains(79)).isFalse();
        assertThat(Fattr4.supported(1).contains(75)).isTrue();
        assertThat(Fattr4.supported(0).contains(75)).isFalse();
        assertThat(Fattr4.supported(0).wordCount()).isEqualTo(2);
        assertThat(Fattr4.CLIENT_DECODABLE.contains(48)).isFalse();
        assertThat(Fattr4.CLIENT_DECODABLE.contains(54)).isFalse();
        assertThat(Fattr4.CLIENT_DECODABLE.size()).isEqualTo(expected.length - 2);
        assertThat(Fattr4.SETTABLE.toArray()).containsExactly(4, 33, 36, 37, 48, 54);
        assertThat(Fattr4.SUPPATTR_EXCLCREAT.toArray()).containsExactly(4, 33, 36, 37);
    }
}
