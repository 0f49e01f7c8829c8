package org.rpcrdma4j.benchmarks.harness;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.emc.ecs.nfsclient.nfs.NfsWriteRequest;
import com.emc.ecs.nfsclient.nfs.io.Nfs3File;
import com.emc.ecs.nfsclient.nfs.nfs3.Nfs3;
import com.emc.ecs.nfsclient.nfs.nfs3.Nfs3GetAttrResponse;
import com.emc.ecs.nfsclient.nfs.nfs3.Nfs3ReadResponse;
import com.emc.ecs.nfsclient.nfs.nfs3.Nfs3WriteResponse;
import com.emc.ecs.nfsclient.rpc.CredentialUnix;

/**
 * EMC's NFSv3 client for Java over TCP: a blocking API, so {@code outstanding} threads each keep one call in flight
 * on the one shared client. It finds MOUNT and NFS through the portmapper on port 111 of the server's address
 * ({@link NfsFixture}). Owns its threads.
 */
final class EmcDriver implements NfsDriver {
    private final Nfs3 nfs3;
    private final byte[] data;
    private final byte[] scratch;
    private final long fileBytes;
    private final ExecutorService threads;

    EmcDriver(String host, long fileBytes, int outstanding) throws IOException {
        this.nfs3 = new Nfs3(host, NfsFixture.EXPORT, new CredentialUnix(0, 0, null), 3);
        this.data = new Nfs3File(nfs3, NfsFixture.DATA).getFileHandle();
        this.scratch = new Nfs3File(nfs3, NfsFixture.SCRATCH).getFileHandle();
        this.fileBytes = fileBytes;
        this.threads = Executors.newFixedThreadPool(outstanding, r -> {
            Thread t = new Thread(r, "harness-emc");
            t.setDaemon(true);
            return t;
        });
    }

    private int read(long offset, byte[] into, int size) throws IOException {
        Nfs3ReadResponse r = nfs3.getRead(nfs3.makeReadRequest(data, offset, size), into, 0);
        if (!r.stateIsOk()) {
            throw new IOException("READ at " + offset + " failed: status " + r.getState());
        }
        return r.getBytesRead();
    }

    @Override
    public Load load(NfsRow row, int outstanding) throws Exception {
        int size = row.size();
        // the client splits a record of more than 1 MiB into fragments it writes one by one, without holding the
        // connection in between: concurrent calls then interleave their fragments and the stream is garbage (the
        // server sees a bad record, the calls time out). A 1 MiB WRITE is such a record, so those go one at a time.
        boolean fragmented = !row.read() && size + 512 > 1 << 20;
        int lanes = fragmented ? 1 : outstanding;
        byte[][] buffers = new byte[lanes][size];
        if (row.read()) {
            int n = read(0, buffers[0], size);
            NfsFixture.checkPattern(0, buffers[0], n);
            if (n != size) {
                throw new IllegalStateException("short READ: " + n);
            }
        } else {
            for (byte[] b : buffers) {
                System.arraycopy(NfsFixture.PATTERN, 0, b, 0, size);
            }
        }
        Offsets offsets = new Offsets(row, fileBytes);
        return new Load() {
            @Override
            public long run(long deadlineNanos) throws Exception {
                List<Callable<Long>> lanes = new ArrayList<>();
                for (byte[] buffer : buffers) {
                    lanes.add(() -> lane(row, buffer, offsets, deadlineNanos));
                }
                long done = 0;
                for (Future<Long> f : threads.invokeAll(lanes)) {
                    done += f.get();
                }
                return done;
            }

            @Override
            public String limitation() {
                return fragmented ? "EMC nfs-client, WRITE 1 MiB: 1 outstanding, not " + outstanding + ": it writes a "
                        + "record above 1 MiB as fragments without holding the connection, so concurrent calls "
                        + "interleave them and corrupt the stream (seen as RPC timeouts)" : null;
            }

            @Override
            public void close() {
                // heap buffers: nothing to give back
            }
        };
    }

    private long lane(NfsRow row, byte[] buffer, Offsets offsets, long deadlineNanos) throws IOException {
        int size = row.size();
        long done = 0;
        while (System.nanoTime() < deadlineNanos) {
            long offset = offsets.next();
            if (row.read()) {
                int n = read(offset, buffer, size);
                if (n != size) {
                    throw new IOException("short READ at " + offset + ": " + n + " bytes");
                }
            } else {
                Nfs3WriteResponse w = nfs3.sendWrite(nfs3.makeWriteRequest(scratch, offset,
                        List.of(ByteBuffer.wrap(buffer, 0, size)), NfsWriteRequest.UNSTABLE));
                if (!w.stateIsOk() || w.getCount() != size) {
                    throw new IOException("WRITE at " + offset + " failed: status " + w.getState() + ", count "
                            + w.getCount());
                }
            }
            done++;
        }
        return done;
    }

    @Override
    public void getattr() throws Exception {
        Nfs3GetAttrResponse r = nfs3.getAttr(nfs3.makeGetAttrRequest(data));
        if (!r.stateIsOk()) {
            throw new IOException("GETATTR failed: status " + r.getState());
        }
    }

    @Override
    public void close() {
        threads.shutdownNow();
        try {
            threads.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
