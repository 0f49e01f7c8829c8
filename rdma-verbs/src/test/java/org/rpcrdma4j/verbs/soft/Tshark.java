package org.rpcrdma4j.verbs.soft;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs tshark: a loopback capture in the background, then field extraction from the capture file. Tests call
 * {@link #availability()} first and skip (with its reason) when tshark is missing or may not capture.
 */
final class Tshark implements AutoCloseable {
    private final Process capture;
    private final Path file;
    private final StringBuilder errors = new StringBuilder();
    private final java.net.DatagramSocket marker;
    private final java.util.concurrent.atomic.AtomicInteger markersSeen = new java.util.concurrent.atomic.AtomicInteger();

    private Tshark(Process capture, Path file, java.net.DatagramSocket marker) {
        this.capture = capture;
        this.file = file;
        this.marker = marker;
    }

    /** Null when tshark can be used here; otherwise why not. */
    static String availability() {
        try {
            Process p = new ProcessBuilder("tshark", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                return "tshark --version failed";
            }
            return null;
        } catch (IOException e) {
            return "tshark is not installed (" + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    /**
     * Starts capturing TCP traffic of {@code port} on the loopback interface into {@code file} and waits until
     * tshark says it is capturing.
     *
     * @throws IOException with tshark's own words when it cannot capture (e.g. no permission)
     */
    static Tshark capture(int port, Path file) throws IOException, InterruptedException {
        java.net.DatagramSocket marker = new java.net.DatagramSocket(0, java.net.InetAddress.getLoopbackAddress());
        Process p = new ProcessBuilder("tshark", "-i", "lo", "-f", "tcp port " + port + " or udp port "
                + marker.getLocalPort(), "-w", file.toString(), "-P", "-l")
                .start();
        Tshark t = new Tshark(p, file, marker);
        Thread out = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.contains("UDP")) {
                        t.markersSeen.incrementAndGet();
                    }
                }
            } catch (IOException e) {
                // the process ended
            }
        }, "tshark-stdout");
        out.setDaemon(true);
        out.start();
        CompletableFuture<Boolean> started = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getErrorStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    synchronized (t.errors) {
                        t.errors.append(line).append('\n');
                    }
                    if (line.contains("Capturing on")) {
                        started.complete(true);
                    }
                }
            } catch (IOException e) {
                started.complete(false);
            }
            started.complete(false);
        }, "tshark-stderr");
        reader.setDaemon(true);
        reader.start();
        boolean ok;
        try {
            ok = started.get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            ok = false;
        }
        if (!ok || !t.sync()) {
            p.destroyForcibly();
            marker.close();
            throw new IOException("tshark cannot capture on lo: " + t.errorText().trim());
        }
        return t;
    }

    /**
     * Sends marker datagrams into the capture until tshark shows one: every packet sent before is then in the
     * capture (tshark says "Capturing on" a little before it really captures).
     */
    boolean sync() throws IOException, InterruptedException {
        int before = markersSeen.get();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() - deadline < 0) {
            byte[] payload = "marker".getBytes(StandardCharsets.US_ASCII);
            marker.send(new java.net.DatagramPacket(payload, payload.length, marker.getLocalSocketAddress()));
            for (int i = 0; i < 20; i++) {
                if (markersSeen.get() > before) {
                    return true;
                }
                Thread.sleep(10);
            }
        }
        return false;
    }

    String errorText() {
        synchronized (errors) {
            return errors.toString();
        }
    }

    /** Stops the capture (SIGTERM lets tshark finish the file) and waits for it. */
    @Override
    public void close() {
        try {
            sync();
            marker.close();
            capture.destroy();
            if (!capture.waitFor(30, TimeUnit.SECONDS)) {
                capture.destroyForcibly();
            }
        } catch (IOException e) {
            capture.destroyForcibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            capture.destroyForcibly();
        } finally {
            marker.close();
        }
    }

    /** {@code tshark -r file -Y filter -T fields -e ...}: one list of values per packet line. */
    List<String> fields(String filter, String... fields) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("tshark", "-r", file.toString(), "-Y", filter, "-T", "fields",
                "-E", "separator=|", "-E", "occurrence=a", "-E", "aggregator=,"));
        for (String f : fields) {
            command.add("-e");
            command.add(f);
        }
        return run(command);
    }

    /** {@code tshark -r file -Y filter -V}: the full decoding, line by line. */
    List<String> verbose(String filter) throws IOException, InterruptedException {
        return run(List.of("tshark", "-r", file.toString(), "-Y", filter, "-V"));
    }

    /** {@code tshark -r file -Y filter} summary lines. */
    List<String> summary(String filter) throws IOException, InterruptedException {
        return run(List.of("tshark", "-r", file.toString(), "-Y", filter));
    }

    private static List<String> run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                lines.add(line);
            }
        }
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("failed: " + command);
        }
        return lines;
    }
}
