package org.rpcrdma4j.verbs.disni;

import java.net.InetSocketAddress;

import org.junit.jupiter.api.extension.ExtendWith;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.conformance.AbstractMemoryRegistrationConformanceTest;

/** The conformance suite's memoryregistration tests over a real device; skipped with the reason unless -Drdma.disni=true. */
@ExtendWith(HardwareOnly.class)
class DisniMemoryRegistrationConformanceTest extends AbstractMemoryRegistrationConformanceTest {

    @Override
    protected RdmaDevice newDevice() throws Exception {
        return new DisniProvider().open(HardwareSetup.options());
    }

    /** An iWARP RNIC (siw, hardware) completes Writes and Sends once sent: a peer's refusal only breaks the link. */
    @Override
    protected boolean remoteErrorsReachTheRequest() {
        return !iwarp();
    }

    /** A DiSNI device listens on its own address. */
    @Override
    protected InetSocketAddress listenAddress() {
        return new InetSocketAddress(HardwareSetup.address(), 0);
    }
}
