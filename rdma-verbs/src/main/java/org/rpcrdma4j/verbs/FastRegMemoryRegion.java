package org.rpcrdma4j.verbs;

/**
 * A memory region for fast registration (FRWR). Allocated invalid with a fixed page-list depth; a REG_MR work request
 * maps a {@link PageList} onto it with a new key and access rights, LOCAL_INV (or a peer's Send with Invalidate, or
 * READ_WITH_INV) makes it invalid again. REG_MR on a valid region fails.
 * <p>
 * On a device with {@link DeviceCapability#MEMORY_WINDOW} the region is a type 2 memory window: what REG_MR can map is
 * narrower (one run of registered memory, at its own address), see there.
 */
public interface FastRegMemoryRegion extends MemoryRegion {

    /** The most pages one registration can map. */
    int maxPages();
}
