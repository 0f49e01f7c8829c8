package org.rpcrdma4j.xprt.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.verbs.DeviceAttributes;
import org.rpcrdma4j.verbs.TransportType;
import org.rpcrdma4j.xprt.internal.QueueSet;
import org.rpcrdma4j.xprt.internal.UnsignaledRun;

/** How a connection's send queue and inline size follow the slots, the registration handles and the device. */
class ClientConnectionSizesTest {
    private static DeviceAttributes device(int maxInlineData, int maxQpWr) {
        return new DeviceAttributes(TransportType.IWARP, 256, 8, maxInlineData, 128, 128, maxQpWr, 1 << 18,
                Integer.MAX_VALUE, 252, Set.of());
    }

    @Test
    void theSendQueueHoldsTwoEntriesPerSlotTwoRequestsPerHandleAndTheUnsignaledRun() throws Exception {
        // 130 slots of up to 16 segments, but only 300 handles: the handles bound the registration work requests
        QueueSet.Sizes sizes = ClientConnection.sizes(device(256, 16384), 130, 140, 16, 300);
        assertThat(sizes.maxSendWr()).isEqualTo(2 * 130 + 2 * 300 + UnsignaledRun.SIGNAL_EVERY);
        // more handles than the slots' segments can use: the segments bound them
        sizes = ClientConnection.sizes(device(256, 16384), 10, 20, 2, 300);
        assertThat(sizes.maxSendWr()).isEqualTo(2 * 10 + 10 * 2 * 2 + UnsignaledRun.SIGNAL_EVERY);
        // and never more than the device allows
        assertThat(ClientConnection.sizes(device(256, 500), 130, 140, 16, 300).maxSendWr()).isEqualTo(500);
    }

    @Test
    void smallCallsGoInlineUpToTheSmallerOfTheDevicesInlineSizeAnd256Bytes() throws Exception {
        assertThat(ClientConnection.sizes(device(1024, 16384), 4, 8, 2, 8).maxInlineData())
                .isEqualTo(UnsignaledRun.MAX_INLINE);
        assertThat(ClientConnection.sizes(device(64, 16384), 4, 8, 2, 8).maxInlineData()).isEqualTo(64);
        assertThat(ClientConnection.sizes(device(0, 16384), 4, 8, 2, 8).maxInlineData()).isZero();
    }
}
