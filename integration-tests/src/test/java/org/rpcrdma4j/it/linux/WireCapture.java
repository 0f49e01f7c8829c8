package org.rpcrdma4j.it.linux;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.rpcrdma4j.it.capture.IwarpCapture;
import org.rpcrdma4j.it.capture.IwarpConnection;

/**
 * Records the host's loopback traffic of one TCP port with {@code dumpcap} (Wireshark's capture engine) into a pcapng
 * file, for {@link IwarpCapture}: what our software iWARP device and the Linux peer really exchanged. The capture runs
 * from {@link #start} (which returns once dumpcap is capturing) to {@link #stop}. The file is deleted by
 * {@link #close()} unless it was {@linkplain #keep() kept} (tests keep it when they fail).
 */
final class WireCapture implements AutoCloseable {
    private final Process dumpcap;
    private final Path file;
    /** dumpcap's output lines (packet counts, the drop report at the end). */
    private final BlockingQueue<String> output;
    /** A port of our own in the capture filter: packets to it mark how far dumpcap has read. */
    private final ServerSocket sentinel;
    private boolean keep;

    private WireCapture(Process dumpcap, Path file, BlockingQueue<String> output, ServerSocket sentinel) {
        this.dumpcap = dumpcap;
        this.file = file;
        this.output = output;
        this.sentinel = sentinel;
    }

    /** @return why captures cannot be taken here (no dumpcap), or null */
    static String unavailableReason() {
        return LinuxPeer.findOnPath("dumpcap") == null ? "dumpcap (Wireshark) is not installed: the wire is not checked"
                : null;
    }

    /**
     * Starts capturing TCP port {@code port} on the loopback interface into {@code file}, and returns once dumpcap
     * has really captured a packet. "Capturing on" comes before the filter is in place: under load the first
     * connection's handshake was missed. So the filter also names a sentinel port of our own, and connections to it
     * are made until dumpcap counts packets. Those connections carry no MPA, so {@link IwarpCapture} ignores them.
     */
    static WireCapture start(Path file, int port) throws IOException {
        Files.createDirectories(file.getParent());
        Files.deleteIfExists(file);
        ServerSocket sentinel = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
        try {
            // a kernel buffer of 256 MiB: with the default 2 MiB dumpcap dropped loopback packets of 16 MiB transfers
            Process p = new ProcessBuilder(LinuxPeer.findOnPath("dumpcap").toString(), "-i", "lo", "-B", "256", "-f",
                    "tcp port " + port + " or tcp port " + sentinel.getLocalPort(), "-w", file.toString())
                    .redirectErrorStream(true).start();
            p.getOutputStream().close();
            BlockingQueue<String> lines = new LinkedBlockingQueue<>();
            Thread reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (String line; (line = r.readLine()) != null; ) {
                        lines.offer(line);
                    }
                } catch (IOException e) {
                    lines.offer("(dumpcap output lost: " + e + ")");
                }
            }, "dumpcap-output");
            reader.setDaemon(true);
            reader.start();
            StringBuilder seen = new StringBuilder();
            boolean capturing = false;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            try {
                while (System.nanoTime() < deadline) {
                    String line = lines.poll(200, TimeUnit.MILLISECONDS);
                    if (line != null) {
                        seen.append(line).append('\n');
                        capturing |= line.startsWith("Capturing on");
                        if (line.strip().startsWith("Packets:") && !line.strip().equals("Packets: 0")) {
                            return new WireCapture(p, file, lines, sentinel);
                        }
                    } else if (capturing) {
                        knock(sentinel);
                    }
                    if (!p.isAlive() && lines.isEmpty()) {
                        break;
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            p.destroyForcibly();
            throw new IOException("dumpcap did not start capturing:\n" + seen);
        } catch (IOException | RuntimeException e) {
            sentinel.close();
            throw e;
        }
    }

    private static void knock(ServerSocket sentinel) throws IOException {
        try (Socket s = new Socket(sentinel.getInetAddress(), sentinel.getLocalPort())) {
            sentinel.accept().close();
            s.shutdownOutput();
        }
    }

    /**
     * Stops capturing and reads the iWARP connections of the file. First it waits until dumpcap has read everything
     * sent so far: it connects to the sentinel port and waits for dumpcap's packet count to take in those packets,
     * which the kernel queued behind the test's own (stopped at once, dumpcap lost the last packets of a stream that
     * were still in the kernel's buffer, and the capture ended inside an FPDU).
     */
    List<IwarpConnection> stop() throws IOException {
        long before = packetsCounted();
        knock(sentinel);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        try {
            while (packetsCounted() <= before && System.nanoTime() < deadline && dumpcap.isAlive()) {
                Thread.sleep(50);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        stopProcess();
        try {
            return IwarpCapture.read(file);
        } catch (IOException e) {
            String message = e.getMessage() + " (dumpcap: " + lastOutput() + ")";
            if (String.valueOf(e.getMessage()).contains("is truncated")) {
                throw new IncompleteCaptureException(message, e);
            }
            throw new IOException(message, e);
        }
    }

    /** The packet count in dumpcap's latest "Packets: N" line (0 before the first). */
    private long packetsCounted() {
        long count = 0;
        for (String line : output) {
            String l = line.strip();
            if (l.startsWith("Packets:")) {
                try {
                    count = Long.parseLong(l.substring("Packets:".length()).strip().split("\\s+")[0]);
                } catch (NumberFormatException e) {
                    // a line of another shape: keep the count so far
                }
            }
        }
        return count;
    }

    /** @return dumpcap's last output lines (its packet and drop counts once stopped) */
    private String lastOutput() {
        List<String> all = new java.util.ArrayList<>();
        output.drainTo(all);
        return String.join(" | ", all.subList(Math.max(0, all.size() - 3), all.size()));
    }

    private void stopProcess() {
        try {
            sentinel.close();
        } catch (IOException e) {
            // closing: nothing to do
        }
        if (dumpcap.isAlive()) {
            dumpcap.destroy(); // SIGTERM: dumpcap finishes the file
            try {
                if (!dumpcap.waitFor(20, TimeUnit.SECONDS)) {
                    dumpcap.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                dumpcap.destroyForcibly();
            }
        }
    }

    /** @return the capture file */
    Path file() {
        return file;
    }

    /** Keeps the file after {@link #close()}. */
    void keep() {
        keep = true;
    }

    @Override
    public void close() throws IOException {
        stopProcess();
        if (!keep) {
            Files.deleteIfExists(file);
        }
    }
}
