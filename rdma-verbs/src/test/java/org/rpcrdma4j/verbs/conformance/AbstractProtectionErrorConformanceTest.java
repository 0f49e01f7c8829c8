package org.rpcrdma4j.verbs.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.DeviceCapability;
import org.rpcrdma4j.verbs.FastRegMemoryRegion;
import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.verbs.PostException;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.RecvWorkRequest;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.Sge;
import org.rpcrdma4j.verbs.Stag;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * Every protection and length violation: the offending work request completes with the right status, nothing is
 * written where it must not be, the connection breaks on both sides (DISCONNECTED), later and outstanding requests
 * are flushed.
 */
@Timeout(120)
public abstract class AbstractProtectionErrorConformanceTest extends VerbsFixture {
    private static final int REMOTE = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;

    /** Status of a Send whose receiver refused it (no receive, too small): REM_OP_ERR on iWARP. */
    protected WcStatus refusedSendStatus() {
        return WcStatus.REM_OP_ERR;
    }

    private void assertRemoteWriteRefused(Connection c, int rkey, long address, int length, ByteBuffer guarded)
            throws Exception {
        RegisteredMemory local = register(c.client().pd, Math.max(length, 64), REMOTE);
        fill(local.buffer(), 31);
        byte[] before = bytes(guarded, 0, guarded.capacity());
        SendWorkRequest after = send(2, local, 0, 8);
        c.client().qp.postSend(chain(write(1, local, 0, length, rkey, address), after));
        WorkCompletion wc = awaitWrId(c.client().sendCq, 1);
        assertRefused(wc, WcStatus.REM_ACCESS_ERR);
        assertThat(wc.opcode).isEqualTo(org.rpcrdma4j.verbs.WcOpcode.RDMA_WRITE);
        assertAfterRefused(awaitWrId(c.client().sendCq, 2));
        assertBroken(c);
        assertThat(bytes(guarded, 0, guarded.capacity())).as("nothing was written").isEqualTo(before);
    }

    @Test
    void writeToAnUnknownStag() throws Exception {
        Connection c = connect();
        RegisteredMemory sink = register(c.server().pd, 4096, REMOTE);
        int bogus = Stag.of((Stag.index(sink.rkey()) + 77) & 0xFF_FFFF, 3);
        assertRemoteWriteRefused(c, bogus, sink.address(0), 64, sink.buffer());
    }

    @Test
    void writeWithTheWrongKey() throws Exception {
        Connection c = connect();
        RegisteredMemory sink = register(c.server().pd, 4096, REMOTE);
        assertRemoteWriteRefused(c, Stag.nextKey(sink.rkey()), sink.address(0), 64, sink.buffer());
    }

    @Test
    void writeToARegionOfAnotherProtectionDomain() throws Exception {
        Connection c = connect();
        ProtectionDomain other = pd(c.server().pd.device());
        RegisteredMemory sink = register(other, 4096, REMOTE);
        assertRemoteWriteRefused(c, sink.rkey(), sink.address(0), 64, sink.buffer());
    }

    @Test
    void writeWithoutRemoteWriteRight() throws Exception {
        Connection c = connect();
        RegisteredMemory sink = register(c.server().pd, 4096, Access.LOCAL_WRITE | Access.REMOTE_READ);
        assertRemoteWriteRefused(c, sink.rkey(), sink.address(0), 64, sink.buffer());
    }

    @Test
    void writePastTheEndOfARegion() throws Exception {
        Connection c = connect();
        RegisteredMemory sink = register(c.server().pd, 4096, REMOTE);
        assertRemoteWriteRefused(c, sink.rkey(), sink.address(4000), 97, sink.buffer());
    }

    @Test
    void writeBeforeTheStartOfARegion() throws Exception {
        Connection c = connect();
        RegisteredMemory sink = register(c.server().pd, 4096, REMOTE);
        assertRemoteWriteRefused(c, sink.rkey(), sink.address(0) - 8, 16, sink.buffer());
    }

