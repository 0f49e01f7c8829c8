package org.rpcrdma4j.verbs.disni;

import java.net.InetSocketAddress;

import org.junit.jupiter.api.extension.ExtendWith;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.conformance.AbstractConnectionConformanceTest;

/** The conformance suite's connection tests over a real device; skipped with the reason unless -Drdma.disni=true. */
@ExtendWith(HardwareOnly.class)
class DisniConnectionConformanceTest extends AbstractConnectionConformanceTest {

    @Override
    protected RdmaDevice newDevice() throws Exception {
        return new DisniProvider().open(HardwareSetup.options());
    }

    /** An iWARP RNIC (siw, hardware) completes Writes and Sends once sent: a peer's refusal only breaks the link. */
    @Override
    protected boolean remoteErrorsReachTheRequest() {
        return !iwarp();
    }

    /** DiSNI hands no private data to the Java side, in either direction. */
    @Override
    protected boolean privateDataTravels() {
        return false;
    }

    /** A DiSNI device listens on its own address. */
    @Override
    protected InetSocketAddress listenAddress() {
        return new InetSocketAddress(HardwareSetup.address(), 0);
    }

    /** An IPv4 address without a route (DiSNI speaks IPv4 only; the suite's default is IPv6). */
    @Override
    protected InetSocketAddress unreachableAddress() {
        return new InetSocketAddress("192.0.2.1", 20049);
    }
}
