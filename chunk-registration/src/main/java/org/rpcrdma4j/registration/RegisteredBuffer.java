package org.rpcrdma4j.registration;

import java.nio.ByteBuffer;

import io.netty.buffer.ByteBuf;

/**
 * A reference-counted Netty {@link ByteBuf} over a run of pages of a {@link RegisteredArena}, from a
 * {@link RegisteredBufferPool}. Read and write it like any buffer; it starts with a reference count of 1, and the
 * {@code release()} that drops the count to 0 returns its pages to the pool. Its capacity is fixed.
 * <p>
 * It knows where it lives ({@link #arena()}, {@link #arenaOffset()}), so a {@link ScatterList} over it maps to page
 * lists without allocation, and an SGE over it is {@code (address(index), length, lkey())}.
 * <p>
 * Derived buffers ({@code slice()}, {@code duplicate()}) share the memory as usual; registration works on the
 * original buffer with explicit indices.
 */
public final class RegisteredBuffer extends FixedDirectBuffer {
    private final RegisteredBufferPool pool;
    private final RegisteredArena arena;
    private final int firstPage;
    private final int pageCount;
    /** The same memory as the superclass's buffer, for absolute bulk copies that need no duplicate. */
    private final ByteBuffer memory;
    private volatile Runnable whenFreed;

    RegisteredBuffer(RegisteredBufferPool pool, RegisteredArena arena, int firstPage, int pageCount, int size) {
        this(pool, arena, firstPage, pageCount, slice(arena, firstPage, size));
    }

    private RegisteredBuffer(RegisteredBufferPool pool, RegisteredArena arena, int firstPage, int pageCount,
                             ByteBuffer memory) {
        super(memory);
        this.memory = memory;
        this.pool = pool;
        this.arena = arena;
        this.firstPage = firstPage;
        this.pageCount = pageCount;
        clear();
    }

    private static ByteBuffer slice(RegisteredArena arena, int firstPage, int size) {
        int offset = firstPage * arena.pageSize();
        return arena.memory().duplicate().position(offset).limit(offset + size).slice();
    }

    public RegisteredArena arena() {
        return arena;
    }

    /** Offset of byte 0 of this buffer within its arena (a multiple of the page size). */
    public int arenaOffset() {
        return firstPage * arena.pageSize();
    }

    /** First page of the arena this buffer covers. */
    public int firstPage() {
        return firstPage;
    }

    /** Number of arena pages this buffer holds. */
    public int pageCount() {
        return pageCount;
    }

    /** The arena's long-lived local key, for SGEs over this buffer. */
    public int lkey() {
        return arena.lkey();
    }

    /** The IOVA of byte {@code index} of this buffer, for SGEs under {@link #lkey()}. */
    public long address(int index) {
        if (index < 0 || index > capacity()) {
            throw new IndexOutOfBoundsException("index " + index + " outside buffer of " + capacity());
        }
        return arena.address(arenaOffset() + index);
    }

    /** Whether this buffer's memory is registered with {@code pd} (so a connection on it can use it without a copy). */
    public boolean registeredWith(org.rpcrdma4j.verbs.ProtectionDomain pd) {
        return arena.region().protectionDomain() == pd;
    }

    /**
     * The index in this buffer of {@code range}'s first byte (a direct buffer's position), or -1 when the range is not
     * wholly inside this buffer's memory. See {@link RegisteredBufferPool#retainOwner(ByteBuffer)}.
     */
    public int indexOf(ByteBuffer range) {
        long at = DirectAddresses.atPosition(range);
        if (at == 0 || arena.nativeAddress() == 0) {
            return -1;
        }
        long offset = at - arena.nativeAddress() - arenaOffset();
        return offset >= 0 && offset + range.remaining() <= capacity() ? (int) offset : -1;
    }

    /*
     * Bulk copies between this buffer and arrays use the JDK's absolute bulk accessors: the superclass makes a
     * ByteBuffer duplicate per call for them, and they are on the transports' per-message path.
     */

    @Override
    public ByteBuf getBytes(int index, byte[] dst, int dstIndex, int length) {
        checkDstIndex(index, length, dstIndex, dst.length);
        memory.get(index, dst, dstIndex, length);
        return this;
    }

    @Override
    public ByteBuf setBytes(int index, byte[] src, int srcIndex, int length) {
        checkSrcIndex(index, length, srcIndex, src.length);
        memory.put(index, src, srcIndex, length);
        return this;
    }

    /**
     * Runs {@code action} once, right after the last release has given the pages back (on the releasing thread): for
     * accounting that must last exactly as long as the memory, such as a budget charged for holding it. One action per
     * buffer.
     *
     * @throws IllegalStateException when an action was set already
     */
    public void whenFreed(Runnable action) {
        if (whenFreed != null) {
            throw new IllegalStateException("an action is set already for " + this);
        }
        whenFreed = action;
    }

    /** The memory belongs to the arena: gives the pages back, then runs the freed action. */
    @Override
    protected void freed() {
        pool.free(arena, firstPage, pageCount);
        Runnable action = whenFreed;
        if (action != null) {
            action.run();
        }
    }

    @Override
    public String toString() {
        return "RegisteredBuffer[arena " + arena.id() + ", pages " + firstPage + "+" + pageCount + ", ridx="
                + readerIndex() + ", widx=" + writerIndex() + ", cap=" + capacity() + "]";
    }
}
