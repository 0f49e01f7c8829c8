package org.rpcrdma4j.mount;

import java.util.logging.Level;

/**
 * Configures slf4j-simple (the tool's one logging binding) through its system properties, which it reads when the
 * first logger is created: so {@link #configure} runs first thing in {@code main}, before any class that holds a
 * logger is touched. Quiet by default (warnings only); {@code -v} shows info, {@code -vv} debug. oncrpc4j's network
 * layer (Grizzly) logs through java.util.logging; its level follows.
 */
public final class Logging {
    private static final String PREFIX = "org.slf4j.simpleLogger.";

    private Logging() {
    }

    /** How many {@code -v}/{@code --verbose} flags the arguments carry (also inside {@code -vv}). */
    public static int verbosity(String[] args) {
        int n = 0;
        for (String a : args) {
            if ("--".equals(a)) {
                break;
            }
            if ("--verbose".equals(a)) {
                n++;
            } else if (a.matches("-v+")) {
                n += a.length() - 1;
            }
        }
        return n;
    }

    /** Sets the log levels for {@code verbosity} (0 warn, 1 info, 2 or more debug); keeps settings given with -D. */
    public static void configure(int verbosity) {
        String level = verbosity <= 0 ? "warn" : verbosity == 1 ? "info" : "debug";
        setDefault(PREFIX + "defaultLogLevel", level);
        setDefault(PREFIX + "logFile", "System.err");
        setDefault(PREFIX + "showThreadName", verbosity >= 2 ? "true" : "false");
        setDefault(PREFIX + "showShortLogName", "true");
        setDefault(PREFIX + "showDateTime", verbosity >= 2 ? "true" : "false");
        setDefault(PREFIX + "dateTimeFormat", "HH:mm:ss.SSS");
        if (verbosity <= 0) {
            // oncrpc4j logs every reply it could not send to a client that went away: not actionable for a user
            setDefault(PREFIX + "log.org.dcache.oncrpc4j.rpc.RpcCall", "off");
            // after Ctrl-C the READs/WRITEs abandoned in flight still hold their registered pages when the mount
            // closes on the way out; the pool says so, which only -v users need to read
            setDefault(PREFIX + "log.org.rpcrdma4j.registration.RegisteredBufferPool", "error");
        }
        java.util.logging.Logger.getLogger("").setLevel(verbosity <= 0 ? Level.WARNING
                : verbosity == 1 ? Level.INFO : Level.FINE);
        for (java.util.logging.Handler h : java.util.logging.Logger.getLogger("").getHandlers()) {
            h.setLevel(verbosity >= 2 ? Level.FINE : Level.INFO);
        }
    }

    private static void setDefault(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }
}
