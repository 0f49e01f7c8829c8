package org.rpcrdma4j.verbs.ffm.conformance;

import java.net.InetSocketAddress;

import org.junit.jupiter.api.extension.ExtendWith;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.conformance.AbstractLargeTransferConformanceTest;

/** The conformance suite's large transfer tests over the ffm provider, on a real device ({@link FfmRun}). */
@ExtendWith(FfmRun.class)
class FfmLargeTransferConformanceTest extends AbstractLargeTransferConformanceTest {
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
     * 128 MiB each way: the guest's devices, software on one pinned core, moved 256 MiB in 28-43 s per test (a GiB
     * took the rxe suite past its five minutes once), and 8 windows of 16 MiB reuse every buffer and queue entry the
     * test is about as well as 64 do.
     */
    @Override
    protected long largeTransferBytes() {
        return 128L << 20;
    }

    @Override
    protected InetSocketAddress listenAddress() {
        return FfmRun.listenAddress();
    }
}
