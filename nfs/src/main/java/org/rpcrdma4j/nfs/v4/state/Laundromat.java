package org.rpcrdma4j.nfs.v4.state;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.ToIntFunction;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Expires, on a timer, the clients whose leases ran out ({@link ClientTable#expire()}), as Linux's server's laundromat
 * does: a client that vanished (crashed, unplugged, came back under another name) otherwise kept its opens' share
 * reservations and its byte-range locks for good, since a table expires a client only when that client's own session,
 * ID or stateid is looked up. Runs every tenth of the lease, at least every second and at most every 15 s, so state
 * goes at most that long after its lease, or after the courtesy time past it for a client kept as a courtesy (see the
 * package documentation). One daemon thread serves every table of the JVM; a table that is no longer
 * referenced drops out by itself.
 */
public final class Laundromat implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Laundromat.class);
    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "rpcrdma-nfs4-laundromat");
        t.setDaemon(true);
        return t;
    });

    private final ScheduledFuture<?> task;
    private volatile long expired;

    private Laundromat(ClientTable table, long period, ToIntFunction<ClientTable> sweep) {
        WeakReference<ClientTable> ref = new WeakReference<>(table);
        WeakReference<Laundromat> self = new WeakReference<>(this);
        this.task = TIMER.scheduleAtFixedRate(() -> {
            ClientTable t = ref.get();
            if (t == null) {
                throw new IllegalStateException("table gone"); // ends this schedule
            }
            try {
                int n = sweep.applyAsInt(t);
                Laundromat l = self.get();
                if (n > 0 && l != null) {
                    l.expired += n;
                    LOG.info("{} NFSv4 client(s) whose lease ran out expired; their opens and locks are released", n);
                }
            } catch (RuntimeException e) {
                LOG.warn("expiring NFSv4 clients failed: {}", e.toString());
            } catch (Error e) {
                // a run that throws ends a fixed-rate schedule for good, silently: leases would no longer lapse, and
                // recalled delegations never returned would keep their files' writers waiting
                LOG.error("expiring NFSv4 clients failed; trying again next period", e);
            }
        }, period, period, TimeUnit.NANOSECONDS);
    }

    /** Starts expiring {@code table}'s lapsed clients until {@link #close()}. */
    public static Laundromat start(ClientTable table) {
        return new Laundromat(table, period(table.config().leaseTime()).toNanos(), ClientTable::expire);
    }

    /** Runs {@code sweep} on {@code table} every {@code period} (tests). */
    static Laundromat start(ClientTable table, Duration period, ToIntFunction<ClientTable> sweep) {
        return new Laundromat(table, period.toNanos(), sweep);
    }

    /** How often a table with {@code lease} is swept. */
    static Duration period(Duration lease) {
        Duration tenth = lease.dividedBy(10);
        Duration min = Duration.ofSeconds(1);
        Duration max = Duration.ofSeconds(15);
        return tenth.compareTo(min) < 0 ? min : tenth.compareTo(max) > 0 ? max : tenth;
    }

    /** Clients this laundromat expired. */
    public long expired() {
        return expired;
    }

    @Override
    public void close() {
        task.cancel(false);
    }
}
