package org.rpcrdma4j.registration;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.registration.fake.FakeCq;
import org.rpcrdma4j.registration.fake.FakeDevice;
import org.rpcrdma4j.verbs.WcOpcode;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;

class FmrCompletionQueueTest {

    @Test
    void syntheticCompletionsComeAheadOfTheDevicesAndFireTheListenerWhenArmed() throws Exception {
        FakeDevice device = FakeDevice.fmr(8);
        FakeCq deviceCq = device.createCompletionQueue(16);
        FmrCompletionQueue cq = new FmrCompletionQueue(deviceCq);
        AtomicInteger fired = new AtomicInteger();
        cq.setListener(q -> fired.incrementAndGet());
        WorkCompletion[] batch = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};

        cq.deliver(11, WcStatus.SUCCESS);
        assertThat(fired.get()).as("not armed").isZero();
        cq.requestNotify();
        cq.deliver(12, WcStatus.LOC_QP_OP_ERR);
        assertThat(fired.get()).isEqualTo(1);
        cq.deliver(13, WcStatus.SUCCESS);
        assertThat(fired.get()).as("fires once per arming").isEqualTo(1);

        assertThat(cq.poll(batch)).isEqualTo(3);
        assertThat(batch[0].wrId).isEqualTo(11);
        assertThat(batch[0].opcode).isEqualTo(WcOpcode.FMR_UNMAP);
        assertThat(batch[1].status).isEqualTo(WcStatus.LOC_QP_OP_ERR);
        assertThat(batch[2].wrId).isEqualTo(13);
        assertThat(cq.poll(batch)).isZero();

        for (int i = 0; i < 200; i++) {
            cq.deliver(i, WcStatus.SUCCESS); // grows past its initial ring
        }
        int seen = 0;
        for (int n; (n = cq.poll(batch)) > 0; ) {
            for (int i = 0; i < n; i++) {
                assertThat(batch[i].wrId).isEqualTo(seen++);
            }
        }
        assertThat(seen).isEqualTo(200);
        cq.close();
        assertThat(device.resourceCounts().completionQueues()).isZero();
    }
}
