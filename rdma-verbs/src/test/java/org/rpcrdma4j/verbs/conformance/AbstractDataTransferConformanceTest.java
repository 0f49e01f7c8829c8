package org.rpcrdma4j.verbs.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.verbs.PostException;
import org.rpcrdma4j.verbs.RecvWorkRequest;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.WcOpcode;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * Moving bytes: Send/Receive, RDMA Write, RDMA Read, inline data, signaled and unsignaled requests, chains,
 * completion order, ORD queuing and fences. Every test compares the bytes that arrived.
 */
@Timeout(120)
public abstract class AbstractDataTransferConformanceTest extends VerbsFixture {
    private static final int RW = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;

    @Test
    void sendLandsInPostedReceive() throws Exception {
        Connection c = connect();
        RegisteredMemory src = register(c.client().pd, 4096, Access.LOCAL_WRITE);
        RegisteredMemory dst = register(c.server().pd, 4096, Access.LOCAL_WRITE);
        fill(src.buffer(), 1);
        c.server().qp.postRecv(recv(7, dst, 0, 4096));
        c.client().qp.postSend(send(8, src, 100, 1000));

        WorkCompletion r = await(c.server().recvCq);
        assertThat(r.status).isEqualTo(WcStatus.SUCCESS);
        assertThat(r.opcode).isEqualTo(WcOpcode.RECV);
        assertThat(r.wrId).isEqualTo(7);
        assertThat(r.byteLen).isEqualTo(1000);
        assertThat(r.withInvalidate()).isFalse();
        assertThat(r.qpNum).isEqualTo(c.server().qp.qpNum());
        WorkCompletion s = await(c.client().sendCq);
        assertThat(s.status).isEqualTo(WcStatus.SUCCESS);
        assertThat(s.opcode).isEqualTo(WcOpcode.SEND);
        assertThat(s.wrId).isEqualTo(8);
        assertThat(bytes(dst.buffer(), 0, 1000)).isEqualTo(bytes(src.buffer(), 100, 1000));
    }