    @Test
    void writeWithAStaleKeyAfterReRegistration() throws Exception {
        assumeTrue(supports(DeviceCapability.FAST_REG) && supports(DeviceCapability.LOCAL_INV),
                "device without fast registration");
        Connection c = connect();
        FastRegMemory m = fastRegMemory(c.server().pd, 1, 0x5000);
        ByteBuffer memory = m.memory();
        FastRegMemoryRegion mr = own(c.server().pd.allocFastRegMr(1));
        c.server().qp.postSend(chain(fastRegister(1, mr, m.pageList(0, 4096), REMOTE),
                localInvalidate(2, Stag.nextKey(mr.rkey()))));
        awaitAll(c.server().sendCq, 2);
        int stale = mr.rkey();
        c.server().qp.postSend(fastRegister(3, mr, m.pageList(0, 4096), REMOTE));
        assertThat(await(c.server().sendCq).status).isEqualTo(WcStatus.SUCCESS);
        assertRemoteWriteRefused(c, stale, m.iova(0), 64, memory);
    }

    @Test
    void readWithoutRemoteReadRight() throws Exception {
        Connection c = connect();
        RegisteredMemory source = register(c.server().pd, 4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        RegisteredMemory sink = register(c.client().pd, 4096, REMOTE);
        RegisteredMemory writable = register(c.server().pd, 4096, REMOTE);
        c.client().qp.postSend(chain(read(1, sink, 0, 64, source.rkey(), source.address(0)),
                write(2, sink, 0, 8, writable.rkey(), writable.address(0))));
        assertThat(awaitWrId(c.client().sendCq, 1).status).isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertAfterRefused(awaitWrId(c.client().sendCq, 2));
        assertBroken(c);
    }

    @Test
    void readPastTheEndOfARegion() throws Exception {
        Connection c = connect();
        RegisteredMemory source = register(c.server().pd, 4096, REMOTE);
        RegisteredMemory sink = register(c.client().pd, 8192, REMOTE);
        c.client().qp.postSend(read(1, sink, 0, 4097, source.rkey(), source.address(0)));
        assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertBroken(c);
    }

    @Test
    void readIntoASinkWithoutLocalWrite() throws Exception {
        Connection c = connect();
        RegisteredMemory source = register(c.server().pd, 4096, REMOTE);
        RegisteredMemory sink = register(c.client().pd, 4096, Access.REMOTE_READ);
        c.client().qp.postSend(read(1, sink, 0, 64, source.rkey(), source.address(0)));
        assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.LOC_PROT_ERR);
        assertBroken(c);
    }

