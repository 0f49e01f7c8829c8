package org.rpcrdma4j.it.reliability;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.StringJoiner;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The figures of one campaign run, printed on one line to standard output (surefire keeps it in the test's output
 * file) and logged through SLF4J, in insertion order.
 */
final class Figures {
    private static final Logger LOG = LoggerFactory.getLogger(Figures.class);
    private final String campaign;
    private final Map<String, Object> values = new LinkedHashMap<>();
    private final long started = System.nanoTime();

    Figures(String campaign) {
        this.campaign = campaign;
    }

    Figures put(String key, Object value) {
        values.put(key, value);
        return this;
    }

    /** Prints the figures with the elapsed time; returns the line. */
    String report() {
        values.put("seconds", String.format("%.1f", (System.nanoTime() - started) / 1e9));
        StringJoiner j = new StringJoiner(", ", "[reliability] " + campaign + ": ", "");
        values.forEach((k, v) -> j.add(k + "=" + v));
        String line = j.toString();
        System.out.println(line);
        LOG.info(line);
        return line;
    }
}
