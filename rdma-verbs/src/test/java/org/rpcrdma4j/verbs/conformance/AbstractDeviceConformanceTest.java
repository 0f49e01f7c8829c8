package org.rpcrdma4j.verbs.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.DeviceAttributes;
import org.rpcrdma4j.verbs.DeviceCapability;
import org.rpcrdma4j.verbs.FastRegMemoryRegion;
import org.rpcrdma4j.verbs.Fmr;
import org.rpcrdma4j.verbs.MrState;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.QpState;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.ResourceCounts;
import org.rpcrdma4j.verbs.Stag;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WorkCompletion;

/** Device-level verbs without a connection: attributes, domains, regions, queues and what the device counts. */
@Timeout(60)
public abstract class AbstractDeviceConformanceTest extends VerbsFixture {

    @Test
    void attributesAreUsable() {
        DeviceAttributes a = device.attributes();
        assertThat(a.transportType()).isNotNull();
        assertThat(a.maxSge()).isPositive();
        assertThat(a.maxQpWr()).isPositive();
        assertThat(a.maxCqe()).isPositive();
        assertThat(a.maxQpRdAtom()).isPositive();
        assertThat(a.maxQpInitRdAtom()).isPositive();
        assertThat(a.maxInlineData()).isNotNegative();
        assertThat(a.maxPrivateData()).isNotNegative();
        assertThat(a.maxMessageSize()).isGreaterThanOrEqualTo(1 << 20);
        if (a.has(DeviceCapability.FAST_REG) || a.has(DeviceCapability.FMR)) {
            assertThat(a.maxFastRegDepth()).isPositive();
        }
        assertThat(device.name()).isNotBlank();
    }

    @Test
    void resourceCountsFollowOpenAndClose() throws Exception {
        assertThat(device.resourceCounts()).isEqualTo(ResourceCounts.NONE);
        ProtectionDomain pd = device.allocProtectionDomain();
        CompletionQueue cq = device.createCompletionQueue(16);
        RegisteredMemory mr = pd.registerMemory(ByteBuffer.allocateDirect(4096), Access.LOCAL_WRITE);
        QueuePair qp = pd.createQueuePair(new QueuePairConfig(cq, cq, 4, 4, 1, 1, 0));
        assertThat(device.resourceCounts()).isEqualTo(new ResourceCounts(1, 1, 1, 1, 0));
        assertThatThrownBy(pd::close).as("a domain with open regions").isInstanceOf(VerbsException.class);
        assertThatThrownBy(cq::close).as("a queue used by a queue pair").isInstanceOf(VerbsException.class);
        qp.close();
        assertThat(qp.state()).isEqualTo(QpState.CLOSED);
        mr.close();
        assertThat(mr.state()).isEqualTo(MrState.FREE);
        mr.close();
        cq.close();
        pd.close();
        pd.close();
        assertThat(device.resourceCounts()).isEqualTo(ResourceCounts.NONE);
    }

    @Test
    void closingTheDeviceClosesWhatItsOwnerLeftOpen() throws Exception {
        RdmaDevice own = newDevice(); // the fixture's devices are checked for leaks after the test: one of its own
        ProtectionDomain pd = own.allocProtectionDomain();
        CompletionQueue cq = own.createCompletionQueue(16);
        RegisteredMemory mr = pd.registerMemory(ByteBuffer.allocateDirect(4096), Access.LOCAL_WRITE);
        QueuePair qp = pd.createQueuePair(new QueuePairConfig(cq, cq, 4, 4, 1, 1, 0));
        FastRegMemoryRegion fastReg = own.attributes().has(DeviceCapability.FAST_REG) ? pd.allocFastRegMr(4) : null;
        own.close();
        assertThat(own.resourceCounts()).isEqualTo(ResourceCounts.NONE);
        assertThat(qp.state()).isEqualTo(QpState.CLOSED);
        assertThat(mr.state()).isEqualTo(MrState.FREE);
        if (fastReg != null) {
            assertThat(fastReg.state()).as("a fast-register region (a memory window on some devices)")
                    .isEqualTo(MrState.FREE);
        }
    }

    @Test
    void registeredMemoryCoversTheBufferRemainder() throws Exception {
        ProtectionDomain pd = pd(device);
        ByteBuffer buffer = ByteBuffer.allocateDirect(10_000).position(1000).limit(9000);
        int access = Access.LOCAL_WRITE | Access.REMOTE_READ;
        RegisteredMemory mr = own(pd.registerMemory(buffer, access));
        assertThat(mr.length()).isEqualTo(8000);
        assertThat(mr.access()).isEqualTo(access);
        assertThat(mr.state()).isEqualTo(MrState.VALID);
        assertThat(mr.protectionDomain()).isSameAs(pd);
        assertThat(mr.address(0)).isEqualTo(mr.iova());
        assertThat(mr.address(8000)).isEqualTo(mr.iova() + 8000);
        assertThatThrownBy(() -> mr.address(8001)).isInstanceOf(IndexOutOfBoundsException.class);
        if (iwarp()) {
            assertThat(mr.lkey()).isEqualTo(mr.rkey());
        }
        ByteBuffer view = mr.buffer();
        assertThat(view.position()).isZero();
        assertThat(view.capacity()).isEqualTo(8000);
        buffer.put(1000, (byte) 42);
        assertThat(view.get(0)).as("a view of the same bytes").isEqualTo((byte) 42);
    }

