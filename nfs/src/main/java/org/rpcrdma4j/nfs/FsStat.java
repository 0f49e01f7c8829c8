package org.rpcrdma4j.nfs;

/**
 * The dynamic file system information of FSSTAT (RFC 1813 section 3.3.18).
 *
 * @param totalBytes     {@code tbytes}
 * @param freeBytes      {@code fbytes}
 * @param availableBytes {@code abytes}: free bytes available to the caller
 * @param totalFiles     {@code tfiles}
 * @param freeFiles      {@code ffiles}
 * @param availableFiles {@code afiles}
 * @param invarSeconds   {@code invarsec}: how long these numbers are expected not to change
 */
public record FsStat(long totalBytes, long freeBytes, long availableBytes, long totalFiles, long freeFiles,
                     long availableFiles, int invarSeconds) {
}
