package org.rpcrdma4j.verbs.soft;

import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import org.rpcrdma4j.verbs.DeviceCapability;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * Settings of a software iWARP device. Immutable; {@link #parse} reads them from the provider's option map, where
 * every key is optional and an unknown key is refused.
 *
 * @param name              device name (key {@code name}, default {@code soft-iwarp})
 * @param crc               ask for MPA CRC32C (key {@code crc}, default false); CRC is used when either side asks
 * @param mpaRevision       MPA revision of requests (key {@code mpaRevision}: 1, or 2 = RFC 6581 enhanced with
 *                          IRD/ORD exchange; default 2)
 * @param maxUlpdu          the most payload bytes one DDP segment carries when sending (key {@code maxUlpdu}, 1 to
 *                          {@value #MAX_ULPDU}, default {@value #DEFAULT_MAX_ULPDU}); messages are segmented to it.
 *                          Any segment size that fits the 16-bit ULPDU length is accepted when receiving.
 * @param engineThreads     engine (selector) threads serving all queue pairs (key {@code engineThreads}, default 2)
 * @param capabilities      capabilities advertised and allowed (key {@code capabilities}, a comma-separated list of
 *                          {@link DeviceCapability} names, empty for none; default all). With none, the device
 *                          offers only synchronous registration, like a DiSNI device.
 * @param handshakeTimeout  how long a listener waits for an MPA Request after the TCP accept, and for the upper
 *                          layer's accept or reject (key {@code handshakeTimeoutMs}, default 5000)
 * @param confirmPlacement  report RDMA Write and Send completions only once the peer has placed them, by following
 *                          them with zero-length RDMA Read probes (key {@code confirmPlacement}, default false: Linux
 *                          siw answers such a Read from stale state, and its transmit thread was seen to crash on one;
 *                          for two devices of this kind; see the package documentation)
 * @param socketBufferSize  SO_SNDBUF/SO_RCVBUF in bytes, 0 for the system's (auto-tuned) default (key
 *                          {@code socketBufferSize}, default 0)
 * @param readyToReceive    as initiator, send a zero-length RDMA Write to STag 1 right after the MPA Reply (the RFC
 *                          6581 ready-to-receive frame), so that a responder that waits for the initiator's first
 *                          FPDU (this device does) may send first (key {@code readyToReceive}, default true; Linux siw
 *                          accepts and ignores the frame)
 * @param wakeResponder     as initiator, while the responder has sent nothing since the MPA Reply although our first
 *                          message went out {@value #WAKE_FIRST_MILLIS} ms ago, send a zero-length RDMA Write to STag 1
 *                          (as the ready-to-receive frame), again after twice the delay, at most {@value #WAKE_TIMES}
 *                          times (key {@code wakeResponder}, default true). Linux siw (seen in 6.1) as responder
 *                          ignores FPDUs that reach its socket between sending its MPA Reply and taking the socket over,
 *                          until more data arrives: an initiator that sends its first request at once and then waits
 *                          for the answer would wait forever. A zero-length Write is ignored by siw and by this device.
 * @param holdProbeAnswers  as responder to a peer's placement probes, hold back the answer to a zero-length probe that
 *                          came right behind a small whole Send, so that it leaves with the next FPDU sent anyway (the
 *                          reply, in the request/response pattern of RPC) instead of in a write (and a peer wake-up)
 *                          of its own; released at the latest when anything else is sent, when another FPDU arrives,
 *                          or after {@code probeAnswerHoldMs} (key {@code holdProbeAnswers}, default true; see the
 *                          package documentation)
 * @param probeAnswerHold   the longest a probe's answer is held (key {@code probeAnswerHoldMs}, 1 to 60000, default
 *                          {@value #DEFAULT_PROBE_ANSWER_HOLD_MS}): the delay a peer's Send completion may suffer when
 *                          nothing is sent back
 * @param maxPendingHandshakes the most accepted connections of the device's listeners whose MPA handshake is not
 *                          over yet (key {@code maxPendingHandshakes}, 1 to {@value #MAX_PENDING_HANDSHAKES}, default
 *                          {@value #DEFAULT_MAX_PENDING_HANDSHAKES}); a connection accepted beyond it is closed at
 *                          once. Each holds a socket for up to twice {@code handshakeTimeoutMs}.
 */
public record SoftIwarpOptions(String name, boolean crc, int mpaRevision, int maxUlpdu, int engineThreads,
                               Set<DeviceCapability> capabilities, Duration handshakeTimeout,
                               boolean confirmPlacement, int socketBufferSize, boolean readyToReceive,
                               boolean wakeResponder, boolean holdProbeAnswers, Duration probeAnswerHold,
                               int maxPendingHandshakes) {

    /** Largest payload per segment: 65535 minus the 18-byte untagged header, rounded down to a multiple of 4. */
    public static final int MAX_ULPDU = 65516;
    /** Default payload per segment: a little under 64 KiB, a multiple of 16. */
    public static final int DEFAULT_MAX_ULPDU = 65504;
    /** With {@code wakeResponder}: the first wait for the responder, in milliseconds; each further wait doubles. */
    public static final int WAKE_FIRST_MILLIS = 25;
    /** With {@code wakeResponder}: how many zero-length Writes at most. */
    public static final int WAKE_TIMES = 6;
    /** Default of {@code probeAnswerHoldMs}: the engine's timers have millisecond granularity. */
    public static final int DEFAULT_PROBE_ANSWER_HOLD_MS = 1;
    /** Most of {@code probeAnswerHoldMs}. */
    public static final int MAX_PROBE_ANSWER_HOLD_MS = 60_000;
    /** Default of {@code maxPendingHandshakes}: far more than connections take to set up at once. */
    public static final int DEFAULT_MAX_PENDING_HANDSHAKES = 256;
    /** Most of {@code maxPendingHandshakes}. */
    public static final int MAX_PENDING_HANDSHAKES = 65_536;

    private static final Set<String> KEYS = Set.of("name", "crc", "mpaRevision", "maxUlpdu", "engineThreads",
            "capabilities", "handshakeTimeoutMs", "confirmPlacement", "socketBufferSize", "readyToReceive",
            "wakeResponder", "holdProbeAnswers", "probeAnswerHoldMs", "maxPendingHandshakes");

    public SoftIwarpOptions {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(handshakeTimeout, "handshakeTimeout");
        Objects.requireNonNull(probeAnswerHold, "probeAnswerHold");
        capabilities = capabilities.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(capabilities));
        if (mpaRevision != 1 && mpaRevision != 2) {
            throw new IllegalArgumentException("mpaRevision must be 1 or 2: " + mpaRevision);
        }
        if (maxUlpdu < 1 || maxUlpdu > MAX_ULPDU) {
            throw new IllegalArgumentException("maxUlpdu must be within 1.." + MAX_ULPDU + ": " + maxUlpdu);
        }
        if (engineThreads < 1 || engineThreads > 64) {
            throw new IllegalArgumentException("engineThreads must be within 1..64: " + engineThreads);
        }
        if (handshakeTimeout.isNegative() || handshakeTimeout.isZero()) {
            throw new IllegalArgumentException("handshakeTimeout must be positive: " + handshakeTimeout);
        }
        if (probeAnswerHold.compareTo(Duration.ofMillis(1)) < 0
                || probeAnswerHold.compareTo(Duration.ofMillis(MAX_PROBE_ANSWER_HOLD_MS)) > 0) {
            throw new IllegalArgumentException("probeAnswerHoldMs must be within 1.." + MAX_PROBE_ANSWER_HOLD_MS
                    + ": " + probeAnswerHold.toMillis());
        }
        if (socketBufferSize < 0) {
            throw new IllegalArgumentException("socketBufferSize must not be negative: " + socketBufferSize);
        }
        if (maxPendingHandshakes < 1 || maxPendingHandshakes > MAX_PENDING_HANDSHAKES) {
            throw new IllegalArgumentException("maxPendingHandshakes must be within 1.." + MAX_PENDING_HANDSHAKES
                    + ": " + maxPendingHandshakes);
        }
    }

    /** Every default. */
    public static SoftIwarpOptions defaults() {
        return new SoftIwarpOptions("soft-iwarp", false, 2, DEFAULT_MAX_ULPDU, 2,
                EnumSet.complementOf(EnumSet.of(DeviceCapability.MEMORY_WINDOW)),
                Duration.ofSeconds(5), false, 0, true, true, true, Duration.ofMillis(DEFAULT_PROBE_ANSWER_HOLD_MS),
                DEFAULT_MAX_PENDING_HANDSHAKES);
    }

    /**
     * Reads options from a provider option map.
     *
     * @throws VerbsException naming the key, for an unknown key or a bad value
     */
    public static SoftIwarpOptions parse(Map<String, String> options) throws VerbsException {
        SoftIwarpOptions d = defaults();
        for (String key : options.keySet()) {
            if (!KEYS.contains(key)) {
                throw new VerbsException("unknown option '" + key + "' for the soft iWARP device (known: "
                        + String.join(", ", new java.util.TreeSet<>(KEYS)) + ")");
            }
        }
        try {
            return new SoftIwarpOptions(
                    options.getOrDefault("name", d.name()),
                    bool(options, "crc", d.crc()),
                    integer(options, "mpaRevision", d.mpaRevision()),
                    integer(options, "maxUlpdu", d.maxUlpdu()),
                    integer(options, "engineThreads", d.engineThreads()),
                    capabilities(options.get("capabilities"), d.capabilities()),
                    Duration.ofMillis(integer(options, "handshakeTimeoutMs", (int) d.handshakeTimeout().toMillis())),
                    bool(options, "confirmPlacement", d.confirmPlacement()),
                    integer(options, "socketBufferSize", d.socketBufferSize()),
                    bool(options, "readyToReceive", d.readyToReceive()),
                    bool(options, "wakeResponder", d.wakeResponder()),
                    bool(options, "holdProbeAnswers", d.holdProbeAnswers()),
                    Duration.ofMillis(integer(options, "probeAnswerHoldMs", (int) d.probeAnswerHold().toMillis())),
                    integer(options, "maxPendingHandshakes", d.maxPendingHandshakes()));
        } catch (IllegalArgumentException e) {
            throw new VerbsException("bad soft iWARP device option: " + e.getMessage(), e);
        }
    }

    /** The options as a provider option map (for logging and for re-opening an equal device). */
    public Map<String, String> toMap() {
        Map<String, String> map = new LinkedHashMap<>();
        map.put("name", name);
        map.put("crc", Boolean.toString(crc));
        map.put("mpaRevision", Integer.toString(mpaRevision));
        map.put("maxUlpdu", Integer.toString(maxUlpdu));
        map.put("engineThreads", Integer.toString(engineThreads));
        StringBuilder caps = new StringBuilder();
        for (DeviceCapability c : DeviceCapability.values()) {
            if (capabilities.contains(c)) {
                caps.append(caps.length() == 0 ? "" : ",").append(c.name());
            }
        }
        map.put("capabilities", caps.toString());
        map.put("handshakeTimeoutMs", Long.toString(handshakeTimeout.toMillis()));
        map.put("confirmPlacement", Boolean.toString(confirmPlacement));
        map.put("socketBufferSize", Integer.toString(socketBufferSize));
        map.put("readyToReceive", Boolean.toString(readyToReceive));
        map.put("wakeResponder", Boolean.toString(wakeResponder));
        map.put("holdProbeAnswers", Boolean.toString(holdProbeAnswers));
        map.put("probeAnswerHoldMs", Long.toString(probeAnswerHold.toMillis()));
        map.put("maxPendingHandshakes", Integer.toString(maxPendingHandshakes));
        return map;
    }

    private static boolean bool(Map<String, String> options, String key, boolean dflt) {
        String value = options.get(key);
        if (value == null) {
            return dflt;
        }
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "true", "yes", "on", "1" -> true;
            case "false", "no", "off", "0" -> false;
            default -> throw new IllegalArgumentException(key + " must be true or false: '" + value + "'");
        };
    }

    private static int integer(Map<String, String> options, String key, int dflt) {
        String value = options.get(key);
        if (value == null) {
            return dflt;
        }
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be an integer: '" + value + "'");
        }
    }

    private static Set<DeviceCapability> capabilities(String value, Set<DeviceCapability> dflt) {
        if (value == null) {
            return dflt;
        }
        EnumSet<DeviceCapability> set = EnumSet.noneOf(DeviceCapability.class);
        for (String part : value.split(",")) {
            String name = part.trim();
            if (name.isEmpty()) {
                continue;
            }
            try {
                set.add(DeviceCapability.valueOf(name.toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("capabilities: unknown capability '" + name + "' (known: "
                        + EnumSet.allOf(DeviceCapability.class) + ")");
            }
        }
        return set;
    }
}
