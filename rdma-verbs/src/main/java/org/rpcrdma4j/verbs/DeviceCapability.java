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
    REMOTE_INV
}
