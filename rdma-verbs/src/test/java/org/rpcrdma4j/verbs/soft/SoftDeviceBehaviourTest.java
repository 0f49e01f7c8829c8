package org.rpcrdma4j.verbs.soft;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.QpState;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.ResourceCounts;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.Stag;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.rpcrdma4j.verbs.conformance.AllocationWindows;
import org.rpcrdma4j.verbs.conformance.VerbsFixture;
import org.rpcrdma4j.verbs.soft.wire.Terminate;

/**
 * Behaviour particular to the software device: Terminate codes in vendorError, fault injection, device close, the
 * STag layout, completion without placement confirmation.
 */
@Timeout(60)
class SoftDeviceBehaviourTest extends VerbsFixture {
    private static final int REMOTE = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;
    private Map<String, String> options = Map.of("crc", "true", "confirmPlacement", "true");

    @Override
    protected RdmaDevice newDevice() throws Exception {
        return RdmaProviders.select("soft").open(options);
    }

    @Test
    void vendorErrorCarriesTheTerminateOnBothSides() throws Exception {
        Connection c = connect();
        RegisteredMemory src = register(c.client().pd, 4096, REMOTE);
        RegisteredMemory dst = register(c.server().pd, 4096, Access.LOCAL_WRITE);
        c.server().qp.postRecv(recv(1, dst, 0, 10));
        c.client().qp.postSend(send(2, src, 0, 11));
        WorkCompletion r = await(c.server().recvCq);
        assertThat(r.status).isEqualTo(WcStatus.LOC_LEN_ERR);
        assertThat(Terminate.describeVendorError(r.vendorError)).isEqualTo("sent DDP/untagged buffer/0x2");
        WorkCompletion s = await(c.client().sendCq);
        assertThat(s.status).isEqualTo(WcStatus.REM_OP_ERR);
        assertThat(Terminate.describeVendorError(s.vendorError)).isEqualTo("received DDP/untagged buffer/0x2");
    }

    @Test
    void badReadSourceIsReportedAsRemoteProtection() throws Exception {
        Connection c = connect();
        RegisteredMemory source = register(c.server().pd, 4096, Access.LOCAL_WRITE);
        RegisteredMemory sink = register(c.client().pd, 4096, REMOTE);
        c.client().qp.postSend(read(1, sink, 0, 64, source.rkey(), source.address(0)));
        WorkCompletion wc = await(c.client().sendCq);
        assertThat(wc.status).isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertThat(Terminate.describeVendorError(wc.vendorError))
                .isEqualTo("received RDMAP/remote protection/0x2");
    }

    @Test
    void stagIndexIsUniqueAndTheFirstKeyIsZero() throws Exception {
        Connection c = connect();
        RegisteredMemory a = register(c.client().pd, 64, REMOTE);
        RegisteredMemory b = register(c.client().pd, 64, REMOTE);
        assertThat(Stag.key(a.rkey())).isZero();
        assertThat(Stag.index(a.rkey())).isBetween(1, 0xFF_FFFF);
        assertThat(Stag.index(b.rkey())).isNotEqualTo(Stag.index(a.rkey()));
        assertThat(a.lkey()).isEqualTo(a.rkey());
    }

