package org.rpcrdma4j.mount.cli;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as people write them: {@code 10} (seconds), {@code 500ms}, {@code 10s}, {@code 2m}, {@code 1h}. */
public final class Durations {
    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h)?",
            Pattern.CASE_INSENSITIVE);

    private Durations() {
    }

    /** Parses a duration; throws {@link IllegalArgumentException} with the reason. */
    public static Duration parse(String text) {
        Matcher m = DURATION.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("not a duration: '" + text + "' (examples: 10, 500ms, 10s, 2m)");
        }
        double value = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2).toLowerCase(Locale.ROOT);
        double millis = switch (unit) {
            case "ms" -> value;
            case "m" -> value * 60_000;
            case "h" -> value * 3_600_000;
            default -> value * 1000;
        };
        if (millis > Long.MAX_VALUE / 2) {
            throw new IllegalArgumentException("duration too long: '" + text + "'");
        }
        return Duration.ofMillis(Math.round(millis));
    }
}
