package org.rpcrdma4j.it.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.client.NfsClient;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;

/**
 * Found by the fuzz campaign: WRITEs at huge offsets to the in-memory file system. {@code MemoryVfs.write} used to
 * check only {@code offset < 0 || offset + count < 0} while {@code MemoryFileData} indexed its blocks with
 * {@code (int) (offset / BLOCK)}: an offset of 2^45 grew the block index to 2^29 + 1 references (gigabytes), and an
 * offset of 2^47 wrapped to block 0 and overwrote the start of the file. Both must now be refused with NFS3ERR_FBIG
 * over the wire.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MemoryVfsHugeOffsetTest {
    private NfsRdmaRig rig;
    private final MemoryVfs vfs = new MemoryVfs(64L << 20);

    @AfterEach
    void close() throws Exception {
        if (rig != null) {
            rig.close();
        }
        vfs.close();
    }

    private NfsClient mount() throws Exception {
        rig = new NfsRdmaRig(vfs, false, Map.of(), b -> { });
        return rig.mount(NfsClientConfig.defaults(), b -> b);
    }

    @Test
    void aWriteAtOffset2To47DoesNotLandAtTheStartOfTheFile() throws Exception {
        NfsClient client = mount();
        FileHandle fh = client.createFile("/f");
        client.write(fh, 0, Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4}), StableHow.FILE_SYNC);
        assertThatThrownBy(() -> client.write(fh, 1L << 47, Unpooled.wrappedBuffer(new byte[] {9}),
                StableHow.FILE_SYNC)).isInstanceOfSatisfying(NfsException.class,
                        e -> assertThat(e.status()).isEqualTo(Nfs3Status.NFS3ERR_FBIG));
        ByteBuf back = Unpooled.buffer(4);
        client.read(fh, 0, back);
        assertThat(back.getByte(0)).isEqualTo((byte) 1);
    }

    @Test
    void aWriteAtOffset2To45IsRefusedAsTooBig() throws Exception {
        NfsClient client = mount();
        FileHandle fh = client.createFile("/g");
        assertThatThrownBy(() -> client.write(fh, 1L << 45, Unpooled.wrappedBuffer(new byte[] {9}),
                StableHow.FILE_SYNC)).isInstanceOfSatisfying(NfsException.class,
                        e -> assertThat(e.status()).isEqualTo(Nfs3Status.NFS3ERR_FBIG));
    }
}
