package org.rpcrdma4j.verbs.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.DeviceCapability;
import org.rpcrdma4j.verbs.FastRegMemoryRegion;
import org.rpcrdma4j.verbs.Fmr;
import org.rpcrdma4j.verbs.MrState;
import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.verbs.PageList;
import org.rpcrdma4j.verbs.PageTable;
import org.rpcrdma4j.verbs.PostException;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.Stag;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WcOpcode;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * Registration per I/O: fast registration (REG_MR) of page lists, local invalidation, remote invalidation (Send
 * with Invalidate), Read with Invalidate, FMR map/unmap — each checked by a peer's RDMA access that must work while
 * the registration is valid and fail after.
 */
@Timeout(120)
public abstract class AbstractMemoryRegistrationConformanceTest extends VerbsFixture {
    private static final int REMOTE = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;
    private static final long IOVA = 0x0000_7F00_1234_0000L;

    @Test
    void fastRegisteredPagesTakeAPeersWriteAndServeItsRead() throws Exception {
        assumeTrue(supports(DeviceCapability.FAST_REG), "device without fast registration");
        Connection c = connect();
        FastRegMemory m = fastRegMemory(c.server().pd, 8, IOVA);
        ByteBuffer memory = m.memory();
        FastRegMemoryRegion mr = own(c.server().pd.allocFastRegMr(8));
        assertThat(mr.state()).isEqualTo(MrState.INVALID);
        assertThat(mr.maxPages()).isEqualTo(8);
        PageList list = m.pageList(1000, 20_000);
        SendWorkRequest reg = fastRegister(1, mr, list, REMOTE);
        c.server().qp.postSend(reg);
        WorkCompletion done = await(c.server().sendCq);
        assertThat(done.status).isEqualTo(WcStatus.SUCCESS);
        assertThat(done.opcode).isEqualTo(WcOpcode.REG_MR);
        assertThat(mr.state()).isEqualTo(MrState.VALID);
        assertThat(mr.rkey()).isEqualTo(reg.key);
        assertThat(mr.iova()).isEqualTo(m.iova(1000));
        assertThat(mr.length()).isEqualTo(20_000);

        RegisteredMemory local = register(c.client().pd, 40_000, REMOTE);
        fill(local.buffer(), 21);
        c.client().qp.postSend(write(2, local, 0, 20_000, mr.rkey(), m.iova(1000)));
        assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.SUCCESS);
        assertThat(bytes(memory, 1000, 20_000)).isEqualTo(bytes(local.buffer(), 0, 20_000));
        assertThat(bytes(memory, 0, 1000)).containsOnly(0);

