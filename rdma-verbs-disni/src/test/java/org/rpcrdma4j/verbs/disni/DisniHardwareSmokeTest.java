package org.rpcrdma4j.verbs.disni;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.verbs.AcceptParameters;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.ConnectParameters;
import org.rpcrdma4j.verbs.ConnectionEvent;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionInfo;
import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.verbs.PostException;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QpState;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaListener;
import org.rpcrdma4j.verbs.RecvWorkRequest;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.TransportType;
import org.rpcrdma4j.verbs.WcOpcode;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * SEND/RECV, RDMA READ and RDMA WRITE through the real provider over a real device (hardware, rxe or siw), client and
 * server in one JVM over the device's loopback; every byte that arrives is compared. Skipped (with the reason) unless
 * {@code -Drdma.disni=true -Drdma.disni.address=...} is given.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DisniHardwareSmokeTest {
    private static final int N = 8192;

    private RdmaDevice device;
    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeEach
    void openDevice() throws Exception {
        HardwareSetup.assumeHardware();
        device = new DisniProvider().open(HardwareSetup.options());
    }

    @AfterEach
    void closeAll() throws Exception {
        if (device == null) {
            return;
        }
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        assertThat(device.resourceCounts().isEmpty()).as("left open: %s", device.resourceCounts()).isTrue();
        device.close();
    }

    private <T extends AutoCloseable> T track(T resource) {
        open.add(resource);
        return resource;
    }

    private static void fill(ByteBuffer b, int seed) {
        for (int i = 0; i < b.capacity(); i++) {
            b.put(i, (byte) ((i * 7 + seed) % 251));
        }
    }

    private static int firstMismatch(ByteBuffer b, int seed) {
        for (int i = 0; i < b.capacity(); i++) {
            if (b.get(i) != (byte) ((i * 7 + seed) % 251)) {
                return i;
            }
        }
        return -1;
    }

    /** Polls until the completion of {@code wrId} arrives; other completions are kept in {@code seen}. */
    private static WorkCompletion await(CompletionQueue cq, long wrId, List<WorkCompletion> seen) {
        for (WorkCompletion wc : seen) {
            if (wc.wrId == wrId) {
                seen.remove(wc);
                return wc;
            }
        }
        WorkCompletion[] batch = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            int n = cq.poll(batch);
            WorkCompletion found = null;
            for (int i = 0; i < n; i++) {
                WorkCompletion copy = new WorkCompletion().copyFrom(batch[i]);
                if (copy.wrId == wrId && found == null) {
                    found = copy;
                } else {
                    seen.add(copy);
                }
            }
            if (found != null) {
                return found;
            }
            if (n == 0) {
                Thread.onSpinWait();
            }
        }
        throw new AssertionError("no completion of wr_id " + wrId + " within 30 s; other completions: " + seen);
    }

    private static ConnectionEvent next(BlockingQueue<ConnectionEvent> events) throws InterruptedException {
        ConnectionEvent e = events.poll(30, TimeUnit.SECONDS);
        assertThat(e).as("a connection event within 30 s").isNotNull();
        return e;
    }

    @Test
    void sendReceiveRdmaReadAndWriteMoveEveryByte() throws Exception {
        assertThat(device.attributes().capabilities()).as("DiSNI offers no optional capability").isEmpty();
        boolean iwarp = device.attributes().transportType() == TransportType.IWARP;
        ProtectionDomain pd = track(device.allocProtectionDomain());
        CompletionQueue serverCq = track(device.createCompletionQueue(64));
        CompletionQueue clientCq = track(device.createCompletionQueue(64));
        QueuePair server = track(pd.createQueuePair(new QueuePairConfig(serverCq, serverCq, 16, 16, 2, 1, 0)));
        QueuePair client = track(pd.createQueuePair(new QueuePairConfig(clientCq, clientCq, 16, 16, 2, 1, 0)));

        // memory: the server's READ source and WRITE sink, the client's READ sink and WRITE source, message buffers
        ByteBuffer data = ByteBuffer.allocateDirect(N);
        fill(data, 1);
        ByteBuffer sink = ByteBuffer.allocateDirect(N);
        ByteBuffer readInto = ByteBuffer.allocateDirect(N);
        ByteBuffer writeFrom = ByteBuffer.allocateDirect(N);
        fill(writeFrom, 2);
        ByteBuffer serverMsg = ByteBuffer.allocateDirect(256);
        ByteBuffer clientMsg = ByteBuffer.allocateDirect(256);
        RegisteredMemory dataMr = track(pd.registerMemory(data, Access.REMOTE_READ));
        RegisteredMemory sinkMr = track(pd.registerMemory(sink, Access.LOCAL_WRITE | Access.REMOTE_WRITE));
        RegisteredMemory readMr = track(pd.registerMemory(readInto,
                Access.LOCAL_WRITE | (iwarp ? Access.REMOTE_WRITE : 0))); // an iWARP READ sink is written remotely
        RegisteredMemory writeMr = track(pd.registerMemory(writeFrom, 0));
        RegisteredMemory serverMsgMr = track(pd.registerMemory(serverMsg, Access.LOCAL_WRITE));
        RegisteredMemory clientMsgMr = track(pd.registerMemory(clientMsg, Access.LOCAL_WRITE));

        // receives are posted before the connection exists: the provider keeps them until the native QP does
        RecvWorkRequest serverRecv = new RecvWorkRequest(1);
        serverRecv.wrId = 100;
        serverRecv.addSge().set(serverMsgMr, 128, 128);
        server.postRecv(serverRecv);
        RecvWorkRequest clientRecv = new RecvWorkRequest(1);
        clientRecv.wrId = 200;
        clientRecv.addSge().set(clientMsgMr, 0, 128);
        client.postRecv(clientRecv);

        BlockingQueue<ConnectionEvent> serverEvents = new LinkedBlockingQueue<>();
        BlockingQueue<ConnectionEvent> clientEvents = new LinkedBlockingQueue<>();
        AtomicReference<Throwable> acceptFailure = new AtomicReference<>();
        AtomicReference<byte[]> requestData = new AtomicReference<>();
        RdmaListener listener = track(device.connectionManager().listen(new InetSocketAddress(0), request -> {
            requestData.set(request.privateData());
            try {
                request.accept(server, new AcceptParameters(null, 0, 0), serverEvents::add);
            } catch (Exception e) {
                acceptFailure.set(e);
            }
        }));
        ConnectionInfo info = device.connectionManager().connect(client, listener.localAddress(),
                new ConnectParameters(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, 16, 16, Duration.ofSeconds(5),
                        Duration.ofSeconds(10)), clientEvents::add).get(30, TimeUnit.SECONDS);
        assertThat(acceptFailure.get()).isNull();
        assertThat(requestData.get()).as("DiSNI delivers no private data to the accepting side").isEmpty();
        assertThat(info.remoteAddress()).isEqualTo(listener.localAddress());
        assertThat(info.privateData()).isEmpty();
        assertThat(next(serverEvents).type()).isEqualTo(ConnectionEventType.ESTABLISHED);
        assertThat(client.state()).isEqualTo(QpState.RTS);
        assertThat(server.state()).isEqualTo(QpState.RTS);

        List<WorkCompletion> seenServer = new ArrayList<>();
        List<WorkCompletion> seenClient = new ArrayList<>();

        // 1. SEND with two SGEs, server to client: the READ source's address/rkey, the sink's, and a text
        serverMsg.clear();
        serverMsg.putLong(0, dataMr.iova()).putInt(8, dataMr.rkey()).putLong(12, sinkMr.iova()).putInt(20, sinkMr.rkey());
        byte[] hello = "hello from the DiSNI server".getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < hello.length; i++) {
            serverMsg.put(64 + i, hello[i]);
        }
        SendWorkRequest send = new SendWorkRequest(2);
        send.wrId = 101;
        send.opcode = Opcode.SEND;
        send.flags = SendWorkRequest.SIGNALED;
        send.addSge().set(serverMsgMr, 0, 24);
        send.addSge().set(serverMsgMr, 64, hello.length);
        server.postSend(send);
        WorkCompletion sent = await(serverCq, 101, seenServer);
        assertThat(sent.status).isEqualTo(WcStatus.SUCCESS);
        assertThat(sent.opcode).isEqualTo(WcOpcode.SEND);

        WorkCompletion received = await(clientCq, 200, seenClient);
        assertThat(received.status).isEqualTo(WcStatus.SUCCESS);
        assertThat(received.opcode).isEqualTo(WcOpcode.RECV);
        assertThat(received.byteLen).isEqualTo(24 + hello.length);
        assertThat(received.qpNum).isEqualTo(client.qpNum());
        long dataAddr = clientMsg.getLong(0);
        int dataKey = clientMsg.getInt(8);
        long sinkAddr = clientMsg.getLong(12);
        int sinkKey = clientMsg.getInt(20);
        byte[] text = new byte[hello.length];
        for (int i = 0; i < text.length; i++) {
            text[i] = clientMsg.get(24 + i);
        }
        assertThat(text).isEqualTo(hello);
        assertThat(dataAddr).isEqualTo(dataMr.iova());

        // 2. RDMA READ of the server's 8 KiB
        SendWorkRequest read = new SendWorkRequest(1);
        read.wrId = 201;
        read.opcode = Opcode.RDMA_READ;
        read.flags = SendWorkRequest.SIGNALED;
        read.addSge().set(readMr, 0, N);
        read.remoteAddress = dataAddr;
        read.rkey = dataKey;
        client.postSend(read);
        WorkCompletion readDone = await(clientCq, 201, seenClient);
        assertThat(readDone.status).isEqualTo(WcStatus.SUCCESS);
        assertThat(readDone.opcode).isEqualTo(WcOpcode.RDMA_READ);
        assertThat(firstMismatch(readInto, 1)).as("first differing byte of the RDMA READ").isEqualTo(-1);

        // 3. RDMA WRITE (unsignaled) chained before a SEND; the server hears of the SEND through its listener
        RecvWorkRequest again = new RecvWorkRequest(1);
        again.wrId = 102;
        again.addSge().set(serverMsgMr, 128, 128);
        server.postRecv(again);
        CountDownLatch notified = new CountDownLatch(1);
        serverCq.setListener(cq -> notified.countDown());
        serverCq.requestNotify();
        SendWorkRequest write = new SendWorkRequest(1);
        write.wrId = 202;
        write.opcode = Opcode.RDMA_WRITE;
        write.addSge().set(writeMr, 0, N);
        write.remoteAddress = sinkAddr;
        write.rkey = sinkKey;
        SendWorkRequest done = new SendWorkRequest(1);
        done.wrId = 203;
        done.opcode = Opcode.SEND;
        done.flags = SendWorkRequest.SIGNALED;
        clientMsg.put(128, (byte) 'D');
        done.addSge().set(clientMsgMr, 128, 1);
        write.next = done;
        client.postSend(write);
        assertThat(await(clientCq, 203, seenClient).status).isEqualTo(WcStatus.SUCCESS);
        assertThat(notified.await(30, TimeUnit.SECONDS)).as("completion listener called").isTrue();
        WorkCompletion doneArrived = await(serverCq, 100, seenServer); // the receive posted before the connection
        assertThat(doneArrived.status).isEqualTo(WcStatus.SUCCESS);
        assertThat(doneArrived.byteLen).isEqualTo(1);
        assertThat(serverMsg.get(128)).isEqualTo((byte) 'D');
        assertThat(firstMismatch(sink, 2)).as("first differing byte of the RDMA WRITE").isEqualTo(-1);

        // the same chain shape again: posted through the cached DiSNI call
        fill(writeFrom, 3);
        write.wrId = 204;
        done.wrId = 205;
        client.postSend(write);
        assertThat(await(clientCq, 205, seenClient).status).isEqualTo(WcStatus.SUCCESS);
        assertThat(await(serverCq, 102, seenServer).byteLen).isEqualTo(1);
        assertThat(firstMismatch(sink, 3)).as("first differing byte of the second RDMA WRITE").isEqualTo(-1);

        // 4. a request DiSNI cannot carry is refused, naming the capability
        SendWorkRequest inv = new SendWorkRequest(1);
        inv.opcode = Opcode.SEND_WITH_INV;
        assertThatThrownBy(() -> client.postSend(inv)).isInstanceOf(PostException.class)
                .hasMessageContaining("SEND_WITH_INV");

        // 5. disconnect: both sides hear it; later posts complete with WR_FLUSH_ERR
        client.disconnect();
        assertThat(next(clientEvents).type()).isEqualTo(ConnectionEventType.DISCONNECTED);
        assertThat(next(serverEvents).type()).isEqualTo(ConnectionEventType.DISCONNECTED);
        RecvWorkRequest late = new RecvWorkRequest(1);
        late.wrId = 206;
        late.addSge().set(clientMsgMr, 0, 16);
        client.postRecv(late);
        assertThat(await(clientCq, 206, seenClient).status).isEqualTo(WcStatus.WR_FLUSH_ERR);
    }
}