    @Test
    void heapBuffersCannotBeRegistered() throws Exception {
        ProtectionDomain pd = pd(device);
        assertThatThrownBy(() -> pd.registerMemory(ByteBuffer.allocate(64), Access.LOCAL_WRITE))
                .isInstanceOf(VerbsException.class);
    }

    @Test
    void remoteWriteWithoutLocalWriteIsRefused() throws Exception {
        ProtectionDomain pd = pd(device);
        assertThatThrownBy(() -> pd.registerMemory(ByteBuffer.allocateDirect(64), Access.REMOTE_WRITE))
                .isInstanceOf(VerbsException.class);
    }

    @Test
    void everyRegistrationHasItsOwnStag() throws Exception {
        ProtectionDomain pd = pd(device);
        Set<Integer> indices = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            RegisteredMemory mr = own(pd.registerMemory(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE));
            // the local key: a registration without remote rights may have no remote key (rxe reports 0)
            assertThat(indices.add(Stag.index(mr.lkey()))).as("STag index reused").isTrue();
        }
    }

    @Test
    void fastRegisterRegionStartsInvalid() throws Exception {
        assumeTrue(supports(DeviceCapability.FAST_REG), "device without fast registration");
        ProtectionDomain pd = pd(device);
        int depth = device.attributes().maxFastRegDepth();
        FastRegMemoryRegion mr = own(pd.allocFastRegMr(depth));
        assertThat(mr.state()).isEqualTo(MrState.INVALID);
        assertThat(mr.maxPages()).isEqualTo(depth);
        assertThat(mr.length()).isZero();
        assertThatThrownBy(() -> pd.allocFastRegMr(depth + 1)).isInstanceOf(VerbsException.class);
        mr.close();
        assertThat(mr.state()).isEqualTo(MrState.FREE);
    }

    @Test
    void fmrUnmapBatchIgnoresUnmappedRegions() throws Exception {
        assumeTrue(supports(DeviceCapability.FMR), "device without FMR");
        ProtectionDomain pd = pd(device);
        Fmr a = own(pd.allocFmr(2, Access.LOCAL_WRITE | Access.REMOTE_WRITE));
        Fmr b = own(pd.allocFmr(2, Access.LOCAL_WRITE | Access.REMOTE_WRITE));
        ByteBuffer memory = pages(2);
        int key = a.map(pageList(memory, 0, 8192, 0x10000));
        assertThat(a.rkey()).isEqualTo(key);
        assertThatThrownBy(() -> b.map(pageList(pages(3), 0, 12288, 0))).as("deeper than the FMR")
                .isInstanceOf(VerbsException.class);
        pd.unmapFmrs(List.of(a, b));
        assertThat(a.state()).isEqualTo(MrState.INVALID);
        assertThat(b.state()).isEqualTo(MrState.INVALID);
    }

    @Test
    void queuePairLimitsAreEnforced() throws Exception {
        ProtectionDomain pd = pd(device);
        CompletionQueue cq = cq(device, 16);
        DeviceAttributes a = device.attributes();
        assertThatThrownBy(() -> pd.createQueuePair(new QueuePairConfig(cq, cq, 4, 4, a.maxSge() + 1, 1, 0)))
                .isInstanceOf(VerbsException.class);
        assertThatThrownBy(() -> pd.createQueuePair(new QueuePairConfig(cq, cq, a.maxQpWr() + 1, 4, 1, 1, 0)))
                .isInstanceOf(VerbsException.class);
        assertThatThrownBy(() -> pd.createQueuePair(new QueuePairConfig(cq, cq, 4, 4, 1, 1,
                a.maxInlineData() + 1))).isInstanceOf(VerbsException.class);
        QueuePair qp = own(pd.createQueuePair(new QueuePairConfig(cq, cq, 4, 4, 1, 1, a.maxInlineData())));
        assertThat(qp.state()).isEqualTo(QpState.INIT);
        assertThat(qp.connectionInfo()).isNull();
        assertThat(qp.protectionDomain()).isSameAs(pd);
    }

    @Test
    void completionQueueHoldsAtLeastWhatWasAsked() throws Exception {
        CompletionQueue cq = cq(device, 100);
        assertThat(cq.capacity()).isGreaterThanOrEqualTo(100);
        assertThat(cq.poll(new WorkCompletion[] {new WorkCompletion()})).isZero();
    }

    @Test
    void receivesPostedBeforeConnectingAreFlushedWhenTheQueuePairCloses() throws Exception {
        Endpoint e = endpoint(device, Sizes.defaults());
        RegisteredMemory mr = register(e.pd, 4096, Access.LOCAL_WRITE);
        e.qp.postRecv(recv(1, mr, 0, 4096));
        e.qp.disconnect();
        WorkCompletion wc = awaitWrId(e.recvCq, 1);
        assertThat(wc.status).isEqualTo(org.rpcrdma4j.verbs.WcStatus.WR_FLUSH_ERR);
    }
}
