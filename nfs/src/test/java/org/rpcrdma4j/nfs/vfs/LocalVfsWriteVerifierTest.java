package org.rpcrdma4j.nfs.vfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.StableHow;

/** LocalVfs's write verifier: it changes whenever data acknowledged as unstable may have been lost. */
class LocalVfsWriteVerifierTest {
    @TempDir
    Path temp;

    /** A FileChannel that delegates, and whose force can be made to fail. */
    static class Hooked extends FileChannel {
        final FileChannel d;
        boolean failForce;
        int forces;
        Hooked(FileChannel d) { this.d = d; }
        public int read(ByteBuffer dst) throws IOException { return d.read(dst); }
        public long read(ByteBuffer[] dsts, int o, int l) throws IOException { return d.read(dsts, o, l); }
        public int write(ByteBuffer src) throws IOException { return d.write(src); }
        public long write(ByteBuffer[] srcs, int o, int l) throws IOException { return d.write(srcs, o, l); }
        public long position() throws IOException { return d.position(); }
        public FileChannel position(long p) throws IOException { d.position(p); return this; }
        public long size() throws IOException { return d.size(); }
        public FileChannel truncate(long s) throws IOException { d.truncate(s); return this; }
        public void force(boolean m) throws IOException {
            if (failForce) throw new IOException("Input/output error (injected writeback failure)");
            d.force(m);
            forces++;
        }
        public long transferTo(long p, long c, WritableByteChannel t) throws IOException {
            return d.transferTo(p, c, t instanceof Hooked h ? h.d : t);
        }
        public long transferFrom(ReadableByteChannel s, long p, long c) throws IOException { return d.transferFrom(s, p, c); }
        public int read(ByteBuffer dst, long p) throws IOException { return d.read(dst, p); }
        public int write(ByteBuffer src, long p) throws IOException { return d.write(src, p); }
        public MappedByteBuffer map(MapMode m, long p, long s) throws IOException { return d.map(m, p, s); }
        public FileLock lock(long p, long s, boolean sh) throws IOException { return d.lock(p, s, sh); }
        public FileLock tryLock(long p, long s, boolean sh) throws IOException { return d.tryLock(p, s, sh); }
        protected void implCloseChannel() throws IOException { d.close(); }
    }

    volatile Consumer<Hooked> nextWriteOpen;

    LocalVfs open() throws IOException {
        Path export = Files.createDirectories(temp.resolve("export"));
        LocalVfs vfs = LocalVfs.open(export, "a secret handle key of 32 bytes!".getBytes(StandardCharsets.US_ASCII));
        vfs.files = new OwnerOverride(OwnerOverride.processUid(), (p, how) -> {
            Hooked h = new Hooked(FileChannel.open(p, how, LinkOption.NOFOLLOW_LINKS));
            Consumer<Hooked> c = how == java.nio.file.StandardOpenOption.WRITE ? nextWriteOpen : null;
            if (c != null) { nextWriteOpen = null; c.accept(h); }
            return h;
        });
        return vfs;
    }

    /**
     * A COPY whose destination cannot be forced changes the write verifier, as a WRITE's failed force does: the
     * failure may be the kernel's one report of lost writeback of the file's earlier unstable writes, which a later
     * COMMIT's fsync would not see, so clients must send them again. It used to leave the verifier as it was.
     */
    @Test
    void aCopyWhoseForceFailsChangesTheVerifier() throws Exception {
        LocalVfs vfs = open();
        FileHandle src = vfs.create(vfs.root(), "src", CreateMode.UNCHECKED, SetAttributes.NONE, 0).handle();
        FileHandle dst = vfs.create(vfs.root(), "dst", CreateMode.UNCHECKED, SetAttributes.NONE, 0).handle();
        vfs.write(src, 0, ByteBuffer.wrap(new byte[5000]), StableHow.FILE_SYNC);
        long v0 = vfs.writeVerifier();
        nextWriteOpen = h -> h.failForce = true;
        assertThatThrownBy(() -> vfs.copy(src, 0, dst, 0, 5000)).isInstanceOf(NfsException.class);
        long afterCopy = vfs.writeVerifier();
        nextWriteOpen = h -> h.failForce = true;
        assertThatThrownBy(() -> vfs.write(dst, 0, ByteBuffer.wrap(new byte[10]), StableHow.FILE_SYNC))
                .isInstanceOf(NfsException.class);
        long afterWrite = vfs.writeVerifier();
        assertThat(afterWrite).as("a WRITE whose fsync failed changes the verifier").isNotEqualTo(afterCopy);
        assertThat(afterCopy).as("a COPY whose fsync failed changes the verifier").isNotEqualTo(v0);
    }

    /**
     * SETATTR of the size is stable when it returns, as NFS's calls but an UNSTABLE WRITE are: the file is forced, and
     * a force that fails fails the call and changes the verifier. It was left to the kernel's writeback.
     */
    @Test
    void aSizeChangeIsForcedAndOneThatCannotBeChangesTheVerifier() throws Exception {
        LocalVfs vfs = open();
        FileHandle f = vfs.create(vfs.root(), "f", CreateMode.UNCHECKED, SetAttributes.NONE, 0).handle();
        vfs.write(f, 0, ByteBuffer.wrap(new byte[5000]), StableHow.FILE_SYNC);
        Hooked[] opened = new Hooked[1];
        nextWriteOpen = h -> opened[0] = h;
        vfs.setattr(f, SetAttributes.NONE.withSize(100), null);
        assertThat(opened[0].forces).as("forces of the truncated file").isEqualTo(1);

        long before = vfs.writeVerifier();
        nextWriteOpen = h -> h.failForce = true;
        assertThatThrownBy(() -> vfs.setattr(f, SetAttributes.NONE.withSize(10), null))
                .isInstanceOf(NfsException.class);
        assertThat(vfs.writeVerifier()).isNotEqualTo(before);
    }
}
