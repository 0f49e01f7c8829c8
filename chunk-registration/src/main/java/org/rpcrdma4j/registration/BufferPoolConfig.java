package org.rpcrdma4j.registration;

import java.time.Duration;
import java.util.Objects;

import org.rpcrdma4j.verbs.PageList;

/**
 * Sizes of a {@link RegisteredBufferPool}.
 *
 * @param arenaSize      bytes per arena (a multiple of the page size, at most 1 GiB); also the largest buffer
 * @param initialArenas  arenas registered when the pool is created
 * @param maxArenas      bound: the pool never registers more (so it never holds more than maxArenas * arenaSize)
 * @param allocateTimeout how long {@link RegisteredBufferPool#allocate(int)} waits for pages before it gives up
 */
public record BufferPoolConfig(int arenaSize, int initialArenas, int maxArenas, Duration allocateTimeout) {
    public static final int PAGE_SIZE = PageList.DEFAULT_PAGE_SIZE;
    public static final int DEFAULT_ARENA_SIZE = 4 << 20;

    public BufferPoolConfig {
        Objects.requireNonNull(allocateTimeout, "allocateTimeout");
        if (arenaSize <= 0 || arenaSize % PAGE_SIZE != 0 || arenaSize > (1 << 30)) {
            throw new IllegalArgumentException("arena size must be a positive multiple of " + PAGE_SIZE
                    + " up to 1 GiB: " + arenaSize);
        }
        if (initialArenas < 0 || maxArenas < 1 || initialArenas > maxArenas) {
            throw new IllegalArgumentException("need 0 <= initialArenas <= maxArenas and maxArenas >= 1: "
                    + initialArenas + ", " + maxArenas);
        }
        if (allocateTimeout.isNegative()) {
            throw new IllegalArgumentException("negative timeout " + allocateTimeout);
        }
    }

    /** 4 MiB arenas, 1 up front, at most {@code maxBytes} in all, 30 s allocation timeout. */
    public static BufferPoolConfig ofMaxBytes(long maxBytes) {
        int arenas = (int) Math.max(1, (maxBytes + DEFAULT_ARENA_SIZE - 1) / DEFAULT_ARENA_SIZE);
        return new BufferPoolConfig(DEFAULT_ARENA_SIZE, 1, arenas, Duration.ofSeconds(30));
    }
}
