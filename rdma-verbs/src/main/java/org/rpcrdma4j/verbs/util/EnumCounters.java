package org.rpcrdma4j.verbs.util;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A fixed set of counters named by an enum: one slot per constant, incremented without allocation from any thread.
 * Layers above the verbs (registration, transports) define their counter enums and expose a snapshot.
 *
 * @param <E> the enum naming the counters; its ordinals are the slot ids and never change meaning
 */
public final class EnumCounters<E extends Enum<E>> {
    private final Class<E> type;
    private final E[] names;
    private final AtomicLongArray values;

    public EnumCounters(Class<E> type) {
        this.type = type;
        this.names = type.getEnumConstants();
        this.values = new AtomicLongArray(names.length);
    }

    public void increment(E counter) {
        values.incrementAndGet(counter.ordinal());
    }

    public void add(E counter, long delta) {
        values.addAndGet(counter.ordinal(), delta);
    }

    /** For gauges: sets the current value. */
    public void set(E counter, long value) {
        values.set(counter.ordinal(), value);
    }

    public long get(E counter) {
        return values.get(counter.ordinal());
    }

    /** A copy of every counter, in declaration order. Allocates; not for the hot path. */
    public Map<E, Long> snapshot() {
        Map<E, Long> copy = new EnumMap<>(type);
        for (E name : names) {
            copy.put(name, values.get(name.ordinal()));
        }
        return copy;
    }

    @Override
    public String toString() {
        return snapshot().toString();
    }
}
