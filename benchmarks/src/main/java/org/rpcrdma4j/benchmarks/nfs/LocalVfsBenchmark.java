package org.rpcrdma4j.benchmarks.nfs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.vfs.DirectoryPage;
import org.rpcrdma4j.nfs.vfs.LocalVfs;

/**
 * What a local export costs the server per call, without the wire: GETATTR of a file by its handle, and READDIR of a
 * directory of 1,000 empty files in pages of 256 entries with their handles and attributes (what READDIRPLUS and
 * NFSv4's READDIR ask of the VFS), in a temporary directory.
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar LocalVfsBenchmark -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class LocalVfsBenchmark {
    private static final int FILES = 1000;
    private static final int PAGE = 256;

    private Path dir;
    private LocalVfs vfs;
    private FileHandle file;
    private FileHandle listed;

    @Setup
    public void setUp() throws IOException {
        dir = Files.createTempDirectory("localvfs-bench");
        Path big = Files.createDirectory(dir.resolve("big"));
        for (int i = 0; i < FILES; i++) {
            Files.createFile(big.resolve("f" + i));
        }
        vfs = LocalVfs.open(dir);
        listed = vfs.lookup(vfs.root(), "big").handle();
        file = vfs.lookup(listed, "f500").handle();
    }

    @TearDown
    public void tearDown() throws IOException {
        vfs.close();
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Benchmark
    public FileAttributes getattr() throws NfsException {
        return vfs.getattr(file);
    }

    /** Every page of the directory, as a client listing it: µs for all 1,000 entries. */
    @Benchmark
    public int readdirAll() throws NfsException {
        long cookie = 0;
        int entries = 0;
        while (true) {
            DirectoryPage page = vfs.readdir(listed, cookie, 0, PAGE);
            entries += page.entries().size();
            if (page.eof() || page.entries().isEmpty()) {
                return entries;
            }
            cookie = page.entries().get(page.entries().size() - 1).cookie();
        }
    }
}
