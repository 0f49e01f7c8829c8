package org.rpcrdma4j.verbs.ffm;

import org.rpcrdma4j.verbs.TransportType;
import org.rpcrdma4j.verbs.ffm.internal.IbvAbi;

/**
 * What libibverbs says of one RDMA device: {@code ibv_query_device}, and {@code ibv_query_port} of its first port for
 * the link layer (InfiniBand or Ethernet, which tells RoCE from InfiniBand).
 *
 * @param name            the kernel's name of the device (mlx5_0, rxe0, siw0)
 * @param transport       IB, RoCE or iWARP
 * @param vendorId        the IEEE vendor id (0 for the software devices)
 * @param physicalPorts   ports of the device
 * @param maxMrSize       the largest memory region, in bytes (unsigned: all ones for no limit)
 * @param maxQpWr         work requests per queue of a queue pair
 * @param maxSge          scatter/gather entries per work request
 * @param maxCqe          entries per completion queue
 * @param maxQpRdAtom     IRD: RDMA READs a queue pair accepts in flight as responder
 * @param maxQpInitRdAtom ORD: RDMA READs a queue pair may have in flight as requester
 * @param maxMw           memory windows the device can allocate
 * @param capFlags        {@code device_cap_flags}, as libibverbs reports them
 */
public record FfmDeviceInfo(String name, TransportType transport, int vendorId, int physicalPorts, long maxMrSize,
                            int maxQpWr, int maxSge, int maxCqe, int maxQpRdAtom, int maxQpInitRdAtom, int maxMw,
                            int capFlags) {
    /** Whether the device has type 2 memory windows (bound with a work request, invalidated remotely or locally). */
    public boolean memoryWindowType2() {
        return maxMw > 0 && (capFlags & (IbvAbi.DEVICE_MEM_WINDOW_TYPE_2A | IbvAbi.DEVICE_MEM_WINDOW_TYPE_2B)) != 0;
    }

    /** Whether the device has the memory management extensions (local invalidate, send with invalidate). */
    public boolean memoryManagementExtensions() {
        return (capFlags & IbvAbi.DEVICE_MEM_MGT_EXTENSIONS) != 0;
    }
}
