package org.rpcrdma4j.verbs.ffm.conformance;

import java.net.InetAddress;
import java.net.InetSocketAddress;

import org.junit.jupiter.api.extension.ExtendWith;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.conformance.AbstractConnectionConformanceTest;

/**
 * The conformance suite's connection tests over the ffm provider, on a real device ({@link FfmRun}). The tests that
 * aim at a plain TCP port aim at the device's own address: an RDMA device reaches only its interfaces' addresses.
 */
@ExtendWith(FfmRun.class)
class FfmConnectionConformanceTest extends AbstractConnectionConformanceTest {
    @Override
    protected RdmaDevice newDevice() throws Exception {
        return FfmRun.device();
    }

    /** An iWARP device (siw) completes Writes and Sends once sent: a peer's refusal only breaks the connection. */
    @Override
    protected boolean remoteErrorsReachTheRequest() {
        return !iwarp();
    }

    /** InfiniBand's and RoCE's connection manager delivers its message's whole private-data space. */
    @Override
    protected boolean privateDataPadded() {
        return !iwarp();
    }

    @Override
    protected InetSocketAddress listenAddress() {
        return FfmRun.listenAddress();
    }

    /** IPv4 without a route (the provider speaks IPv4 so far; the suite's default is IPv6). */
    @Override
    protected InetSocketAddress unreachableAddress() {
        return new InetSocketAddress("192.0.2.1", 20049);
    }

    @Override
    protected InetAddress tcpPeerHost() {
        return FfmRun.address();
    }
}
