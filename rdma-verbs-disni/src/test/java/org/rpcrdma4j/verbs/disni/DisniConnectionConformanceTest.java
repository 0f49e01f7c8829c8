package org.rpcrdma4j.verbs.disni;

import java.net.InetAddress;
import java.net.InetSocketAddress;

import org.junit.jupiter.api.extension.ExtendWith;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.conformance.AbstractConnectionConformanceTest;

/**
 * The conformance suite's connection tests over a real device; skipped with the reason unless -Drdma.disni=true.
 * The suite's tests that aim at a plain TCP port aim at the device's own address ({@link #tcpPeerHost()}): an RDMA
 * device reaches only the addresses of its interfaces, so a connect to 127.0.0.1 fails in address resolution.
 */
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

    /** A DiSNI device reaches only the addresses of its interfaces. */
    @Override
    protected InetAddress tcpPeerHost() {
        return HardwareSetup.address();
    }
}