    @Test
    void sendFromAnUnknownLkey() throws Exception {
        Connection c = connect();
        RegisteredMemory src = register(c.client().pd, 4096, REMOTE);
        SendWorkRequest wr = new SendWorkRequest(1);
        wr.wrId = 1;
        wr.flags = SendWorkRequest.SIGNALED;
        wr.addSge().set(src.address(0), 64, Stag.nextKey(src.lkey()));
        c.client().qp.postSend(wr);
        assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.LOC_PROT_ERR);
        assertBroken(c);
    }

    @Test
    void sendSgeBeyondItsRegion() throws Exception {
        Connection c = connect();
        RegisteredMemory src = register(c.client().pd, 4096, REMOTE);
        RegisteredMemory dst = register(c.server().pd, 8192, Access.LOCAL_WRITE);
        c.server().qp.postRecv(recv(1, dst, 0, 8192));
        SendWorkRequest wr = new SendWorkRequest(1);
        wr.wrId = 2;
        wr.flags = SendWorkRequest.SIGNALED;
        wr.addSge().set(src.address(4000), 200, src.lkey());
        c.client().qp.postSend(wr);
        assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.LOC_PROT_ERR);
        assertBroken(c);
    }

    @Test
    void sendFromAnotherProtectionDomainsRegion() throws Exception {
        Connection c = connect();
        RegisteredMemory src = register(pd(device), 4096, REMOTE);
        c.client().qp.postSend(send(1, src, 0, 64));
        assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.LOC_PROT_ERR);
        assertBroken(c);
    }

    @Test
    void sendIntoAReceiveTooSmall() throws Exception {
        Connection c = connect();
        RegisteredMemory src = register(c.client().pd, 4096, REMOTE);
        RegisteredMemory dst = register(c.server().pd, 4096, Access.LOCAL_WRITE);
        RecvWorkRequest first = recv(1, dst, 0, 100);
        first.next = recv(2, dst, 100, 3996);
        c.server().qp.postRecv(first);
        c.client().qp.postSend(chain(send(3, src, 0, 101), send(4, src, 0, 8)));
        WorkCompletion r = awaitWrId(c.server().recvCq, 1);
        assertThat(r.status).isEqualTo(WcStatus.LOC_LEN_ERR);
        assertThat(awaitWrId(c.server().recvCq, 2).status).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertRefused(awaitWrId(c.client().sendCq, 3), refusedSendStatus());
        assertAfterRefused(awaitWrId(c.client().sendCq, 4));
        assertBroken(c);
    }

    @Test
    void sendWithNoReceivePosted() throws Exception {
        Connection c = connect();
        RegisteredMemory src = register(c.client().pd, 4096, REMOTE);
        c.client().qp.postSend(send(1, src, 0, 64));
        assertRefused(await(c.client().sendCq), refusedSendStatus());
        assertBroken(c);
    }

    @Test
    void receiveIntoARegionWithoutLocalWrite() throws Exception {
        Connection c = connect();
        RegisteredMemory src = register(c.client().pd, 4096, REMOTE);
        RegisteredMemory dst = register(c.server().pd, 4096, Access.REMOTE_READ);
        c.server().qp.postRecv(recv(1, dst, 0, 4096));
        c.client().qp.postSend(send(2, src, 0, 64));
        assertThat(await(c.server().recvCq).status).isEqualTo(WcStatus.LOC_PROT_ERR);
        WorkCompletion refused = await(c.client().sendCq);
        if (remoteErrorsReachTheRequest()) {
            assertThat(refused.status).isNotEqualTo(WcStatus.SUCCESS);
        }
        assertBroken(c);
        assertThat(bytes(dst.buffer(), 0, 64)).containsOnly(0);
    }

    @Test
    void fastRegisterOfAValidRegionFails() throws Exception {
        assumeTrue(supports(DeviceCapability.FAST_REG), "device without fast registration");
        Connection c = connect();
        FastRegMemory m = fastRegMemory(c.client().pd, 1, 0);
        FastRegMemoryRegion mr = own(c.client().pd.allocFastRegMr(1));
        c.client().qp.postSend(fastRegister(1, mr, m.pageList(0, 4096), REMOTE));
        assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.SUCCESS);
        c.client().qp.postSend(fastRegister(2, mr, m.pageList(0, 4096), REMOTE));
        // binding a bound type 2 window is a memory window bind error
        assertThat(await(c.client().sendCq).status).isEqualTo(supports(DeviceCapability.MEMORY_WINDOW)
                ? WcStatus.MW_BIND_ERR : WcStatus.LOC_ACCESS_ERR);
        assertBroken(c);
    }

    @Test
    void fastRegisterWithAnotherRegionsIndexFails() throws Exception {
        assumeTrue(supports(DeviceCapability.FAST_REG), "device without fast registration");
        Connection c = connect();
        FastRegMemoryRegion mr = own(c.client().pd.allocFastRegMr(1));
        SendWorkRequest wr = fastRegister(1, mr, fastRegMemory(c.client().pd, 1, 0).pageList(0, 4096), REMOTE);
        wr.key = Stag.of((Stag.index(mr.rkey()) + 1) & 0xFF_FFFF, 1);
        try {
            c.client().qp.postSend(wr);
        } catch (PostException refusedWhenPosted) {
            assertThat(refusedWhenPosted).hasMessageContaining("index");
            return;
        }
        assertThat(await(c.client().sendCq).status).isNotEqualTo(WcStatus.SUCCESS);
        assertBroken(c);
    }

    @Test
    void localInvalidateOfRegisteredMemoryFails() throws Exception {
        assumeTrue(supports(DeviceCapability.LOCAL_INV), "device without local invalidation");
        Connection c = connect();
        RegisteredMemory mr = register(c.client().pd, 4096, REMOTE);
        c.client().qp.postSend(localInvalidate(1, mr.rkey()));
        assertThat(await(c.client().sendCq).status).isNotEqualTo(WcStatus.SUCCESS);
        assertThat(mr.state()).isEqualTo(org.rpcrdma4j.verbs.MrState.VALID);
        assertBroken(c);
    }

    @Test
    void sendWithInvalidateOfRegisteredMemoryIsRefusedByTheReceiver() throws Exception {
        assumeTrue(supports(DeviceCapability.SEND_WITH_INV) && supports(DeviceCapability.REMOTE_INV),
                "device without remote invalidation");
        Connection c = connect();
        RegisteredMemory target = register(c.server().pd, 4096, REMOTE);
        RegisteredMemory inbox = register(c.server().pd, 64, Access.LOCAL_WRITE);
        RegisteredMemory src = register(c.client().pd, 64, REMOTE);
        c.server().qp.postRecv(recv(1, inbox, 0, 64));
        SendWorkRequest wr = send(2, src, 0, 16);
        wr.opcode = Opcode.SEND_WITH_INV;
        wr.invalidateStag = target.rkey();
        c.client().qp.postSend(wr);
        WorkCompletion r = await(c.server().recvCq);
        assertThat(r.status).isNotEqualTo(WcStatus.SUCCESS);
        assertThat(r.withInvalidate()).isFalse();
        assertThat(target.state()).isEqualTo(org.rpcrdma4j.verbs.MrState.VALID);
        WorkCompletion refused = await(c.client().sendCq);
        if (remoteErrorsReachTheRequest()) {
            assertThat(refused.status).isNotEqualTo(WcStatus.SUCCESS);
        }
        assertBroken(c);
    }

    @Test
    void outstandingRequestsAreFlushedInOrderAfterAnError() throws Exception {
        Connection c = connect();
        RegisteredMemory local = register(c.client().pd, 4096, REMOTE);
        RegisteredMemory remote = register(c.server().pd, 4096, REMOTE);
        RegisteredMemory inbox = register(c.client().pd, 4096, Access.LOCAL_WRITE);
        RecvWorkRequest r1 = recv(11, inbox, 0, 100);
        r1.next = recv(12, inbox, 100, 100);
        c.client().qp.postRecv(r1);
        SendWorkRequest bad = read(1, local, 0, 64, Stag.nextKey(remote.rkey()), remote.address(0));
        SendWorkRequest w2 = write(2, local, 0, 64, remote.rkey(), remote.address(0));
        w2.flags = 0;
        c.client().qp.postSend(chain(bad, w2, read(3, local, 0, 64, remote.rkey(), remote.address(0)),
                write(4, local, 0, 8, remote.rkey(), remote.address(100))));
        List<WorkCompletion> wcs = awaitAll(c.client().sendCq, remoteErrorsReachTheRequest() ? 4 : 3);
        assertThat(wcs.get(0).wrId).isEqualTo(1);
        assertThat(wcs.get(0).status).isEqualTo(WcStatus.REM_ACCESS_ERR);
        if (remoteErrorsReachTheRequest()) {
            assertThat(wcs).extracting(wc -> wc.wrId).containsExactly(1L, 2L, 3L, 4L);
            assertThat(wcs).extracting(wc -> wc.status).containsExactly(WcStatus.REM_ACCESS_ERR,
                    WcStatus.WR_FLUSH_ERR, WcStatus.WR_FLUSH_ERR, WcStatus.WR_FLUSH_ERR);
        } else {
            assertThat(wcs).extracting(wc -> wc.wrId).isSorted();
            assertThat(wcs.subList(1, wcs.size())).extracting(wc -> wc.status)
                    .containsOnly(WcStatus.WR_FLUSH_ERR, WcStatus.SUCCESS);
        }
        assertThat(awaitAll(c.client().recvCq, 2)).extracting(wc -> wc.status)
                .containsOnly(WcStatus.WR_FLUSH_ERR);
        assertBroken(c);
    }

    @Test
    void sgeListsWithZeroLengthEntriesAreFine() throws Exception {
        Connection c = connect();
        RegisteredMemory src = register(c.client().pd, 4096, REMOTE);
        RegisteredMemory dst = register(c.server().pd, 4096, Access.LOCAL_WRITE);
        fill(src.buffer(), 32);
        RecvWorkRequest r = recv(1, dst, 0, 0);
        r.addSge().set(dst, 10, 100);
        c.server().qp.postRecv(r);
        SendWorkRequest s = send(2, src, 0, 0);
        Sge extra = s.addSge();
        extra.set(src, 50, 100);
        c.client().qp.postSend(s);
        assertThat(await(c.server().recvCq).status).isEqualTo(WcStatus.SUCCESS);
        assertThat(bytes(dst.buffer(), 10, 100)).isEqualTo(bytes(src.buffer(), 50, 100));
        assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.SUCCESS);
    }
}
