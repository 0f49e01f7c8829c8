package org.rpcrdma4j.verbs.ffm;

import java.util.List;
import java.util.stream.Collectors;

import org.rpcrdma4j.verbs.RdmaProvider;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.ffm.internal.DeviceList;
import org.rpcrdma4j.verbs.ffm.internal.NativeLibrary;

/** The RDMA devices of this host as libibverbs lists them, called through the FFM API. */
public final class FfmDevices {

    private FfmDevices() {
    }

    /**
     * Every device libibverbs lists, opened just long enough to query it.
     *
     * @throws VerbsException when libibverbs cannot be loaded, the kernel offers no verbs ({@link FfmVerbsException}
     *                        with {@code ENOSYS}), or a device cannot be opened or queried; each in one line naming
     *                        what was looked for
     */
    public static List<FfmDeviceInfo> list() throws VerbsException {
        return Holder.devices().query();
    }

    /**
     * Whether an RDMA device can be used through libibverbs here and, if not, why, in one line that suggests the
     * software device. Never throws.
     */
    public static RdmaProvider.Availability availability() {
        try {
            List<FfmDeviceInfo> devices = list();
            if (devices.isEmpty()) {
                return RdmaProvider.Availability.no("libibverbs lists no RDMA device (none under "
                        + "/sys/class/infiniband); --provider soft runs without RDMA hardware");
            }
            return RdmaProvider.Availability.yes(devices.stream()
                    .map(d -> d.name() + " (" + d.transport() + ")").collect(Collectors.joining(", ")));
        } catch (VerbsException | RuntimeException e) {
            return RdmaProvider.Availability.no(e.getMessage());
        }
    }

    /** The library and its handles, made once. */
    private static final class Holder {
        private static DeviceList devices;

        static synchronized DeviceList devices() throws VerbsException {
            if (devices == null) {
                devices = new DeviceList(NativeLibrary.open(NativeLibrary.IBVERBS));
            }
            return devices;
        }
    }
}
