package org.rpcrdma4j.verbs.ffm.conformance;

import java.net.InetSocketAddress;

import org.junit.jupiter.api.extension.ExtendWith;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.conformance.AbstractDataTransferConformanceTest;

/** The conformance suite's data transfer tests over the ffm provider, on a real device ({@link FfmRun}). */
@ExtendWith(FfmRun.class)
class FfmDataTransferConformanceTest extends AbstractDataTransferConformanceTest {
    @Override
    protected RdmaDevice newDevice() throws Exception {
        return FfmRun.device();
    }

    /** An iWARP device (siw) completes Writes and Sends once sent: a peer's refusal only breaks the connection. */
    @Override
    protected boolean remoteErrorsReachTheRequest() {
        return !iwarp();
    }

    @Override
    protected InetSocketAddress listenAddress() {
        return FfmRun.listenAddress();
    }
}
