package org.rpcrdma4j.mount.bench;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * A one-line progress bar redrawn in place ({@code \r}) on a terminal, a few times a second at most; does nothing
 * when the output is not a terminal (logs and pipes stay clean). Used from one thread.
 */
public final class Progress {
    private static final int WIDTH = 30;
    private static final long REDRAW_NANOS = 200_000_000L;

    private final PrintWriter out;
    private final boolean enabled;
    private long lastDraw;
    private int lastLength;

    public Progress(PrintWriter out, boolean enabled) {
        this.out = out;
        this.enabled = enabled;
    }

    /** Shows {@code label} at {@code fraction} (0..1) with a short status text. */
    public void update(String label, double fraction, String status) {
        if (!enabled) {
            return;
        }
        long now = System.nanoTime();
        if (now - lastDraw < REDRAW_NANOS) {
            return;
        }
        lastDraw = now;
        double f = Math.max(0, Math.min(1, fraction));
        int filled = (int) Math.round(f * WIDTH);
        String line = String.format(Locale.ROOT, "%-10s [%s%s] %3.0f%% %s", label, "#".repeat(filled),
                " ".repeat(WIDTH - filled), f * 100, status);
        out.print("\r" + line + " ".repeat(Math.max(0, lastLength - line.length())));
        out.flush();
        lastLength = line.length();
    }

    /** Erases the bar. */
    public void clear() {
        if (enabled && lastLength > 0) {
            out.print("\r" + " ".repeat(lastLength) + "\r");
            out.flush();
            lastLength = 0;
            lastDraw = 0;
        }
    }
}
