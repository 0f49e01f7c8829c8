package org.rpcrdma4j.registration;

import java.nio.ByteBuffer;

import org.rpcrdma4j.verbs.PageList;
import org.rpcrdma4j.verbs.PageTable;
import org.rpcrdma4j.verbs.RegisteredMemory;

/**
 * A large block of direct memory registered once ({@link org.rpcrdma4j.verbs.Access#LOCAL_WRITE}) and carved into
 * pages. Its lkey serves SGEs of sends, receives, RDMA WRITE sources and (on IB/RoCE) RDMA READ sinks; per-I/O
 * registration maps its {@linkplain #page(int) page views} into page lists, so nothing is allocated per I/O.
 * <p>
 * The memory is page-aligned (by address), so offsets that are multiples of {@link #pageSize()} are page boundaries
 * for the device too. Arenas belong to a {@link RegisteredBufferPool}; getters are safe from any thread.
 */
public final class RegisteredArena {
    private final int id;
    private final int pageSize;
    private final ByteBuffer memory;
    private final PageTable pageTable;
    private final RegisteredMemory region;
    private final long nativeAddress;

    RegisteredArena(int id, ByteBuffer memory, int pageSize, RegisteredMemory region) {
        this.id = id;
        this.pageSize = pageSize;
        this.memory = memory;
        this.region = region;
        // carved from the registration's own buffer, so that a device can reach a run of pages through its views of
        // the whole region (PageTable#backing)
        this.pageTable = PageTable.of(region, pageSize);
        this.nativeAddress = DirectAddresses.atPosition(memory.duplicate().clear());
    }

    /** Allocates {@code size} bytes of page-aligned direct memory (a multiple of {@code pageSize}). */
    static ByteBuffer allocateAligned(int size, int pageSize) {
        ByteBuffer raw = ByteBuffer.allocateDirect(size + pageSize);
        ByteBuffer aligned = raw.alignedSlice(pageSize);
        return aligned.limit(size).slice();
    }

    /** The arena's number within its pool. */
    public int id() {
        return id;
    }

    public int size() {
        return memory.capacity();
    }

    public int pageSize() {
        return pageSize;
    }

    public int pageCount() {
        return pageTable.size();
    }

    /** The view of page {@code index} (direct, capacity {@link #pageSize()}), as {@link PageList} takes it. */
    public ByteBuffer page(int index) {
        return pageTable.page(index);
    }

    /** The arena's page views as a validated table, for naming a contiguous run in one page list entry. */
    public PageTable pageTable() {
        return pageTable;
    }

    /** The long-lived local key of the whole arena, for SGEs. */
    public int lkey() {
        return region.lkey();
    }

    /** The IOVA of the byte at {@code offset}, for SGEs under {@link #lkey()}. */
    public long address(int offset) {
        return region.iova() + offset;
    }

    /**
     * The native address of the arena's first byte (not its IOVA: where this process sees it), or 0 where the runtime
     * does not tell ({@link DirectAddresses#available()}): what plain NIO views of the arena are matched against.
     */
    public long nativeAddress() {
        return nativeAddress;
    }

    /** The arena's registration. */
    public RegisteredMemory region() {
        return region;
    }

    /** A new view of {@code length} bytes at {@code offset} (allocates; for synchronous registration only). */
    ByteBuffer view(int offset, int length) {
        return memory.duplicate().position(offset).limit(offset + length);
    }

    /** The arena's memory; shared, callers must duplicate before moving position or limit. */
    ByteBuffer memory() {
        return memory;
    }

    @Override
    public String toString() {
        return "RegisteredArena[" + id + ", " + size() + " bytes, lkey=" + org.rpcrdma4j.verbs.Stag.toString(lkey()) + "]";
    }
}
