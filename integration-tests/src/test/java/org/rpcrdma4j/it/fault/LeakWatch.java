package org.rpcrdma4j.it.fault;

import java.lang.reflect.Field;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.netty.buffer.AbstractByteBuf;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.ResourceLeakDetector;

/**
 * Collects what Netty's leak detector reports about ByteBufs (the surefire runs set it to PARANOID: every buffer is
 * tracked). A campaign {@link #start()}s it, runs, and {@link #leaks()} forces the detector to look: it collects
 * garbage and allocates, which is when the detector reports buffers that were collected unreleased.
 */
public final class LeakWatch {
    private static final List<String> REPORTS = new CopyOnWriteArrayList<>();
    private static volatile boolean installed;

    private LeakWatch() {
    }

    /** Installs the listener (once per JVM) and forgets earlier reports. */
    public static synchronized void start() {
        if (!installed) {
            ResourceLeakDetector<ByteBuf> detector = detector();
            detector.setLeakListener((resourceType, records) -> REPORTS.add(resourceType + ": " + records));
            installed = true;
        }
        REPORTS.clear();
    }

    /** The level the detector runs at (campaigns state it in their figures). */
    public static ResourceLeakDetector.Level level() {
        return ResourceLeakDetector.getLevel();
    }

    /** Leaks reported since {@link #start()}, after making the detector look. */
    public static List<String> leaks() throws InterruptedException {
        for (int round = 0; round < 3; round++) {
            System.gc();
            Thread.sleep(50);
            for (int i = 0; i < 200; i++) {
                Unpooled.directBuffer(16).release();
                Unpooled.buffer(16).release();
                PooledByteBufAllocator.DEFAULT.directBuffer(16).release();
            }
        }
        return List.copyOf(REPORTS);
    }

    @SuppressWarnings("unchecked")
    private static ResourceLeakDetector<ByteBuf> detector() {
        try {
            Field f = AbstractByteBuf.class.getDeclaredField("leakDetector");
            f.setAccessible(true);
            return (ResourceLeakDetector<ByteBuf>) f.get(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("Netty's ByteBuf leak detector is not where it used to be", e);
        }
    }
}
