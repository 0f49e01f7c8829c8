package org.rpcrdma4j.mount.client;

import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

import org.rpcrdma4j.mount.cli.Sizes;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileType;
import org.rpcrdma4j.nfs.FsStat;
import org.rpcrdma4j.nfs.NfsTime;

/** How files, attributes and file systems are shown: like {@code ls -l}, {@code stat} and {@code df}. */
public final class Formats {
    private static final DateTimeFormatter LS_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm", Locale.ROOT)
            .withZone(ZoneId.systemDefault());
    private static final DateTimeFormatter FULL_TIME = DateTimeFormatter
            .ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSSSSS Z", Locale.ROOT).withZone(ZoneId.systemDefault());

    private Formats() {
    }

    /** {@code drwxr-xr-x}: the type letter and the permission bits. */
    public static String mode(FileAttributes a) {
        char type = switch (a.type()) {
            case DIRECTORY -> 'd';
            case SYMLINK -> 'l';
            case BLOCK_DEVICE -> 'b';
            case CHAR_DEVICE -> 'c';
            case SOCKET -> 's';
            case FIFO -> 'p';
            default -> '-';
        };
        int m = a.mode();
        StringBuilder sb = new StringBuilder().append(type);
        String rwx = "rwxrwxrwx";
        for (int i = 0; i < 9; i++) {
            sb.append((m & (1 << (8 - i))) != 0 ? rwx.charAt(i) : '-');
        }
        if ((m & 04000) != 0) {
            sb.setCharAt(3, (m & 0100) != 0 ? 's' : 'S');
        }
        if ((m & 02000) != 0) {
            sb.setCharAt(6, (m & 010) != 0 ? 's' : 'S');
        }
        if ((m & 01000) != 0) {
            sb.setCharAt(9, (m & 01) != 0 ? 't' : 'T');
        }
        return sb.toString();
    }

    /** One {@code ls -l} line; {@code a} may be null when the server gave no attributes. */
    public static String longEntry(String name, FileAttributes a) {
        if (a == null) {
            return String.format(Locale.ROOT, "?????????? %3s %5s %5s %12s %16s %s", "?", "?", "?", "?", "?", name);
        }
        return String.format(Locale.ROOT, "%s %3d %5d %5d %12d %s %s", mode(a), a.nlink(), a.uid(), a.gid(),
                a.size(), LS_TIME.format(a.mtime().toInstant()), a.isDirectory() ? name + "/" : name);
    }

    /** A short {@code ls} entry: the name, with "/" after directories. */
    public static String shortEntry(String name, FileAttributes a) {
        return a != null && a.isDirectory() ? name + "/" : name;
    }

    /** The {@code stat} block. */
    public static String stat(String path, FileAttributes a) {
        StringBuilder sb = new StringBuilder();
        sb.append("  File: ").append(path).append('\n');
        sb.append("  Type: ").append(typeName(a.type())).append('\n');
        sb.append(String.format(Locale.ROOT, "  Size: %-15d Used: %-15d Links: %d%n", a.size(), a.used(),
                a.nlink()));
        sb.append(String.format(Locale.ROOT, "  Mode: %04o (%s)  Uid: %d  Gid: %d%n", a.mode(), mode(a), a.uid(),
                a.gid()));
        sb.append(String.format(Locale.ROOT, "Fileid: %-15d Fsid: 0x%x", a.fileid(), a.fsid()));
        if (a.type() == FileType.BLOCK_DEVICE || a.type() == FileType.CHAR_DEVICE) {
            sb.append(String.format(Locale.ROOT, "  Device: %d,%d", a.rdevMajor(), a.rdevMinor()));
        }
        sb.append('\n');
        sb.append("Access: ").append(time(a.atime())).append('\n');
        sb.append("Modify: ").append(time(a.mtime())).append('\n');
        sb.append("Change: ").append(time(a.ctime())).append('\n');
        return sb.toString();
    }

    private static String time(NfsTime t) {
        return FULL_TIME.format(t.toInstant());
    }

    /** What {@code stat} calls a type. */
    public static String typeName(FileType type) {
        return switch (type) {
            case REGULAR -> "regular file";
            case DIRECTORY -> "directory";
            case SYMLINK -> "symbolic link";
            case BLOCK_DEVICE -> "block device";
            case CHAR_DEVICE -> "character device";
            case SOCKET -> "socket";
            case FIFO -> "fifo";
        };
    }

    /** The {@code df -h} header and line for one export. */
    public static String df(String mountedOn, FsStat s) {
        long used = Math.max(0, s.totalBytes() - s.freeBytes());
        long pct = s.totalBytes() == 0 ? 0 : (used * 100 + s.totalBytes() - 1) / s.totalBytes();
        long usedFiles = Math.max(0, s.totalFiles() - s.freeFiles());
        return String.format(Locale.ROOT, "%-10s %10s %10s %10s %4s %12s %12s  %s%n", "Filesystem", "Size", "Used",
                "Avail", "Use%", "Inodes", "IUsed", "Mounted on")
                + String.format(Locale.ROOT, "%-10s %10s %10s %10s %3d%% %12d %12d  %s%n", "nfs", Sizes.format(
                        s.totalBytes()), Sizes.format(used), Sizes.format(s.availableBytes()), pct, s.totalFiles(),
                usedFiles, mountedOn);
    }

    /** Throughput in MB/s (10^6 bytes per second) of {@code bytes} in {@code nanos}. */
    public static double mbPerSecond(long bytes, long nanos) {
        return nanos <= 0 ? 0 : bytes / 1e6 / (nanos / 1e9);
    }
}