    @Test
    void sendGathersAndReceiveScattersAcrossSges() throws Exception {
        Connection c = connect();
        RegisteredMemory src = register(c.client().pd, 8192, Access.LOCAL_WRITE);
        RegisteredMemory dst = register(c.server().pd, 8192, Access.LOCAL_WRITE);
        fill(src.buffer(), 2);
        RecvWorkRequest rwr = new RecvWorkRequest(4);
        rwr.wrId = 1;
        rwr.addSge().set(dst, 5000, 10);
        rwr.addSge().set(dst, 0, 3000);
        rwr.addSge().set(dst, 4000, 500);
        c.server().qp.postRecv(rwr);
        SendWorkRequest swr = send(2, src, 0, 1500);
        swr.addSge().set(src, 7000, 1000);
        swr.addSge().set(src, 2000, 1);
        c.client().qp.postSend(swr);

        WorkCompletion r = await(c.server().recvCq);
        assertThat(r.status).isEqualTo(WcStatus.SUCCESS);
        assertThat(r.byteLen).isEqualTo(2501);
        ByteBuffer sent = ByteBuffer.allocate(2501);
        sent.put(bytes(src.buffer(), 0, 1500)).put(bytes(src.buffer(), 7000, 1000)).put(bytes(src.buffer(), 2000, 1));
        ByteBuffer got = ByteBuffer.allocate(2501);
        got.put(bytes(dst.buffer(), 5000, 10)).put(bytes(dst.buffer(), 0, 2491));
        assertThat(got.array()).isEqualTo(sent.array());
        assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.SUCCESS);
    }

    @Test
    void zeroLengthSendCompletesWithZeroBytes() throws Exception {
        Connection c = connect();
        RegisteredMemory dst = register(c.server().pd, 64, Access.LOCAL_WRITE);
        c.server().qp.postRecv(recv(1, dst, 0, 64));
        SendWorkRequest wr = new SendWorkRequest(1);
        wr.wrId = 2;
        wr.flags = SendWorkRequest.SIGNALED;
        c.client().qp.postSend(wr);
        WorkCompletion r = await(c.server().recvCq);
        assertThat(r.status).isEqualTo(WcStatus.SUCCESS);
        assertThat(r.byteLen).isZero();
        assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.SUCCESS);
    }

    @Test
    void largeSendIsSegmentedAndReassembled() throws Exception {
        Connection c = connect();
        int size = 1 << 20;
        RegisteredMemory src = register(c.client().pd, size, Access.LOCAL_WRITE);
        RegisteredMemory dst = register(c.server().pd, size, Access.LOCAL_WRITE);
        fill(src.buffer(), 3);
        c.server().qp.postRecv(recv(1, dst, 0, size));
        c.client().qp.postSend(send(2, src, 0, size));
        WorkCompletion r = await(c.server().recvCq);
        assertThat(r.status).isEqualTo(WcStatus.SUCCESS);
        assertThat(r.byteLen).isEqualTo(size);
        assertThat(dst.buffer()).isEqualTo(src.buffer());
        assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.SUCCESS);
    }

    @Test
    void inlineSendCopiesAtPostTime() throws Exception {
        Connection c = connect();
        int inline = Math.min(64, device.attributes().maxInlineData());
        RegisteredMemory src = register(c.client().pd, 256, Access.LOCAL_WRITE);
        RegisteredMemory dst = register(c.server().pd, 256, Access.LOCAL_WRITE);
        fill(src.buffer(), 4);
        byte[] expected = bytes(src.buffer(), 0, inline);
        c.server().qp.postRecv(recv(1, dst, 0, 256));
        SendWorkRequest wr = send(2, src, 0, inline);
        wr.flags |= SendWorkRequest.INLINE;
        c.client().qp.postSend(wr);
        src.buffer().put(0, new byte[inline]);
        WorkCompletion r = await(c.server().recvCq);
        assertThat(r.status).isEqualTo(WcStatus.SUCCESS);
        assertThat(bytes(dst.buffer(), 0, inline)).isEqualTo(expected);
        assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.SUCCESS);
    }

    /** Each send-queue slot carries inline data of several lengths in turn, shorter and longer than before. */
    @Test
    void inlineSendsOfChangingLengthsReuseTheirSlots() throws Exception {
        Connection c = connect(new Sizes(4, 4, 4, 64, 64));
        int[] lengths = {8, 36, 64};
        RegisteredMemory src = register(c.client().pd, 64, Access.LOCAL_WRITE);
        RegisteredMemory dst = register(c.server().pd, 64, Access.LOCAL_WRITE);
        for (int i = 0; i < 40; i++) {
            int length = lengths[i % lengths.length];
            fill(src.buffer(), i);
            byte[] expected = bytes(src.buffer(), 0, length);
            c.server().qp.postRecv(recv(i, dst, 0, 64));
            SendWorkRequest wr = send(i, src, 0, length);
            wr.flags |= SendWorkRequest.INLINE;
            c.client().qp.postSend(wr);
            WorkCompletion r = await(c.server().recvCq);
            assertThat(r.status).as("Send %d", i).isEqualTo(WcStatus.SUCCESS);
            assertThat(r.byteLen).isEqualTo(length);
            assertThat(bytes(dst.buffer(), 0, length)).as("Send %d", i).isEqualTo(expected);
            assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.SUCCESS);
        }
    }

    @Test
    void inlineLongerThanTheQueuePairAllowsIsRefused() throws Exception {
        Connection c = connect();
        RegisteredMemory src = register(c.client().pd, 4096, Access.LOCAL_WRITE);
        SendWorkRequest wr = send(2, src, 0, c.client().qp.config().maxInlineData() + 1);
        wr.flags |= SendWorkRequest.INLINE;
        assertThatThrownBy(() -> c.client().qp.postSend(wr)).isInstanceOf(PostException.class);
    }

    @Test
    void rdmaWritePlacesBytesBeforeTheFollowingSendCompletes() throws Exception {
        Connection c = connect();
        int size = 300_000;
        RegisteredMemory src = register(c.client().pd, size, Access.LOCAL_WRITE);
        RegisteredMemory sink = register(c.server().pd, size + 8192, RW);
        RegisteredMemory note = register(c.server().pd, 64, Access.LOCAL_WRITE);
        fill(src.buffer(), 5);
        c.server().qp.postRecv(recv(1, note, 0, 64));
        SendWorkRequest w = write(10, src, 0, size, sink.rkey(), sink.address(4096));
        w.flags = 0;
        c.client().qp.postSend(chain(w, send(11, src, 0, 8)));

        WorkCompletion r = await(c.server().recvCq);
        assertThat(r.status).isEqualTo(WcStatus.SUCCESS);
        assertThat(bytes(sink.buffer(), 4096, size)).isEqualTo(bytes(src.buffer(), 0, size));
        assertThat(bytes(sink.buffer(), 0, 4096)).containsOnly(0);
        WorkCompletion s = await(c.client().sendCq);
        assertThat(s.wrId).as("the unsignaled write completes silently").isEqualTo(11);
        assertThat(s.status).isEqualTo(WcStatus.SUCCESS);
    }

    @Test
    void rdmaReadFetchesRemoteBytes() throws Exception {
        Connection c = connect();
        int size = 200_000;
        RegisteredMemory source = register(c.server().pd, size, RW);
        RegisteredMemory sink = register(c.client().pd, size, RW);
        fill(source.buffer(), 6);
        c.client().qp.postSend(read(3, sink, 0, size - 10, source.rkey(), source.address(10)));
        WorkCompletion s = await(c.client().sendCq);
        assertThat(s.status).isEqualTo(WcStatus.SUCCESS);
        assertThat(s.opcode).isEqualTo(WcOpcode.RDMA_READ);
        assertThat(s.byteLen).isEqualTo(size - 10);
        assertThat(bytes(sink.buffer(), 0, size - 10)).isEqualTo(bytes(source.buffer(), 10, size - 10));
    }

    @Test
    void zeroLengthReadAndWriteSucceed() throws Exception {
        Connection c = connect();
        RegisteredMemory mine = register(c.client().pd, 64, RW);
        RegisteredMemory theirs = register(c.server().pd, 64, RW);
        c.client().qp.postSend(chain(write(1, mine, 0, 0, theirs.rkey(), theirs.address(0)),
                read(2, mine, 0, 0, theirs.rkey(), theirs.address(0))));
        List<WorkCompletion> wcs = awaitAll(c.client().sendCq, 2);
        assertThat(wcs).extracting(wc -> wc.status).containsOnly(WcStatus.SUCCESS);
        assertThat(wcs).extracting(wc -> wc.wrId).containsExactly(1L, 2L);
    }

    @Test
    void completionsFollowPostingOrderAcrossReads() throws Exception {
        Connection c = connect();
        RegisteredMemory local = register(c.client().pd, 1 << 20, RW);
        RegisteredMemory remote = register(c.server().pd, 1 << 20, RW);
        RegisteredMemory note = register(c.server().pd, 64, Access.LOCAL_WRITE);
        fill(remote.buffer(), 7);
        for (int i = 0; i < 4; i++) {
            c.server().qp.postRecv(recv(100 + i, note, 0, 64));
        }
        List<SendWorkRequest> wrs = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            wrs.add(read(10 * i + 1, local, i * 65536L, 65536, remote.rkey(), remote.address(i * 65536L)));
            wrs.add(write(10 * i + 2, local, 512 * 1024 + i * 1024L, 1024, remote.rkey(),
                    remote.address(900 * 1024 + i * 1024L)));
            wrs.add(send(10 * i + 3, local, 0, 16));
        }
        c.client().qp.postSend(chain(wrs.toArray(new SendWorkRequest[0])));
        List<WorkCompletion> wcs = awaitAll(c.client().sendCq, 12);
        assertThat(wcs).extracting(wc -> wc.status).containsOnly(WcStatus.SUCCESS);
        assertThat(wcs).extracting(wc -> wc.wrId).containsExactlyElementsOf(
                wrs.stream().map(wr -> wr.wrId).toList());
        assertThat(bytes(local.buffer(), 0, 4 * 65536)).isEqualTo(bytes(remote.buffer(), 0, 4 * 65536));
        assertThat(awaitAll(c.server().recvCq, 4)).extracting(wc -> wc.status).containsOnly(WcStatus.SUCCESS);
    }

    @Test
    void readsBeyondTheOrdWaitInTheSendQueue() throws Exception {
        Connection c = connect();
        int ord = c.client().info.ord();
        assertThat(ord).isPositive();
        int reads = ord * 3 + 1;
        RegisteredMemory local = register(c.client().pd, reads * 4096, RW);
        RegisteredMemory remote = register(c.server().pd, reads * 4096, RW);
        fill(remote.buffer(), 8);
        List<SendWorkRequest> wrs = new ArrayList<>();
        for (int i = 0; i < reads; i++) {
            wrs.add(read(i, local, i * 4096L, 4096, remote.rkey(), remote.address((reads - 1 - i) * 4096L)));
        }
        for (SendWorkRequest wr : wrs) {
            c.client().qp.postSend(wr);
        }
        List<WorkCompletion> wcs = awaitAll(c.client().sendCq, reads);
        assertThat(wcs).extracting(wc -> wc.status).containsOnly(WcStatus.SUCCESS);
        for (int i = 0; i < reads; i++) {
            assertThat(bytes(local.buffer(), i * 4096, 4096))
                    .isEqualTo(bytes(remote.buffer(), (reads - 1 - i) * 4096, 4096));
        }
    }

    @Test
    void crossedReadsBeyondTheOrdOnBothSidesAllComplete() throws Exception {
        Connection c = connect(endpoint(device, new Sizes(128, 4, 1, 0, 256)),
                endpoint(peerDevice, new Sizes(128, 4, 1, 0, 256)),
                new org.rpcrdma4j.verbs.ConnectParameters(new byte[0], 2, 2),
                new org.rpcrdma4j.verbs.AcceptParameters(new byte[0], 2, 2));
        int reads = 64;
        int size = 32 * 1024;
        RegisteredMemory a = register(c.client().pd, reads * size, RW);
        RegisteredMemory b = register(c.server().pd, reads * size, RW);
        RegisteredMemory aSink = register(c.client().pd, reads * size, RW);
        RegisteredMemory bSink = register(c.server().pd, reads * size, RW);
        fill(a.buffer(), 14);
        fill(b.buffer(), 15);
        SendWorkRequest[] fromA = new SendWorkRequest[reads];
        SendWorkRequest[] fromB = new SendWorkRequest[reads];
        for (int i = 0; i < reads; i++) {
            fromA[i] = read(i, aSink, (long) i * size, size, b.rkey(), b.address((long) i * size));
            fromB[i] = read(i, bSink, (long) i * size, size, a.rkey(), a.address((long) i * size));
        }
        c.client().qp.postSend(chain(fromA));
        c.server().qp.postSend(chain(fromB));
        assertThat(awaitAll(c.client().sendCq, reads)).extracting(wc -> wc.status).containsOnly(WcStatus.SUCCESS);
        assertThat(awaitAll(c.server().sendCq, reads)).extracting(wc -> wc.status).containsOnly(WcStatus.SUCCESS);
        assertThat(aSink.buffer()).isEqualTo(b.buffer());
        assertThat(bSink.buffer()).isEqualTo(a.buffer());
    }

    @Test
    void fencedSendWaitsForTheEarlierRead() throws Exception {
        Connection c = connect();
        RegisteredMemory local = register(c.client().pd, 65536, RW);
        RegisteredMemory remote = register(c.server().pd, 65536, RW);
        RegisteredMemory inbox = register(c.server().pd, 65536, Access.LOCAL_WRITE);
        fill(remote.buffer(), 9);
        c.server().qp.postRecv(recv(1, inbox, 0, 65536));
        SendWorkRequest fenced = send(2, local, 0, 65536);
        fenced.flags |= SendWorkRequest.FENCE;
        c.client().qp.postSend(chain(read(1, local, 0, 65536, remote.rkey(), remote.address(0)), fenced));
        List<WorkCompletion> wcs = awaitAll(c.client().sendCq, 2);
        assertThat(wcs).extracting(wc -> wc.wrId).containsExactly(1L, 2L);
        assertThat(await(c.server().recvCq).status).isEqualTo(WcStatus.SUCCESS);
        assertThat(inbox.buffer()).as("the fenced send carried the bytes the read fetched")
                .isEqualTo(remote.buffer());
    }

    @Test
    void unsignaledRequestsAreRetiredByALaterSignaledCompletion() throws Exception {
        Sizes sizes = new Sizes(8, 8, 2, 0, 64);
        Connection c = connect(sizes);
        RegisteredMemory local = register(c.client().pd, 4096, RW);
        RegisteredMemory remote = register(c.server().pd, 4096, RW);
        fill(local.buffer(), 13);
        for (int round = 0; round < 5; round++) {
            SendWorkRequest[] wrs = new SendWorkRequest[8];
            for (int i = 0; i < 8; i++) {
                wrs[i] = write(round * 10 + i, local, round * 64 + i * 8L, 8, remote.rkey(),
                        remote.address(round * 64 + i * 8L));
                wrs[i].flags = i == 7 ? SendWorkRequest.SIGNALED : 0;
            }
            c.client().qp.postSend(chain(wrs));
            WorkCompletion wc = await(c.client().sendCq);
            assertThat(wc.wrId).as("only the signaled request completes").isEqualTo(round * 10 + 7);
            assertThat(wc.status).isEqualTo(WcStatus.SUCCESS);
        }
        assertThat(bytes(remote.buffer(), 0, 5 * 64)).isEqualTo(bytes(local.buffer(), 0, 5 * 64));
        SendWorkRequest[] unsignaled = new SendWorkRequest[8];
        for (int i = 0; i < 8; i++) {
            unsignaled[i] = write(100 + i, local, 0, 8, remote.rkey(), remote.address(0));
            unsignaled[i].flags = 0;
        }
        c.client().qp.postSend(chain(unsignaled));
        SendWorkRequest extra = write(99, local, 0, 8, remote.rkey(), remote.address(0));
        assertThatThrownBy(() -> c.client().qp.postSend(extra))
                .as("unsignaled requests keep their slots until a signaled completion retires them")
                .isInstanceOf(PostException.class);
        assertThat(drain(c.client().sendCq)).isEmpty();
    }

    @Test
    void aSlotIsReusableAsSoonAsItsCompletionIsSeen() throws Exception {
        Connection c = connect(new Sizes(1, 1, 1, 0, 4));
        RegisteredMemory src = register(c.client().pd, 64, Access.LOCAL_WRITE);
        RegisteredMemory dst = register(c.server().pd, 64, Access.LOCAL_WRITE);
        for (int i = 0; i < 300; i++) {
            c.server().qp.postRecv(recv(i, dst, 0, 64));
            c.client().qp.postSend(send(i, src, 0, 8));
            assertThat(await(c.server().recvCq).wrId).isEqualTo(i);
            assertThat(await(c.client().sendCq).wrId).isEqualTo(i);
        }
    }

    @Test
    void failedPostOfAChainQueuesNothing() throws Exception {
        Connection c = connect();
        RegisteredMemory local = register(c.client().pd, 4096, RW);
        RegisteredMemory remote = register(c.server().pd, 4096, RW);
        SendWorkRequest tooMany = new SendWorkRequest(8);
        tooMany.wrId = 3;
        tooMany.opcode = Opcode.RDMA_WRITE;
        for (int i = 0; i < c.client().qp.config().maxSendSge() + 1; i++) {
            tooMany.addSge().set(local, i, 1);
        }
        SendWorkRequest head = chain(write(1, local, 0, 8, remote.rkey(), remote.address(0)),
                write(2, local, 0, 8, remote.rkey(), remote.address(8)), tooMany);
        assertThatThrownBy(() -> c.client().qp.postSend(head)).isInstanceOfSatisfying(PostException.class, e -> {
            assertThat(e.failedIndex()).isEqualTo(2);
            assertThat(e.failedWrId()).isEqualTo(3);
        });
        c.client().qp.postSend(write(4, local, 0, 8, remote.rkey(), remote.address(0)));
        WorkCompletion wc = await(c.client().sendCq);
        assertThat(wc.wrId).as("nothing of the refused chain ran").isEqualTo(4);
    }

    @Test
    void solicitedSendIsDeliveredLikeASend() throws Exception {
        Connection c = connect();
        RegisteredMemory src = register(c.client().pd, 64, Access.LOCAL_WRITE);
        RegisteredMemory dst = register(c.server().pd, 64, Access.LOCAL_WRITE);
        fill(src.buffer(), 10);
        c.server().qp.postRecv(recv(1, dst, 0, 64));
        SendWorkRequest wr = send(2, src, 0, 64);
        wr.flags |= SendWorkRequest.SOLICITED;
        c.client().qp.postSend(wr);
        assertThat(await(c.server().recvCq).status).isEqualTo(WcStatus.SUCCESS);
        assertThat(dst.buffer()).isEqualTo(src.buffer());
        assertThat(await(c.client().sendCq).status).isEqualTo(WcStatus.SUCCESS);
    }

    @Test
    void armedCompletionQueueCallsItsListener() throws Exception {
        Connection c = connect();
        RegisteredMemory src = register(c.client().pd, 64, Access.LOCAL_WRITE);
        RegisteredMemory dst = register(c.server().pd, 64, Access.LOCAL_WRITE);
        CountDownLatch called = new CountDownLatch(1);
        CompletionQueue cq = c.server().recvCq;
        cq.setListener(q -> called.countDown());
        cq.requestNotify();
        assertThat(drain(cq)).isEmpty();
        c.server().qp.postRecv(recv(1, dst, 0, 64));
        c.client().qp.postSend(send(2, src, 0, 64));
        assertThat(called.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(drain(cq)).hasSize(1);
        await(c.client().sendCq);
    }

    @Test
    void requestsPostedFromAListenerComplete() throws Exception {
        Connection c = connect();
        RegisteredMemory in = register(c.server().pd, 4096, Access.LOCAL_WRITE);
        RegisteredMemory out = register(c.server().pd, 4096, RW);
        RegisteredMemory clientIn = register(c.client().pd, 4096, Access.LOCAL_WRITE);
        RegisteredMemory clientOut = register(c.client().pd, 4096, Access.LOCAL_WRITE);
        fill(clientOut.buffer(), 16);
        CompletionQueue serverRecv = c.server().recvCq;
        java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
        WorkCompletion[] batch = {new WorkCompletion()};
        serverRecv.setListener(cq -> {
            try {
                while (cq.poll(batch) > 0) {
                    out.buffer().put(0, bytes(in.buffer(), 0, 100));
                    c.server().qp.postSend(send(50, out, 0, 100));
                }
            } catch (Exception | AssertionError e) {
                failure.set(e);
            }
        });
        serverRecv.requestNotify();
        c.server().qp.postRecv(recv(1, in, 0, 4096));
        c.client().qp.postRecv(recv(2, clientIn, 0, 4096));
        c.client().qp.postSend(send(3, clientOut, 0, 100));
        WorkCompletion echo = awaitWrId(c.client().recvCq, 2);
        assertThat(echo.status).isEqualTo(WcStatus.SUCCESS);
        assertThat(bytes(clientIn.buffer(), 0, 100)).isEqualTo(bytes(clientOut.buffer(), 0, 100));
        assertThat(awaitWrId(c.server().sendCq, 50).status).as("the listener's own Send completes")
                .isEqualTo(WcStatus.SUCCESS);
        assertThat(failure.get()).isNull();
    }

    @Test
    void bothDirectionsAtOnce() throws Exception {
        Connection c = connect();
        int n = 32;
        RegisteredMemory a = register(c.client().pd, n * 1024, Access.LOCAL_WRITE);
        RegisteredMemory b = register(c.server().pd, n * 1024, Access.LOCAL_WRITE);
        RegisteredMemory aIn = register(c.client().pd, n * 1024, Access.LOCAL_WRITE);
        RegisteredMemory bIn = register(c.server().pd, n * 1024, Access.LOCAL_WRITE);
        fill(a.buffer(), 11);
        fill(b.buffer(), 12);
        for (int i = 0; i < n; i++) {
            c.client().qp.postRecv(recv(i, aIn, i * 1024L, 1024));
            c.server().qp.postRecv(recv(i, bIn, i * 1024L, 1024));
        }
        for (int i = 0; i < n; i++) {
            c.client().qp.postSend(send(i, a, i * 1024L, 1024));
            c.server().qp.postSend(send(i, b, i * 1024L, 1024));
        }
        assertThat(awaitAll(c.client().recvCq, n)).extracting(wc -> wc.status).containsOnly(WcStatus.SUCCESS);
        assertThat(awaitAll(c.server().recvCq, n)).extracting(wc -> wc.status).containsOnly(WcStatus.SUCCESS);
        awaitAll(c.client().sendCq, n);
        awaitAll(c.server().sendCq, n);
        assertThat(aIn.buffer()).isEqualTo(b.buffer());
        assertThat(bIn.buffer()).isEqualTo(a.buffer());
    }
}
