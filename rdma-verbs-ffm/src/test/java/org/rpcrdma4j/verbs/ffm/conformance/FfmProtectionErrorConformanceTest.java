package org.rpcrdma4j.verbs.ffm.conformance;

import java.net.InetSocketAddress;

import org.junit.jupiter.api.extension.ExtendWith;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.conformance.AbstractProtectionErrorConformanceTest;

/** The conformance suite's protection error tests over the ffm provider, on a real device ({@link FfmRun}). */
@ExtendWith(FfmRun.class)
class FfmProtectionErrorConformanceTest extends AbstractProtectionErrorConformanceTest {
    @Override
    protected RdmaDevice newDevice() throws Exception {
        return FfmRun.device();
    }

    /** An iWARP device (siw) completes Writes and Sends once sent: a peer's refusal only breaks the connection. */
    @Override
    protected boolean remoteErrorsReachTheRequest() {
        return !iwarp();
    }

    /**
     * InfiniBand and RoCE: a Send that finds no receive is answered with an RNR NAK, and with no RNR retries (this
     * provider's default, as Linux's) it fails with RNR_RETRY_EXC_ERR.
     */
    @Override
    protected WcStatus refusedSendStatus() {
        return iwarp() ? WcStatus.REM_OP_ERR : WcStatus.RNR_RETRY_EXC_ERR;
    }

    @Override
    protected InetSocketAddress listenAddress() {
        return FfmRun.listenAddress();
    }
}
