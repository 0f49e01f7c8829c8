package org.rpcrdma4j.nfs;

/**
 * {@code sattr3} (RFC 1813 section 2.6): the attributes a client asks to set. A null field is left unchanged.
 * Immutable; build with {@link #NONE} and the {@code with*} methods.
 *
 * @param mode  permission bits, or null
 * @param uid   owner, or null
 * @param gid   group, or null
 * @param size  new size (truncate or extend), or null
 * @param atime how to set the access time, or null to leave it
 * @param mtime how to set the modification time, or null to leave it
 */
public record SetAttributes(Integer mode, Integer uid, Integer gid, Long size, TimeSetting atime, TimeSetting mtime) {
    /** Changes nothing. */
    public static final SetAttributes NONE = new SetAttributes(null, null, null, null, null, null);

    public SetAttributes {
        if (size != null && size < 0) {
            throw new IllegalArgumentException("size must not be negative: " + size);
        }
    }

    public SetAttributes withMode(int newMode) {
        return new SetAttributes(newMode, uid, gid, size, atime, mtime);
    }

    public SetAttributes withOwner(int newUid, int newGid) {
        return new SetAttributes(mode, newUid, newGid, size, atime, mtime);
    }

    public SetAttributes withSize(long newSize) {
        return new SetAttributes(mode, uid, gid, newSize, atime, mtime);
    }

    public SetAttributes withAtime(TimeSetting setting) {
        return new SetAttributes(mode, uid, gid, size, setting, mtime);
    }

    public SetAttributes withMtime(TimeSetting setting) {
        return new SetAttributes(mode, uid, gid, size, atime, setting);
    }

    public boolean isEmpty() {
        return mode == null && uid == null && gid == null && size == null && atime == null && mtime == null;
    }

    /**
     * {@code set_atime} / {@code set_mtime}: to the server's clock, or to a time the client gives.
     *
     * @param time the time to set; null means "the server's current time" ({@code SET_TO_SERVER_TIME})
     */
    public record TimeSetting(NfsTime time) {
        public static final TimeSetting SERVER_TIME = new TimeSetting(null);

        public static TimeSetting client(NfsTime time) {
            if (time == null) {
                throw new IllegalArgumentException("a client time is required");
            }
            return new TimeSetting(time);
        }

        public boolean isServerTime() {
            return time == null;
        }
    }
}
