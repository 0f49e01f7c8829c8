package org.rpcrdma4j.it.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.it.fault.FaultProxy.Direction;
import org.rpcrdma4j.it.fault.PostFault;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.client.NfsClient;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.client.RpcCallException;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.verbs.Opcode;
import org.rpcrdma4j.xprt.XprtCounter;

/**
 * The faults of the fault layer the campaigns do not draw, each once against NFSv3 over RDMA: a corrupted CRC and a
 * corrupted payload byte with MPA CRC negotiated, connects refused by the proxy and by the faulty device, a refused
 * post, and a slow link. Each must end in a completed, byte-exact operation or a typed failure, and the mount must
 * work afterwards.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FaultLayerTest {
    private static final Map<String, String> CRC = Map.of("crc", "true");
    private NfsRdmaRig rig;
    private final MemoryVfs vfs = new MemoryVfs(16L << 20);

    @AfterEach
    void close() throws Exception {
        if (rig != null) {
            rig.close();
        }
        vfs.close();
    }

    private NfsClient mount(Map<String, String> deviceOptions, Duration timeout) throws Exception {
        rig = new NfsRdmaRig(vfs, true, deviceOptions, deviceOptions, b -> { });
        return rig.mount(NfsClientConfig.defaults().withCallTimeout(timeout), b -> b);
    }

    private static byte[] data(int seed, int n) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private long reconnects() {
        return rig.transport.transport().stats().get(XprtCounter.RECONNECTS);
    }

    @Test
    void aCorruptedCrcIsCaughtTheConnectionIsReplacedAndTheWriteLandsByteExact() throws Exception {
        NfsClient client = mount(CRC, Duration.ofSeconds(20));
        FileHandle fh = client.createFile("/f");
        byte[] d = data(1, 50_000);
        rig.proxy.corruptCrc(Direction.TO_SERVER);
        client.write(fh, 0, Unpooled.wrappedBuffer(d), StableHow.FILE_SYNC);
        assertThat(rig.proxy.injected(Direction.TO_SERVER)).isEqualTo(1);
        assertThat(client.readAll("/f")).isEqualTo(d);
        assertThat(reconnects()).as("the corrupted FPDU broke the connection").isPositive();
    }

    @Test
    void aCorruptedPayloadByteIsCaughtByCrcAndTheReadIsRight() throws Exception {
        NfsClient client = mount(CRC, Duration.ofSeconds(20));
        FileHandle fh = client.createFile("/f");
        byte[] d = data(2, 70_000);
        client.write(fh, 0, Unpooled.wrappedBuffer(d), StableHow.FILE_SYNC);
        rig.proxy.corruptPayload(Direction.TO_CLIENT);
        assertThat(client.readAll("/f")).isEqualTo(d);
        assertThat(rig.proxy.injected(Direction.TO_CLIENT)).isEqualTo(1);
        assertThat(reconnects()).isPositive();
    }

    @Test
    void connectsRefusedByTheProxyFailTheCallClearlyAndTheMountRecovers() throws Exception {
        NfsClient client = mount(Map.of(), Duration.ofSeconds(2));
        FileHandle fh = client.createFile("/f");
        rig.proxy.refuseConnects(true);
        rig.proxy.dropAll();
        assertThatThrownBy(() -> client.getattr(fh)).isInstanceOf(RpcCallException.class);
        assertThat(rig.proxy.refused()).isPositive();
        rig.proxy.refuseConnects(false);
        assertThat(client.getattr(fh).size()).isZero();
    }

    @Test
    void connectsRefusedByTheDeviceFailTheCallClearlyAndTheMountRecovers() throws Exception {
        NfsClient client = mount(Map.of(), Duration.ofSeconds(2));
        FileHandle fh = client.createFile("/f");
        rig.clientPlan.refuseConnects(true);
        rig.proxy.dropAll();
        assertThatThrownBy(() -> client.getattr(fh)).isInstanceOf(RpcCallException.class);
        assertThat(rig.clientPlan.refusedConnects()).isPositive();
        rig.clientPlan.refuseConnects(false);
        assertThat(client.getattr(fh).size()).isZero();
    }

    @Test
    void aRefusedPostEndsInACompletedOrClearlyFailedCallAndTheMountGoesOn() throws Exception {
        NfsClient client = mount(Map.of(), Duration.ofSeconds(5));
        FileHandle fh = client.createFile("/f");
        byte[] d = data(3, 10_000);
        rig.clientPlan.armOnce(PostFault.FAIL_POST, Opcode.SEND);
        try {
            client.write(fh, 0, Unpooled.wrappedBuffer(d), StableHow.FILE_SYNC);
        } catch (RpcCallException clear) {
            client.write(fh, 0, Unpooled.wrappedBuffer(d), StableHow.FILE_SYNC);
        }
        assertThat(rig.clientPlan.injected(PostFault.FAIL_POST)).isEqualTo(1);
        assertThat(client.readAll("/f")).isEqualTo(d);
    }

    @Test
    void aSlowLinkStillCarriesEveryByte() throws Exception {
        NfsClient client = mount(Map.of(), Duration.ofSeconds(20));
        FileHandle fh = client.createFile("/f");
        byte[] d = data(4, 300_000);
        rig.proxy.delay(Direction.TO_CLIENT, 20);
        rig.proxy.delay(Direction.TO_SERVER, 20);
        client.write(fh, 0, Unpooled.wrappedBuffer(d), StableHow.FILE_SYNC);
        assertThat(client.readAll("/f")).isEqualTo(d);
        rig.proxy.delay(Direction.TO_CLIENT, 0);
        rig.proxy.delay(Direction.TO_SERVER, 0);
        assertThat(reconnects()).isZero();
    }

    @Test
    void aReadWhoseReplyIsLostHasItsHandlesGoneBeforeTheQueuePairAndTheBytesArriveAfterTheReconnect() throws Exception {
        NfsClient client = mount(Map.of(), Duration.ofSeconds(20));
        FileHandle fh = client.createFile("/f");
        byte[] d = data(5, 200_000);
        client.write(fh, 0, Unpooled.wrappedBuffer(d), StableHow.FILE_SYNC);
        // the server places the READ's data in the client's write chunk, then the connection drops before the reply
        // that would have invalidated the chunk's handle
        rig.serverPlan.armOnce(PostFault.DROP_BETWEEN_WRITE_AND_SEND, Opcode.RDMA_WRITE);
        assertThat(client.readAll("/f")).isEqualTo(d);
        assertThat(rig.serverPlan.injected(PostFault.DROP_BETWEEN_WRITE_AND_SEND)).isEqualTo(1);
        assertThat(reconnects()).isPositive();
        assertThat(rig.clientPlan.queuePairsClosed()).as("the lost connection's queue pair was closed").isPositive();
        // a window bound through a queue pair holds it (rxe waits in its destruction), and the peer could still reach
        // the memory: the handles are destroyed first
        assertThat(rig.clientPlan.validRegionsAtQueuePairClose())
                .as("fast-register regions still valid when the client closed a queue pair").isZero();
    }
}
