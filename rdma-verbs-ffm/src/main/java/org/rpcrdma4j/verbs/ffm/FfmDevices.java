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

    /**
     * Prints the devices, one line each, or why there are none: {@code java --enable-native-access=ALL-UNNAMED -cp
     * ... org.rpcrdma4j.verbs.ffm.FfmDevices}. Exit status 0 with a device, 2 without.
     */
    public static void main(String[] args) {
        try {
            List<FfmDeviceInfo> devices = list();
            for (FfmDeviceInfo d : devices) {
                System.out.println(describe(d));
            }
            if (devices.isEmpty()) {
                System.out.println(availability().reason());
            }
            System.exit(devices.isEmpty() ? 2 : 0);
        } catch (VerbsException e) {
            System.out.println(e.getMessage());
            System.exit(2);
        }
    }

    /**
     * One line: the name, then {@code key value} pairs named and written as {@code ibv_devinfo -v} names and writes
     * them, then the features the transports use.
     */
    static String describe(FfmDeviceInfo d) {
        return d.name() + ": transport " + d.transport() + ", vendor_id 0x" + Integer.toHexString(d.vendorId())
                + ", phys_port_cnt " + d.physicalPorts() + ", max_mr_size 0x" + Long.toHexString(d.maxMrSize())
                + ", max_qp_wr " + d.maxQpWr() + ", max_sge " + d.maxSge() + ", max_cqe " + d.maxCqe()
                + ", max_qp_rd_atom " + d.maxQpRdAtom() + ", max_qp_init_rd_atom " + d.maxQpInitRdAtom()
                + ", max_mw " + d.maxMw() + ", device_cap_flags " + String.format("0x%08x", d.capFlags())
                + ", memory_windows_type_2 " + (d.memoryWindowType2() ? "yes" : "no")
                + ", memory_management_extensions " + (d.memoryManagementExtensions() ? "yes" : "no");
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
