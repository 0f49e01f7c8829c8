package org.rpcrdma4j.verbs.conformance;

import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.ConnectionManager;
import org.rpcrdma4j.verbs.DeviceAttributes;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.ResourceCounts;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * A device that passes every verb to the device it wraps, {@link #close()} included: the base of tests' devices that
 * change a few verbs (to inject faults, say) and override only those, reaching the wrapped device's verbs with
 * {@code super}.
 */
public class ForwardingRdmaDevice implements RdmaDevice {
    private final RdmaDevice device;

    protected ForwardingRdmaDevice(RdmaDevice device) {
        this.device = device;
    }

    @Override
    public String name() {
        return device.name();
    }

    @Override
    public DeviceAttributes attributes() {
        return device.attributes();
    }

    @Override
    public ProtectionDomain allocProtectionDomain() throws VerbsException {
        return device.allocProtectionDomain();
    }

    @Override
    public CompletionQueue createCompletionQueue(int entries) throws VerbsException {
        return device.createCompletionQueue(entries);
    }

    @Override
    public ConnectionManager connectionManager() {
        return device.connectionManager();
    }

    @Override
    public ResourceCounts resourceCounts() {
        return device.resourceCounts();
    }

    @Override
    public void close() {
        device.close();
    }
}
