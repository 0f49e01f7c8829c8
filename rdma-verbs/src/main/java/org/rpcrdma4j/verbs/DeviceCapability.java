package org.rpcrdma4j.verbs;

/** Optional device capabilities. A device that lacks one refuses the matching work request or verb. */
public enum DeviceCapability {
    /** Fast registration work requests ({@link Opcode#REG_MR}) on MRs from {@link ProtectionDomain#allocFastRegMr}. */
    FAST_REG,
    /** Fast memory regions: {@link ProtectionDomain#allocFmr}, synchronous map, batched unmap. */
    FMR,
    /** {@link Opcode#LOCAL_INV} work requests. */
    LOCAL_INV,
    /** {@link Opcode#SEND_WITH_INV} work requests (invalidate a peer's STag with a Send). */
    SEND_WITH_INV,
    /** {@link Opcode#RDMA_READ_WITH_INV}: the local sink STag is invalidated when the read completes. */
    READ_WITH_INV,
    /** The device invalidates a local STag named by an incoming Send with Invalidate and reports it in the receive completion. */
    REMOTE_INV,
    /**
     * Fast registration binds a type 2 memory window (verbs' user-space counterpart of FRWR) instead of mapping a
     * page list: a {@link Opcode#REG_MR} maps only one run of a {@link PageTable} whose {@link PageTable#backing()} is
     * memory registered on the same protection domain with {@link ProtectionDomain#registerMemory}, and its IOVA must
     * be the address of the run's first byte ({@code backing.iova()} + the byte's offset in the backing memory).
     * Local work requests reach the bound bytes under the region's {@link MemoryRegion#lkey()} as elsewhere (a window
     * has no local key of its own: a provider answers the backing memory's). Only qualifies {@link #FAST_REG}; a
     * device claims it where binding windows is the only fast registration it has.
     */
    MEMORY_WINDOW
}
