package org.rpcrdma4j.nfs.v4;

import org.rpcrdma4j.nfs.binding.NfsBinding;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.binding.Nfs3UpperLayerBinding;
import org.rpcrdma4j.nfs.binding.VersionedBinding;
import org.rpcrdma4j.nfs.client.rdma.RdmaDataTransport;
import org.rpcrdma4j.nfs.testing.XdrBytes;
import org.rpcrdma4j.nfs.xdr.Nfs3;
import org.rpcrdma4j.nfs.xdr.WriteArgs;
import org.rpcrdma4j.xprt.DataItem;
import org.rpcrdma4j.xprt.UpperLayerBinding;
import org.rpcrdma4j.xprt.client.RdmaClientConfig;

/**
 * {@link VersionedBinding}: one binding for NFS program 100003 that answers NFSv3 calls as the NFSv3 binding and
 * NFSv4 COMPOUNDs as the NFSv4 binding, so that one transport (which takes one binding per program) does direct data
 * placement for both; unknown versions get no item and no bound.
 */
class VersionedBindingTest {
    private static final UpperLayerBinding NFS = VersionedBinding.of(Nfs3UpperLayerBinding.INSTANCE,
            Nfs4UpperLayerBinding.INSTANCE);

    private static ByteBuf nfs3Write(int length) {
        byte[] fh = new byte[21];
        return XdrBytes.encodeToBuf(new WriteArgs(FileHandle.wrap(fh), 7, StableHow.FILE_SYNC,
                Unpooled.wrappedBuffer(new byte[length])));
    }

    private static ByteBuf nfs4Write(int length) {
        Compound41 c = Compound41.of(new Compound41.Sequence(new byte[16], 1, 0), new Compound41.PutFh(new byte[27]),
                new Compound41.Write(0, new byte[length]), new Compound41.GetAttr(0x18));
        c.tag = "t";
        return XdrBytes.encodeToBuf(c);
    }

    @Test
    void eachVersionIsAnsweredByItsBinding() throws Exception {
        assertThat(NFS.program()).isEqualTo(100003);
        assertThat(NFS.supportsVersion(3)).isTrue();
        assertThat(NFS.supportsVersion(4)).isTrue();
        assertThat(NFS.supportsVersion(2)).isFalse();

        DataItem item = new DataItem();
        DataItem expected = new DataItem();
        ByteBuf v3 = nfs3Write(1001);
        assertThat(NFS.locateCallItem(3, Nfs3.WRITE, v3, item)).isTrue();
        assertThat(Nfs3UpperLayerBinding.INSTANCE.locateCallItem(3, Nfs3.WRITE, v3, expected)).isTrue();
        assertThat(item.offset()).isEqualTo(expected.offset());
        assertThat(item.length()).isEqualTo(1001);

        ByteBuf v4 = nfs4Write(1001);
        Compound41 args = Compound41.of(new Compound41.Sequence(new byte[16], 1, 0),
                new Compound41.PutFh(new byte[27]), new Compound41.Write(0, new byte[1001]));
        args.tag = "t";
        assertThat(NFS.locateCallItem(4, Nfs4.PROC_COMPOUND, v4, item.clear())).isTrue();
        assertThat(item.offset()).isEqualTo(args.itemOffset());
        assertThat(item.length()).isEqualTo(1001);
        // the same bytes under the other version are not that version's arguments
        assertThat(NFS.locateCallItem(3, Nfs4.PROC_COMPOUND, v4, item.clear())).isFalse();
        assertThat(NFS.maxInlineReplySize(4, Nfs4.PROC_COMPOUND, v4))
                .isEqualTo(Nfs4UpperLayerBinding.INSTANCE.maxInlineReplySize(4, Nfs4.PROC_COMPOUND, v4))
                .isPositive();
        assertThat(NFS.maxInlineReplySize(3, Nfs3.WRITE, v3))
                .isEqualTo(Nfs3UpperLayerBinding.INSTANCE.maxInlineReplySize(3, Nfs3.WRITE, v3))
                .isPositive();
    }

    @Test
    void anUnknownVersionHasNoItemAndNoBound() throws Exception {
        ByteBuf v4 = nfs4Write(8);
        DataItem item = new DataItem();
        assertThat(NFS.locateCallItem(2, Nfs4.PROC_COMPOUND, v4, item)).isFalse();
        assertThat(item.isSet()).isFalse();
        assertThat(NFS.locateReplyItem(5, 1, v4, item)).isFalse();
        assertThat(NFS.locateReducedReplyItem(5, 1, v4, item)).isFalse();
        assertThat(NFS.maxReplyItemLength(2, 1, v4)).isEqualTo(-1);
        assertThat(NFS.maxInlineReplySize(2, 1, v4)).isEqualTo(-1);
    }

    @Test
    void bindingsOfDifferentProgramsDoNotCombine() {
        UpperLayerBinding other = new UpperLayerBinding() {
            @Override
            public int program() {
                return 100005;
            }

            @Override
            public boolean supportsVersion(int version) {
                return true;
            }

            @Override
            public boolean locateCallItem(int version, int procedure, ByteBuf args, DataItem out) {
                return false;
            }

            @Override
            public boolean locateReplyItem(int version, int procedure, ByteBuf results, DataItem out) {
                return false;
            }

            @Override
            public boolean locateReducedReplyItem(int version, int procedure, ByteBuf results, DataItem out) {
                return false;
            }

            @Override
            public long maxReplyItemLength(int version, int procedure, ByteBuf args) {
                return -1;
            }

            @Override
            public long maxInlineReplySize(int version, int procedure, ByteBuf args) {
                return -1;
            }
        };
        assertThatThrownBy(() -> VersionedBinding.of(Nfs3UpperLayerBinding.INSTANCE, other))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("100005");
        assertThatThrownBy(VersionedBinding::of).isInstanceOf(IllegalArgumentException.class);
    }

    /** The client configuration takes one binding per program: the combined one fits where two would not. */
    @Test
    void theClientConfigurationTakesItAsTheNfsBinding() {
        assertThatThrownBy(() -> RdmaClientConfig.builder().binding(Nfs3UpperLayerBinding.INSTANCE)
                .binding(Nfs4UpperLayerBinding.INSTANCE)).isInstanceOf(IllegalArgumentException.class);
        RdmaClientConfig config = RdmaClientConfig.builder().binding(NfsBinding.INSTANCE).build();
        assertThat(config.bindings()).singleElement().satisfies(b -> {
            assertThat(b.supportsVersion(3)).isTrue();
            assertThat(b.supportsVersion(4)).isTrue();
        });
    }

    @Test
    void lookingUpAVersionAllocatesNothing() throws Exception {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        ByteBuf v3 = nfs3Write(64);
        ByteBuf v4 = nfs4Write(64);
        DataItem item = new DataItem();
        long sink = 0;
        int rounds = 100_000;
        for (int i = 0; i < 2 * rounds; i++) {
            sink += round(v3, v4, item);
        }
        long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
        for (int i = 0; i < rounds; i++) {
            sink += round(v3, v4, item);
        }
        long allocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
        assertThat(sink).isPositive();
        assertThat(allocated).isLessThan(rounds);
    }

    private static long round(ByteBuf v3, ByteBuf v4, DataItem item) throws Exception {
        long sum = 0;
        NFS.locateCallItem(3, Nfs3.WRITE, v3, item);
        sum += item.offset();
        NFS.locateCallItem(4, Nfs4.PROC_COMPOUND, v4, item);
        sum += item.offset();
        sum += NFS.maxInlineReplySize(4, Nfs4.PROC_COMPOUND, v4);
        return sum;
    }
}
