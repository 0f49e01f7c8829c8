package org.rpcrdma4j.registration;

import java.util.Set;

import org.rpcrdma4j.verbs.DeviceAttributes;
import org.rpcrdma4j.verbs.DeviceCapability;

/**
 * How per-I/O registration is done; chosen once per connection ({@link #resolve}).
 */
public enum RegistrationMode {
    /** The best the device offers: FRWR, else FMR, else REG_MR. */
    AUTO,
    /** Fast registration work requests: REG_MR chained before the Send, LOCAL_INV after the reply. */
    FRWR,
    /** Fast memory regions: synchronous map at send, batched asynchronous unmap after the reply. */
    FMR,
    /**
     * Synchronous registration and deregistration of each I/O's memory ({@code ibv_reg_mr} per I/O); the only protected
     * mode for a device without fast registration (such as DiSNI's). Slow: counted as "hardway" registrations.
     */
    REG_MR;

    /**
     * The concrete mode for a device: {@link #AUTO} picks the best supported one; an explicit mode the device cannot
     * do is refused.
     *
     * @throws UnsupportedModeException when an explicit mode needs a capability the device lacks
     */
    public RegistrationMode resolve(DeviceAttributes attributes) throws UnsupportedModeException {
        switch (this) {
            case AUTO:
                if (supports(FRWR, attributes)) {
                    return FRWR;
                }
                return supports(FMR, attributes) ? FMR : REG_MR;
            case FRWR:
            case FMR:
                if (!supports(this, attributes)) {
                    throw new UnsupportedModeException("registration mode " + this + " needs device capabilities "
                            + required(this) + ", the device has " + attributes.capabilities());
                }
                return this;
            case REG_MR:
                return this;
            default:
                throw new IllegalStateException("unknown mode " + this);
        }
    }

    private static boolean supports(RegistrationMode mode, DeviceAttributes attributes) {
        return attributes.capabilities().containsAll(required(mode)) && attributes.maxFastRegDepth() > 0;
    }

    private static Set<DeviceCapability> required(RegistrationMode mode) {
        switch (mode) {
            case FRWR:
                return Set.of(DeviceCapability.FAST_REG, DeviceCapability.LOCAL_INV);
            case FMR:
                return Set.of(DeviceCapability.FMR);
            default:
                return Set.of();
        }
    }
}
