package org.rpcrdma4j.benchmarks.harness;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.internal.PlatformDependent;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.client.NfsClient;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.client.ReadReply;
import org.rpcrdma4j.nfs.client.rdma.RdmaDataTransport;
import org.rpcrdma4j.nfs.client.rdma.RdmaDataTransportFactory;
import org.rpcrdma4j.registration.BufferPoolConfig;
import org.rpcrdma4j.registration.RegisteredBufferPool;
import org.rpcrdma4j.xprt.client.RdmaClientConfig;

/**
 * Memory per mount, measured in a JVM of its own that does nothing but mount, so that no server memory is counted:
 * the direct memory (the JDK's {@code direct} buffer pool plus Netty's own direct-memory counter) before and after
 * a mount over {@code rdma://} with the client's defaults (128 credits, its own software device), the bytes its
 * registered buffer pool has registered ({@link RegisteredBufferPool#pagesTotal()}) and holds
 * ({@link RegisteredBufferPool#pagesInUse()}: request slots and receive buffers), the same for a second mount, and the
 * registered bytes after 16 concurrent 1 MiB READs into caller memory outside the pool (the transport then copies
 * through registered buffers of its own). {@code allocateDirect} zeroes what it allocates, so all of it is touched.
 * <p>
 * {@link #main} prints {@code key=value} lines; {@link #measure} runs it as a child process and parses them.
 */
public final class MountMemoryProbe {

    private MountMemoryProbe() {
    }

    /** {@code args[0]}: the {@code rdma://} URL of an export holding {@link NfsFixture#DATA} (16 MiB at least). */
    public static void main(String[] args) throws Exception {
        String url = args[0];
        NfsClientConfig config = NfsClientConfig.defaults().withTransportFactory(new RdmaDataTransportFactory(
                RdmaClientConfig.builder().provider("soft", Map.of()).jmx(false).build()));
        long before = direct();
        NfsClient first = NfsClient.mount(url, config);
        FileHandle data = first.resolve(NfsFixture.DATA);
        first.getattr(data);
        RegisteredBufferPool pool = ((RdmaDataTransport) first.async().transport()).bufferPool();
        long afterFirst = direct();
        print(Report.MEM_DIRECT, afterFirst - before);
        print(Report.MEM_REGISTERED, (long) pool.pagesTotal() * BufferPoolConfig.PAGE_SIZE);
        print(Report.MEM_IN_USE, (long) pool.pagesInUse() * BufferPoolConfig.PAGE_SIZE);
        try (NfsClient second = NfsClient.mount(url, config)) {
            second.getattr(second.root());
            print(Report.MEM_DIRECT_SECOND, direct() - afterFirst);
        }
        List<CompletableFuture<ReadReply>> reads = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            reads.add(first.async().read(data, (long) i << 20, Unpooled.buffer(1 << 20)));
        }
        for (CompletableFuture<ReadReply> r : reads) {
            if (r.get(60, TimeUnit.SECONDS).count() != 1 << 20) {
                throw new IllegalStateException("short READ");
            }
        }
        print(Report.MEM_REGISTERED_BURST, (long) pool.pagesTotal() * BufferPoolConfig.PAGE_SIZE);
        first.close();
        System.out.flush();
        System.exit(0);
    }

    private static void print(String key, long value) {
        System.out.println(key + "=" + value);
    }

    /** Direct memory in use now: the JDK's direct buffers and Netty's cleaner-less ones. */
    static long direct() {
        System.gc();
        long jdk = 0;
        for (BufferPoolMXBean p : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if ("direct".equals(p.getName())) {
                jdk = p.getMemoryUsed();
            }
        }
        return jdk + Math.max(0, PlatformDependent.usedDirectMemory());
    }

    /**
     * Runs the probe in a child JVM (this JVM's {@code java} and class path) against {@code rdmaUrl}; returns its
     * figures by key.
     */
    static Map<String, Long> measure(String rdmaUrl) throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                "-Dio.netty.leakDetection.level=disabled", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                MountMemoryProbe.class.getName(), rdmaUrl).redirectErrorStream(true);
        Process p = pb.start();
        Map<String, Long> figures = new HashMap<>();
        StringBuilder output = new StringBuilder();
        CompletableFuture<Void> reading = CompletableFuture.runAsync(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    int eq = line.indexOf('=');
                    if (line.startsWith("mem.") && eq > 0) {
                        figures.put(line.substring(0, eq), Long.parseLong(line.substring(eq + 1).trim()));
                    } else {
                        output.append(line).append('\n');
                    }
                }
            } catch (IOException e) {
                output.append(e).append('\n');
            }
        });
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("the memory probe did not finish in 120 s: " + output);
        }
        reading.join();
        if (p.exitValue() != 0) {
            throw new IOException("the memory probe failed (exit " + p.exitValue() + "): " + output);
        }
        return figures;
    }
}
