package org.rpcrdma4j.nfs.vfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.NfsObject;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.StableHow;

/** LocalVfs's changes of a file's size against WRITEs of the same file at the same time. */
class LocalVfsSizeChangeTest {
    @TempDir
    Path temp;

    /**
     * A SETATTR that makes a file longer writes the new last byte. A WRITE of that byte at the same moment, between the
     * SETATTR's look at the size and its write, used to be overwritten by the SETATTR's zero: in neither order of the
     * two calls could the byte have been lost. Now the WRITE waits for the size change, or the change for the WRITE.
     */
    @Test
    void aFileMadeLongerKeepsTheLastByteAWriteWroteMeanwhile() throws Exception {
        growWhileWriting(false);
    }

    /**
     * The same when the WRITE names the file by the handle an earlier release gave: the lock is the file's, not the
     * handle's.
     */
    @Test
    void aFileMadeLongerKeepsTheLastByteAWriteThroughAnOlderHandleWroteMeanwhile() throws Exception {
        growWhileWriting(true);
    }

    private void growWhileWriting(boolean olderHandle) throws Exception {
        Path export = Files.createDirectories(temp.resolve("export"));
        byte[] key = "a secret handle key of 32 bytes!".getBytes(StandardCharsets.US_ASCII);
        LocalVfs vfs = LocalVfs.open(export, key);
        Created created = vfs.create(vfs.root(), "f", CreateMode.UNCHECKED, SetAttributes.NONE, 0);
        FileHandle f = created.handle();
        FileHandle written = olderHandle
                ? LocalVfsGenerationsTest.version1(new NfsObject(f, created.attributes()), key) : f;
        CountDownLatch growing = new CountDownLatch(1);
        CountDownLatch goOn = new CountDownLatch(1);
        AtomicBoolean first = new AtomicBoolean(true);
        vfs.files = new OwnerOverride(OwnerOverride.processUid(), (p, how) -> {
            FileChannel ch = FileChannel.open(p, how, LinkOption.NOFOLLOW_LINKS);
            if (!first.getAndSet(false)) {
                return ch;
            }
            return new LocalVfsWriteVerifierTest.Hooked(ch) { // the SETATTR's: it stops before its write
                @Override
                public int write(ByteBuffer src, long position) throws IOException {
                    growing.countDown();
                    try {
                        goOn.await();
                    } catch (InterruptedException e) {
                        throw new IOException(e);
                    }
                    return super.write(src, position);
                }
            };
        });

        CompletableFuture<?> setattr = CompletableFuture.runAsync(() -> {
            try {
                vfs.setattr(f, SetAttributes.NONE.withSize(4096), null);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(growing.await(30, TimeUnit.SECONDS)).as("the SETATTR reached its write").isTrue();
        Thread writer = new Thread(() -> {
            try {
                vfs.write(written, 4095, ByteBuffer.wrap(new byte[] {'x'}), StableHow.UNSTABLE);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        writer.start();
        // the WRITE either finishes first (as it did) or waits for the size change
        while (writer.isAlive() && writer.getState() != Thread.State.WAITING) {
            Thread.sleep(1);
        }
        goOn.countDown();
        writer.join(TimeUnit.SECONDS.toMillis(30));
        setattr.get(30, TimeUnit.SECONDS);
        assertThat(writer.isAlive()).isFalse();

        byte[] data = Files.readAllBytes(export.resolve("f"));
        assertThat(data).hasSize(4096);
        assertThat(data[4095]).as("the byte the WRITE wrote").isEqualTo((byte) 'x');
    }
}
