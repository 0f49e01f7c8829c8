package org.rpcrdma4j.verbs.ffm.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;

import org.rpcrdma4j.verbs.TransportType;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.ffm.FfmDeviceInfo;

/**
 * The devices libibverbs lists ({@code ibv_get_device_list}), each opened just long enough to query it. Nothing is
 * left open when a query fails.
 */
public final class DeviceList {
    private final MethodHandle getDeviceList;
    private final MethodHandle freeDeviceList;
    private final MethodHandle getDeviceName;
    private final MethodHandle openDevice;
    private final MethodHandle closeDevice;
    private final MethodHandle queryDevice;
    private final MethodHandle queryPort;

    public DeviceList(NativeLibrary ibverbs) throws VerbsException {
        getDeviceList = ibverbs.function("ibv_get_device_list", FunctionDescriptor.of(ADDRESS, ADDRESS),
                Errno.CAPTURE);
        freeDeviceList = ibverbs.function("ibv_free_device_list", FunctionDescriptor.ofVoid(ADDRESS));
        getDeviceName = ibverbs.function("ibv_get_device_name", FunctionDescriptor.of(ADDRESS, ADDRESS));
        openDevice = ibverbs.function("ibv_open_device", FunctionDescriptor.of(ADDRESS, ADDRESS), Errno.CAPTURE);
        closeDevice = ibverbs.function("ibv_close_device", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        queryDevice = ibverbs.function("ibv_query_device", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        queryPort = ibverbs.function("ibv_query_port", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS));
    }

    /**
     * Every device, queried.
     *
     * @throws VerbsException when libibverbs cannot list devices (no kernel support: {@code ENOSYS}) or a device
     *                        cannot be opened or queried; typed {@link org.rpcrdma4j.verbs.ffm.FfmVerbsException}
     */
    public List<FfmDeviceInfo> query() throws VerbsException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment count = arena.allocate(JAVA_INT);
            MemorySegment list = (MemorySegment) getDeviceList.invokeExact(errno, count);
            if (list.equals(MemorySegment.NULL)) {
                int e = Errno.of(errno);
                throw Errno.failure("ibv_get_device_list", e, e == 38 // ENOSYS
                        ? "the kernel offers no RDMA verbs here (module ib_uverbs and a device driver, e.g. rdma_rxe "
                                + "or siw, must be loaded); --provider soft runs without RDMA hardware"
                        : null);
            }
            try {
                int n = count.get(JAVA_INT, 0);
                MemorySegment devices = list.reinterpret(ADDRESS.byteSize() * n);
                List<FfmDeviceInfo> all = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    all.add(query(arena, devices.getAtIndex(ADDRESS, i), errno));
                }
                return List.copyOf(all);
            } finally {
                freeDeviceList.invokeExact(list);
            }
        } catch (Throwable t) {
            throw Ibv.downcallFailure(t);
        }
    }

    private FfmDeviceInfo query(Arena arena, MemorySegment device, MemorySegment errno) throws Throwable {
        String name = ((MemorySegment) getDeviceName.invokeExact(device)).reinterpret(IbvAbi.SYSFS_NAME_MAX)
                .getString(0);
        int transportType = device.reinterpret(IbvAbi.DEVICE_SIZE).get(JAVA_INT, IbvAbi.DEVICE_TRANSPORT_TYPE);
        MemorySegment context = (MemorySegment) openDevice.invokeExact(errno, device);
        if (context.equals(MemorySegment.NULL)) {
            throw Errno.failure("ibv_open_device", Errno.of(errno), name);
        }
        FfmDeviceInfo info;
        try {
            info = describe(arena, context, name, transportType);
        } catch (Throwable t) {
            int ignored = (int) closeDevice.invokeExact(context); // the query's failure is the one to report
            throw t;
        }
        int rc = (int) closeDevice.invokeExact(context);
        if (rc != 0) {
            throw Errno.failure("ibv_close_device", rc, name);
        }
        return info;
    }

    /** What the device of an open verbs context (one of librdmacm's, say) is. */
    public FfmDeviceInfo describe(MemorySegment context) throws VerbsException {
        MemorySegment device = context.reinterpret(IbvAbi.CONTEXT_SIZE).get(ADDRESS, IbvAbi.CONTEXT_DEVICE)
                .reinterpret(IbvAbi.DEVICE_SIZE);
        String name = device.getString(IbvAbi.DEVICE_NAME);
        try (Arena arena = Arena.ofConfined()) {
            return describe(arena, context, name, device.get(JAVA_INT, IbvAbi.DEVICE_TRANSPORT_TYPE));
        } catch (Throwable t) {
            throw Ibv.downcallFailure(t);
        }
    }

    private FfmDeviceInfo describe(Arena arena, MemorySegment context, String name, int transportType)
            throws Throwable {
        MemorySegment attr = arena.allocate(IbvAbi.DEVICE_ATTR_SIZE, 8);
        int rc = (int) queryDevice.invokeExact(context, attr);
        if (rc != 0) {
            throw Errno.failure("ibv_query_device", rc, name);
        }
        TransportType transport = TransportType.IWARP;
        if (transportType == IbvAbi.TRANSPORT_IB) {
            MemorySegment port = arena.allocate(IbvAbi.PORT_ATTR_SIZE, 8);
            rc = (int) queryPort.invokeExact(context, (byte) 1, port);
            if (rc != 0) {
                throw Errno.failure("ibv_query_port", rc, name + " port 1");
            }
            transport = port.get(JAVA_BYTE, IbvAbi.PORT_ATTR_LINK_LAYER) == IbvAbi.LINK_LAYER_ETHERNET
                    ? TransportType.ROCE : TransportType.IB;
        } else if (transportType != IbvAbi.TRANSPORT_IWARP) {
            throw new VerbsException(name + ": transport type " + transportType
                    + " is neither InfiniBand, RoCE nor iWARP");
        }
        return new FfmDeviceInfo(name, transport, attr.get(JAVA_INT, IbvAbi.DEVICE_ATTR_VENDOR_ID),
                Byte.toUnsignedInt(attr.get(JAVA_BYTE, IbvAbi.DEVICE_ATTR_PHYS_PORT_CNT)),
                attr.get(JAVA_LONG, IbvAbi.DEVICE_ATTR_MAX_MR_SIZE),
                attr.get(JAVA_INT, IbvAbi.DEVICE_ATTR_MAX_QP_WR), attr.get(JAVA_INT, IbvAbi.DEVICE_ATTR_MAX_SGE),
                attr.get(JAVA_INT, IbvAbi.DEVICE_ATTR_MAX_CQE),
                attr.get(JAVA_INT, IbvAbi.DEVICE_ATTR_MAX_QP_RD_ATOM),
                attr.get(JAVA_INT, IbvAbi.DEVICE_ATTR_MAX_QP_INIT_RD_ATOM),
                attr.get(JAVA_INT, IbvAbi.DEVICE_ATTR_MAX_MW),
                attr.get(JAVA_INT, IbvAbi.DEVICE_ATTR_DEVICE_CAP_FLAGS));
    }
}