    @Test
    void aReceiveLongerThanAMessageCanBeIsRefusedWhenPosted() throws Exception {
        Connection c = connect();
        RegisteredMemory inbox = register(c.server().pd, 64, Access.LOCAL_WRITE);
        org.rpcrdma4j.verbs.RecvWorkRequest tooLong = new org.rpcrdma4j.verbs.RecvWorkRequest(2);
        tooLong.wrId = 9;
        tooLong.addSge().set(inbox.address(0), 1 << 30, inbox.lkey());
        tooLong.addSge().set(inbox.address(0), 1 << 30, inbox.lkey()); // 2^31 bytes: one more than a message has
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> c.server().qp.postRecv(tooLong))
                .isInstanceOf(org.rpcrdma4j.verbs.PostException.class).hasMessageContaining("exceeds");
        // nothing of it was posted: a Send lands in the next receive
        c.server().qp.postRecv(recv(10, inbox, 0, 64));
        c.client().qp.postSend(send(11, register(c.client().pd, 64, Access.LOCAL_WRITE), 0, 64));
        assertThat(await(c.server().recvCq).wrId).isEqualTo(10);
    }

    /**
     * The post/transfer/complete path allocates nothing in steady state, on any thread (engine threads included):
     * RDMA Writes, Reads and Sends with their receives and completions, 20,000 of each after a warm-up.
     */
    @Test
    void steadyStateDataPathAllocatesNothing() throws Exception {
        com.sun.management.ThreadMXBean mx = allocationMeter();
        Connection c = connect(new Sizes(64, 64, 1, 0, 256));
        RegisteredMemory local = register(c.client().pd, 65536, REMOTE);
        RegisteredMemory remote = register(c.server().pd, 65536, REMOTE);
        SendWorkRequest[] wrs = {write(1, local, 0, 8192, remote.rkey(), remote.address(0)),
            read(2, local, 8192, 8192, remote.rkey(), remote.address(8192)), send(3, local, 0, 4096)};
        org.rpcrdma4j.verbs.RecvWorkRequest rwr = recv(4, remote, 16384, 4096);
        WorkCompletion[] batch = new WorkCompletion[16];
        for (int i = 0; i < batch.length; i++) {
            batch[i] = new WorkCompletion();
        }
        for (int i = 0; i < 32; i++) {
            c.server().qp.postRecv(rwr);
        }
        int[] outstanding = {0};
        AllocationWindows.Work window = () -> {
            for (int i = 0; i < 20_000; i++) {
                while (outstanding[0] >= 24) {
                    int received = c.server().recvCq.poll(batch);
                    for (int k = 0; k < received; k++) {
                        c.server().qp.postRecv(rwr);
                    }
                    int done = c.client().sendCq.poll(batch);
                    for (int k = 0; k < done; k++) {
                        if (batch[k].status != WcStatus.SUCCESS) {
                            throw new AssertionError(batch[k].toString());
                        }
                    }
                    outstanding[0] -= done;
                    if (done == 0) {
                        Thread.onSpinWait();
                    }
                }
                c.client().qp.postSend(wrs[i % 3]);
                outstanding[0]++;
            }
        };
        window.run(); // warm-up
        long[] threads = mx.getAllThreadIds();
        AllocationWindows.Result r = AllocationWindows.measure(10, 16L * 20_000, () -> allocated(mx, threads), window);
        assertThat(r.least() / 20_000).as("bytes allocated per work request, all threads (windows: %s)", r.windows())
                .isLessThan(16);
        while (outstanding[0] > 0) {
            outstanding[0] -= c.client().sendCq.poll(batch);
        }
    }

    @Test
    void droppedConnectionFlushesBothSides() throws Exception {
        Connection c = connect();
        RegisteredMemory buf = register(c.server().pd, 64, Access.LOCAL_WRITE);
        c.server().qp.postRecv(recv(1, buf, 0, 64));
        SoftIwarpFaults.of(c.client().qp).dropConnection();
        assertThat(awaitWrId(c.server().recvCq, 1).status).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertBroken(c);
    }

    /**
     * A completion listener that drops the connection on the engine thread (a server posting a reply as it handles a
     * call) finds the queue pair out of RTS when the drop returns, so what it posts next is flushed and never sent.
     * The engine cannot run a queued task while its thread is in the listener: a caller that waited for the drop to
     * take effect would wait for itself.
     */
    @Test
    void aDropOnTheEngineThreadTakesEffectBeforeItReturns() throws Exception {
        Connection c = connect();
        RegisteredMemory src = register(c.client().pd, 64, REMOTE);
        RegisteredMemory dst = register(c.server().pd, 64, REMOTE);
        RegisteredMemory back = register(c.client().pd, 64, Access.LOCAL_WRITE);
        c.server().qp.postRecv(recv(1, dst, 0, 64));
        c.client().qp.postRecv(recv(2, back, 0, 64));
        CompletableFuture<QpState> afterDrop = new CompletableFuture<>();
        WorkCompletion[] batch = {new WorkCompletion()};
        CompletionQueue cq = c.server().recvCq;
        cq.setListener(q -> {
            if (q.poll(batch) == 0) {
                q.requestNotify();
                return;
            }
            try {
                SoftIwarpFaults.of(c.server().qp).dropConnection();
                afterDrop.complete(c.server().qp.state());
                c.server().qp.postSend(send(3, dst, 0, 8)); // the reply, after the drop
            } catch (Exception | AssertionError e) {
                afterDrop.completeExceptionally(e);
            }
        });
        cq.requestNotify();
        c.client().qp.postSend(send(4, src, 0, 8));
        assertThat(afterDrop.get(10, TimeUnit.SECONDS)).as("the server's queue pair once the drop returned")
                .isEqualTo(QpState.ERROR);
        assertThat(awaitWrId(c.server().sendCq, 3).status).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThat(awaitWrId(c.client().recvCq, 2).status).as("the client's receive: the reply never arrived")
                .isEqualTo(WcStatus.WR_FLUSH_ERR);
        c.client().events.await(ConnectionEventType.DISCONNECTED);
        c.server().events.await(ConnectionEventType.DISCONNECTED);
    }

    @Test
    void corruptedCrcIsCaughtByThePeer() throws Exception {
        Connection c = connect();
        RegisteredMemory src = register(c.client().pd, 64, REMOTE);
        RegisteredMemory dst = register(c.server().pd, 64, Access.LOCAL_WRITE);
        c.server().qp.postRecv(recv(1, dst, 0, 64));
        c.server().qp.postRecv(recv(2, dst, 0, 64));
        c.client().qp.postSend(send(3, src, 0, 8));
        assertThat(await(c.server().recvCq).status).isEqualTo(WcStatus.SUCCESS);
        assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.SUCCESS);
        SoftIwarpFaults.of(c.client().qp).corruptNextCrc();
        c.client().qp.postSend(send(4, src, 0, 8));
        assertThat(awaitWrId(c.server().recvCq, 2).status).as("the corrupted Send is not delivered")
                .isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThat(await(c.client().sendCq).status).isNotEqualTo(WcStatus.SUCCESS);
        assertBroken(c);
    }

    @Test
    void truncatedFrameBreaksTheConnection() throws Exception {
        Connection c = connect();
        RegisteredMemory src = register(c.client().pd, 8192, REMOTE);
        RegisteredMemory dst = register(c.server().pd, 8192, Access.LOCAL_WRITE);
        c.server().qp.postRecv(recv(1, dst, 0, 8192));
        SoftIwarpFaults.of(c.client().qp).truncateNextFrame();
        c.client().qp.postSend(send(2, src, 0, 8192));
        assertThat(await(c.server().recvCq).status).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertBroken(c);
    }

    @Test
    void delayHoldsTransmissionBack() throws Exception {
        Connection c = connect();
        RegisteredMemory src = register(c.client().pd, 64, REMOTE);
        RegisteredMemory dst = register(c.server().pd, 64, Access.LOCAL_WRITE);
        c.server().qp.postRecv(recv(1, dst, 0, 64));
        long start = System.nanoTime();
        SoftIwarpFaults.of(c.client().qp).delayTransmit(Duration.ofMillis(300));
        Thread.sleep(50);
        c.client().qp.postSend(send(2, src, 0, 8));
        assertThat(await(c.server().recvCq).status).isEqualTo(WcStatus.SUCCESS);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
        assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.SUCCESS);
    }

    @Test
    void closingTheDeviceRemovesLiveQueuePairs() throws Exception {
        Connection c = connect();
        RegisteredMemory buf = register(c.client().pd, 64, Access.LOCAL_WRITE);
        c.client().qp.postRecv(recv(1, buf, 0, 64));
        device.close();
        c.client().events.await(ConnectionEventType.DEVICE_REMOVAL);
        assertThat(c.client().events.count(ConnectionEventType.DISCONNECTED)).isZero();
        c.server().events.await(ConnectionEventType.DISCONNECTED);
        assertThat(await(c.client().recvCq).status).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThat(c.client().qp.state()).isEqualTo(QpState.CLOSED);
        assertThat(device.resourceCounts()).isEqualTo(ResourceCounts.NONE);
    }

    @Test
    void withoutPlacementConfirmationWritesCompleteOnceWritten() throws Exception {
        peerDevice.close();
        device.close();
        options = Map.of("confirmPlacement", "false");
        device = newDevice();
        peerDevice = newDevice();
        Connection c = connect();
        RegisteredMemory src = register(c.client().pd, 64, REMOTE);
        RegisteredMemory dst = register(c.server().pd, 64, REMOTE);
        fill(src.buffer(), 61);
        c.client().qp.postSend(write(1, src, 0, 64, dst.rkey(), dst.address(0)));
        assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.SUCCESS);
        c.client().qp.postSend(write(2, src, 0, 64, Stag.nextKey(dst.rkey()), dst.address(0)));
        List<WorkCompletion> wcs = awaitAll(c.client().sendCq, 1);
        assertThat(wcs.get(0).wrId).isEqualTo(2);
        assertThat(wcs.get(0).status).as("completed before the peer refused it, as siw does")
                .isIn(WcStatus.SUCCESS, WcStatus.REM_ACCESS_ERR);
        c.server().events.await(ConnectionEventType.DISCONNECTED);
        c.client().events.await(ConnectionEventType.DISCONNECTED);
        c.client().qp.postSend(write(3, src, 0, 64, dst.rkey(), dst.address(0)));
        assertThat(awaitWrId(c.client().sendCq, 3).status).isEqualTo(WcStatus.WR_FLUSH_ERR);
    }

    @Test
    void deviceWithoutCapabilitiesStillMovesData() throws Exception {
        peerDevice.close();
        device.close();
        options = Map.of("capabilities", "", "confirmPlacement", "true");
        device = newDevice();
        peerDevice = newDevice();
        assertThat(device.attributes().capabilities()).isEmpty();
        Connection c = connect();
        RegisteredMemory src = register(c.client().pd, 4096, REMOTE);
        RegisteredMemory dst = register(c.server().pd, 4096, REMOTE);
        fill(src.buffer(), 62);
        SendWorkRequest w = write(1, src, 0, 4096, dst.rkey(), dst.address(0));
        c.client().qp.postSend(w);
        assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.SUCCESS);
        assertThat(dst.buffer()).isEqualTo(src.buffer());
    }
}