        c.client().qp.postSend(read(3, local, 20_000, 5000, mr.rkey(), m.iova(7000)));
        assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.SUCCESS);
        assertThat(bytes(local.buffer(), 20_000, 5000)).isEqualTo(bytes(memory, 7000, 5000));
    }

    /**
     * A page list naming a run of a page table (taken over by the device without a per-page copy) maps exactly the
     * run's pages: a peer's WRITE and READ inside reach them, the neighbouring pages of the table stay untouched,
     * and a WRITE that runs past the registered pages is refused.
     */
    @Test
    void tableRunRegistrationReachesOnlyItsPages() throws Exception {
        assumeTrue(supports(DeviceCapability.FAST_REG), "device without fast registration");
        Connection c = connect();
        FastRegMemory m = fastRegMemory(c.server().pd, 8, IOVA);
        ByteBuffer memory = m.memory();
        PageTable table = m.table();
        if (table == null) {
            ByteBuffer[] views = new ByteBuffer[8];
            for (int p = 0; p < 8; p++) {
                views[p] = memory.slice(p * 4096, 4096);
            }
            table = new PageTable(views, 4096);
        }
        FastRegMemoryRegion mr = own(c.server().pd.allocFastRegMr(4));
        PageList list = new PageList(4).addRun(table, 2, 3).set(100, 3 * 4096 - 100, m.iova(2 * 4096 + 100));
        assertThat(list.table()).isSameAs(table);
        SendWorkRequest reg = fastRegister(1, mr, list, REMOTE);
        c.server().qp.postSend(reg);
        assertThat(await(c.server().sendCq).status).isEqualTo(WcStatus.SUCCESS);
        list.clear().add(table.page(7));

        RegisteredMemory local = register(c.client().pd, 4 * 4096, REMOTE);
        fill(local.buffer(), 31);
        c.client().qp.postSend(write(2, local, 0, 3 * 4096 - 100, mr.rkey(), m.iova(2 * 4096 + 100)));
        assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.SUCCESS);
        assertThat(bytes(memory, 2 * 4096 + 100, 3 * 4096 - 100)).isEqualTo(bytes(local.buffer(), 0, 3 * 4096 - 100));
        assertThat(bytes(memory, 0, 2 * 4096 + 100)).as("pages before the run").containsOnly(0);
        assertThat(bytes(memory, 5 * 4096, 3 * 4096)).as("pages after the run").containsOnly(0);

        c.client().qp.postSend(read(3, local, 3 * 4096, 4000, mr.rkey(), m.iova(3 * 4096 + 50)));
        assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.SUCCESS);
        assertThat(bytes(local.buffer(), 3 * 4096, 4000)).isEqualTo(bytes(memory, 3 * 4096 + 50, 4000));

        c.client().qp.postSend(write(4, local, 0, 200, mr.rkey(), m.iova(5 * 4096 - 100)));
        assertRefused(await(c.client().sendCq), WcStatus.REM_ACCESS_ERR);
        assertThat(bytes(memory, 5 * 4096, 3 * 4096)).as("pages after the run").containsOnly(0);
        assertBroken(c);
    }

    /**
     * A run of a table carved from registered memory ({@link PageTable#of}, as a buffer pool's arenas are) maps the
     * run's bytes of that memory: a peer's WRITE and READ of many segments across it, starting inside a page, reach
     * exactly them, the memory around the run stays untouched, and a WRITE past the run is refused.
     */
    @Test
    void runOfATableCarvedFromRegisteredMemoryReachesOnlyItsBytes() throws Exception {
        assumeTrue(supports(DeviceCapability.FAST_REG), "device without fast registration");
        Connection c = connect();
        RegisteredMemory arena = register(c.server().pd, 40 * 4096, Access.LOCAL_WRITE);
        ByteBuffer memory = arena.buffer();
        PageTable table = PageTable.of(arena, 4096);
        assertThat(table.size()).isEqualTo(40);
        FastRegMemoryRegion mr = own(c.server().pd.allocFastRegMr(34));
        int length = 34 * 4096 - 100;
        // a window binds memory at its own address; page lists may map it anywhere
        long iova = supports(DeviceCapability.MEMORY_WINDOW) ? arena.iova() + 3 * 4096 + 100 : IOVA + 100;
        SendWorkRequest reg = fastRegister(1, mr, new PageList(34).addRun(table, 3, 34).set(100, length, iova),
                REMOTE);
        c.server().qp.postSend(reg);
        assertThat(await(c.server().sendCq).status).isEqualTo(WcStatus.SUCCESS);

        RegisteredMemory local = register(c.client().pd, 2 * 34 * 4096, REMOTE);
        fill(local.buffer(), 57);
        c.client().qp.postSend(write(2, local, 0, length, mr.rkey(), iova));
        assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.SUCCESS);
        assertThat(bytes(memory, 3 * 4096 + 100, length)).isEqualTo(bytes(local.buffer(), 0, length));
        assertThat(bytes(memory, 0, 3 * 4096 + 100)).as("memory before the run").containsOnly(0);
        assertThat(bytes(memory, 37 * 4096, 3 * 4096)).as("memory after the run").containsOnly(0);

        int back = length - 8000; // from 7,996 bytes into the mapping to 4 before its end
        c.client().qp.postSend(read(3, local, 34 * 4096, back, mr.rkey(), iova + 4096 + 3900));
        assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.SUCCESS);
        assertThat(bytes(local.buffer(), 34 * 4096, back)).isEqualTo(bytes(memory, 4 * 4096 + 4000, back));

        c.client().qp.postSend(write(4, local, 0, 200, mr.rkey(), iova + 34 * 4096 - 200));
        assertRefused(await(c.client().sendCq), WcStatus.REM_ACCESS_ERR);
        assertThat(bytes(memory, 37 * 4096, 3 * 4096)).as("memory after the run").containsOnly(0);
        assertBroken(c);
    }

    @Test
    void registrationChainedBeforeTheSendThatAdvertisesIt() throws Exception {
        assumeTrue(supports(DeviceCapability.FAST_REG), "device without fast registration");
        Connection c = connect();
        FastRegMemory m = fastRegMemory(c.server().pd, 2, IOVA);
        ByteBuffer memory = m.memory();
        fill(memory, 22);
        FastRegMemoryRegion mr = own(c.server().pd.allocFastRegMr(2));
        RegisteredMemory note = register(c.server().pd, 64, Access.LOCAL_WRITE);
        RegisteredMemory inbox = register(c.client().pd, 64, Access.LOCAL_WRITE);
        c.client().qp.postRecv(recv(1, inbox, 0, 64));
        SendWorkRequest reg = fastRegister(10, mr, m.pageList(0, 8192), Access.LOCAL_WRITE
                | Access.REMOTE_READ);
        reg.flags = 0;
        note.buffer().putInt(0, reg.key);
        c.server().qp.postSend(chain(reg, send(11, note, 0, 4)));
        assertThat(await(c.client().recvCq).status).isEqualTo(WcStatus.SUCCESS);
        int rkey = inbox.buffer().getInt(0);
        RegisteredMemory sink = register(c.client().pd, 8192, REMOTE);
        c.client().qp.postSend(read(2, sink, 0, 8192, rkey, m.iova(0)));
        assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.SUCCESS);
        assertThat(sink.buffer()).isEqualTo(memory.duplicate().clear());
        WorkCompletion wc = await(c.server().sendCq);
        assertThat(wc.wrId).as("the unsignaled REG_MR completed silently").isEqualTo(11);
    }

    @Test
    void localInvalidateEndsRemoteAccess() throws Exception {
        assumeTrue(supports(DeviceCapability.FAST_REG) && supports(DeviceCapability.LOCAL_INV),
                "device without fast registration and local invalidation");
        Connection c = connect();
        FastRegMemory m = fastRegMemory(c.server().pd, 1, IOVA);
        ByteBuffer memory = m.memory();
        FastRegMemoryRegion mr = own(c.server().pd.allocFastRegMr(1));
        c.server().qp.postSend(fastRegister(1, mr, m.pageList(0, 4096), REMOTE));
        assertThat(await(c.server().sendCq).status).isEqualTo(WcStatus.SUCCESS);
        int rkey = mr.rkey();
        c.server().qp.postSend(localInvalidate(2, rkey));
        WorkCompletion inv = await(c.server().sendCq);
        assertThat(inv.status).isEqualTo(WcStatus.SUCCESS);
        assertThat(inv.opcode).isEqualTo(WcOpcode.LOCAL_INV);
        assertThat(mr.state()).isEqualTo(MrState.INVALID);

        RegisteredMemory local = register(c.client().pd, 4096, REMOTE);
        fill(local.buffer(), 23);
        c.client().qp.postSend(write(3, local, 0, 4096, rkey, m.iova(0)));
        assertRefused(await(c.client().sendCq), WcStatus.REM_ACCESS_ERR);
        assertThat(bytes(memory, 0, 4096)).containsOnly(0);
        assertBroken(c);
    }

    @Test
    void reRegistrationWithTheNextKeyWorksAndTheOldKeyFails() throws Exception {
        assumeTrue(supports(DeviceCapability.FAST_REG) && supports(DeviceCapability.LOCAL_INV),
                "device without fast registration and local invalidation");
        Connection c = connect();
        FastRegMemory m = fastRegMemory(c.server().pd, 1, IOVA);
        ByteBuffer memory = m.memory();
        FastRegMemoryRegion mr = own(c.server().pd.allocFastRegMr(1));
        int index = Stag.index(mr.rkey());
        c.server().qp.postSend(chain(fastRegister(1, mr, m.pageList(0, 4096), REMOTE),
                localInvalidate(2, Stag.nextKey(mr.rkey()))));
        assertThat(awaitAll(c.server().sendCq, 2)).extracting(wc -> wc.status).containsOnly(WcStatus.SUCCESS);
        int oldKey = mr.rkey();
        c.server().qp.postSend(fastRegister(3, mr, m.pageList(0, 4096), REMOTE));
        assertThat(await(c.server().sendCq).status).isEqualTo(WcStatus.SUCCESS);
        assertThat(Stag.index(mr.rkey())).isEqualTo(index);
        assertThat(mr.rkey()).isNotEqualTo(oldKey);

        RegisteredMemory local = register(c.client().pd, 4096, REMOTE);
        fill(local.buffer(), 24);
        c.client().qp.postSend(write(4, local, 0, 100, mr.rkey(), m.iova(0)));
        assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.SUCCESS);
        assertThat(bytes(memory, 0, 100)).isEqualTo(bytes(local.buffer(), 0, 100));
        c.client().qp.postSend(write(5, local, 0, 100, oldKey, m.iova(200)));
        assertRefused(await(c.client().sendCq), WcStatus.REM_ACCESS_ERR);
        assertThat(bytes(memory, 200, 100)).containsOnly(0);
        assertBroken(c);
    }

    @Test
    void sendWithInvalidateInvalidatesThePeersRegion() throws Exception {
        assumeTrue(supports(DeviceCapability.FAST_REG) && supports(DeviceCapability.SEND_WITH_INV)
                && supports(DeviceCapability.REMOTE_INV), "device without remote invalidation");
        Connection c = connect();
        FastRegMemory m = fastRegMemory(c.server().pd, 1, IOVA);
        ByteBuffer memory = m.memory();
        FastRegMemoryRegion mr = own(c.server().pd.allocFastRegMr(1));
        c.server().qp.postSend(fastRegister(1, mr, m.pageList(0, 4096), REMOTE));
        assertThat(await(c.server().sendCq).status).isEqualTo(WcStatus.SUCCESS);
        int rkey = mr.rkey();
        RegisteredMemory inbox = register(c.server().pd, 64, Access.LOCAL_WRITE);
        RegisteredMemory local = register(c.client().pd, 4096, REMOTE);
        fill(local.buffer(), 25);
        c.server().qp.postRecv(recv(7, inbox, 0, 64));
        SendWorkRequest sendInv = send(2, local, 0, 32);
        sendInv.opcode = Opcode.SEND_WITH_INV;
        sendInv.invalidateStag = rkey;
        c.client().qp.postSend(chain(write(1, local, 0, 4096, rkey, m.iova(0)), sendInv));

        WorkCompletion r = await(c.server().recvCq);
        assertThat(r.status).isEqualTo(WcStatus.SUCCESS);
        assertThat(r.withInvalidate()).isTrue();
        assertThat(r.invalidatedStag).isEqualTo(rkey);
        assertThat(r.byteLen).isEqualTo(32);
        assertThat(mr.state()).isEqualTo(MrState.INVALID);
        assertThat(bytes(memory, 0, 4096)).isEqualTo(bytes(local.buffer(), 0, 4096));
        assertThat(awaitAll(c.client().sendCq, 2)).extracting(wc -> wc.status).containsOnly(WcStatus.SUCCESS);

        c.server().qp.postSend(fastRegister(3, mr, m.pageList(0, 4096), REMOTE));
        assertThat(await(c.server().sendCq).status).as("an invalidated region can be registered again")
                .isEqualTo(WcStatus.SUCCESS);
    }

    /**
     * A Send with Invalidate small enough to go inline may be posted inline, as small RPC-over-RDMA replies are: the
     * post is taken and the Send completes (siw refuses such a post natively; its provider sends it from its SGE).
     * What the receiver does with a key it does not know is the device's.
     */
    @Test
    void aSendWithInvalidateMayBePostedInline() throws Exception {
        assumeTrue(supports(DeviceCapability.SEND_WITH_INV), "device without Send with Invalidate");
        Connection c = connect();
        int inline = Math.min(32, device.attributes().maxInlineData());
        assumeTrue(inline > 0, "device without inline data");
        RegisteredMemory inbox = register(c.server().pd, 64, Access.LOCAL_WRITE);
        RegisteredMemory local = register(c.client().pd, 64, Access.LOCAL_WRITE);
        fill(local.buffer(), 27);
        c.server().qp.postRecv(recv(7, inbox, 0, 64));
        SendWorkRequest wr = send(1, local, 0, inline);
        wr.opcode = Opcode.SEND_WITH_INV;
        wr.invalidateStag = 0x00BEEF00;
        wr.flags |= SendWorkRequest.INLINE;
        c.client().qp.postSend(wr);
        WorkCompletion sent = await(c.client().sendCq);
        assertThat(sent.wrId).isEqualTo(1);
        assertThat(await(c.server().recvCq).wrId).as("the Send reached the receiver").isEqualTo(7);
    }

    @Test
    void readWithInvalidateInvalidatesTheSink() throws Exception {
        assumeTrue(supports(DeviceCapability.FAST_REG) && supports(DeviceCapability.READ_WITH_INV),
                "device without Read with Invalidate");
        Connection c = connect();
        RegisteredMemory source = register(c.server().pd, 16384, REMOTE);
        fill(source.buffer(), 26);
        FastRegMemory m = fastRegMemory(c.client().pd, 4, IOVA);
        ByteBuffer memory = m.memory();
        FastRegMemoryRegion sink = own(c.client().pd.allocFastRegMr(4));
        c.client().qp.postSend(fastRegister(1, sink, m.pageList(0, 16384), REMOTE));
        assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.SUCCESS);
        SendWorkRequest rd = new SendWorkRequest(1);
        rd.wrId = 2;
        rd.opcode = Opcode.RDMA_READ_WITH_INV;
        rd.flags = SendWorkRequest.SIGNALED;
        rd.addSge().set(m.iova(0), 16384, sink.lkey());
        rd.rkey = source.rkey();
        rd.remoteAddress = source.address(0);
        rd.invalidateStag = sink.lkey();
        c.client().qp.postSend(rd);
        WorkCompletion wc = await(c.client().sendCq);
        assertThat(wc.status).isEqualTo(WcStatus.SUCCESS);
        assertThat(wc.opcode).isEqualTo(WcOpcode.RDMA_READ);
        assertThat(wc.byteLen).isEqualTo(16384);
        assertThat(sink.state()).isEqualTo(MrState.INVALID);
        assertThat(memory.duplicate().clear()).isEqualTo(source.buffer());
    }

    @Test
    void fastRegisteredRegionAsLocalSgeForSendAndReceive() throws Exception {
        assumeTrue(supports(DeviceCapability.FAST_REG), "device without fast registration");
        Connection c = connect();
        FastRegMemory outM = fastRegMemory(c.client().pd, 2, IOVA);
        FastRegMemory inM = fastRegMemory(c.server().pd, 2, IOVA + 0x10000);
        ByteBuffer outMem = outM.memory();
        ByteBuffer inMem = inM.memory();
        fill(outMem, 27);
        FastRegMemoryRegion out = own(c.client().pd.allocFastRegMr(2));
        FastRegMemoryRegion in = own(c.server().pd.allocFastRegMr(2));
        c.client().qp.postSend(fastRegister(1, out, outM.pageList(100, 6000), Access.LOCAL_WRITE));
        c.server().qp.postSend(fastRegister(1, in, inM.pageList(50, 7000), Access.LOCAL_WRITE));
        assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.SUCCESS);
        assertThat(await(c.server().sendCq).status).isEqualTo(WcStatus.SUCCESS);
        org.rpcrdma4j.verbs.RecvWorkRequest r = new org.rpcrdma4j.verbs.RecvWorkRequest(1);
        r.wrId = 2;
        r.addSge().set(inM.iova(50), 7000, in.lkey());
        c.server().qp.postRecv(r);
        SendWorkRequest s = new SendWorkRequest(1);
        s.wrId = 3;
        s.flags = SendWorkRequest.SIGNALED;
        s.addSge().set(outM.iova(100), 6000, out.lkey());
        c.client().qp.postSend(s);
        assertThat(await(c.server().recvCq).status).isEqualTo(WcStatus.SUCCESS);
        assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.SUCCESS);
        assertThat(bytes(inMem, 50, 6000)).isEqualTo(bytes(outMem, 100, 6000));
    }

    @Test
    void fmrMapsWithANewKeyEachTimeAndUnmapEndsAccess() throws Exception {
        assumeTrue(supports(DeviceCapability.FMR), "device without FMR");
        Connection c = connect();
        ByteBuffer memory = pages(4);
        Fmr fmr = own(c.server().pd.allocFmr(4, REMOTE));
        assertThat(fmr.state()).isEqualTo(MrState.INVALID);
        int first = fmr.map(pageList(memory, 0, 16384, IOVA));
        assertThat(fmr.state()).isEqualTo(MrState.VALID);
        assertThat(fmr.rkey()).isEqualTo(first);
        assertThatThrownBy(() -> fmr.map(pageList(memory, 0, 4096, IOVA))).as("mapping a mapped FMR")
                .isInstanceOf(VerbsException.class);

        RegisteredMemory local = register(c.client().pd, 16384, REMOTE);
        fill(local.buffer(), 28);
        c.client().qp.postSend(write(1, local, 0, 16384, first, IOVA));
        assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.SUCCESS);
        assertThat(memory.duplicate().clear()).isEqualTo(local.buffer());

        c.server().pd.unmapFmrs(List.of(fmr));
        assertThat(fmr.state()).isEqualTo(MrState.INVALID);
        int second = fmr.map(pageList(memory, 4096, 4096, IOVA));
        assertThat(second).isNotEqualTo(first);
        assertThat(Stag.index(second)).isEqualTo(Stag.index(first));
        c.client().qp.postSend(read(2, local, 0, 4096, second, IOVA));
        assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.SUCCESS);
        assertThat(bytes(local.buffer(), 0, 4096)).isEqualTo(bytes(memory, 4096, 4096));

        c.client().qp.postSend(write(3, local, 0, 16, first, IOVA));
        assertRefused(await(c.client().sendCq), WcStatus.REM_ACCESS_ERR);
        assertBroken(c);
    }

    @Test
    void deviceWithoutACapabilityRefusesItsVerbsAndRequests() throws Exception {
        Connection c = connect();
        RegisteredMemory local = register(c.client().pd, 64, REMOTE);
        if (!device.attributes().has(DeviceCapability.FAST_REG)) {
            assertThatThrownBy(() -> c.client().pd.allocFastRegMr(1)).isInstanceOf(VerbsException.class);
        }
        if (!device.attributes().has(DeviceCapability.FMR)) {
            assertThatThrownBy(() -> c.client().pd.allocFmr(1, REMOTE)).isInstanceOf(VerbsException.class);
        }
        if (!device.attributes().has(DeviceCapability.LOCAL_INV)) {
            assertThatThrownBy(() -> c.client().qp.postSend(localInvalidate(1, local.rkey())))
                    .isInstanceOf(PostException.class);
        }
        if (!device.attributes().has(DeviceCapability.SEND_WITH_INV)) {
            SendWorkRequest wr = send(2, local, 0, 8);
            wr.opcode = Opcode.SEND_WITH_INV;
            assertThatThrownBy(() -> c.client().qp.postSend(wr)).isInstanceOf(PostException.class);
        }
        if (!device.attributes().has(DeviceCapability.READ_WITH_INV)) {
            SendWorkRequest wr = read(3, local, 0, 8, local.rkey(), local.address(0));
            wr.opcode = Opcode.RDMA_READ_WITH_INV;
            assertThatThrownBy(() -> c.client().qp.postSend(wr)).isInstanceOf(PostException.class);
        }
        RegisteredMemory remote = register(c.server().pd, 64, REMOTE);
        c.client().qp.postSend(write(4, local, 0, 8, remote.rkey(), remote.address(0)));
        WorkCompletion wc = await(c.client().sendCq);
        assertThat(wc.wrId).as("the refused posts queued nothing").isEqualTo(4);
        assertThat(wc.status).isEqualTo(WcStatus.SUCCESS);
    }
}
