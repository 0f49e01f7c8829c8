package org.rpcrdma4j.registration;

import io.netty.util.internal.PlatformDependent;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.Buffer;
import java.nio.ByteBuffer;

/**
 * The native address of a direct {@link ByteBuffer}: how the layers above the verbs find which registered memory a
 * plain NIO view (one that no longer knows where it came from) lies in, so its bytes go out without a copy.
 * <p>
 * Two ways, chosen once: on Java 22 and later, the public Foreign Function &amp; Memory API
 * ({@code MemorySegment.ofBuffer(buffer).address()}, through a method handle: the baseline is Java 17); before it,
 * Netty's access to the JDK's internals. Netty gives up that access by default from Java 25 on, so without the first
 * way every such lookup would fail there and each call's data would be copied. The segment the first way makes does
 * not outlive the call and is not allocated once the caller is compiled. Where neither way is available
 * ({@link #available()} false) no address is known and the callers copy.
 */
public final class DirectAddresses {
    /** {@code (ByteBuffer) -> long}: the address of the buffer's byte at its position; null when not available. */
    private static final MethodHandle FOREIGN = foreign();
    private static final boolean NETTY = FOREIGN == null && PlatformDependent.hasUnsafe();

    private DirectAddresses() {
    }

    /** Whether addresses are known on this runtime (else {@link #atPosition} always answers 0). */
    public static boolean available() {
        return FOREIGN != null || NETTY;
    }

    /**
     * The native address of {@code buffer}'s byte at its position (its position within its capacity, so the address
     * of a view made of a larger buffer), or 0 when it is not direct or addresses are not available. Allocates
     * nothing once compiled.
     */
    public static long atPosition(ByteBuffer buffer) {
        if (!buffer.isDirect()) {
            return 0;
        }
        if (FOREIGN != null) {
            try {
                return (long) FOREIGN.invokeExact(buffer);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }
        return NETTY ? PlatformDependent.directBufferAddress(buffer) + buffer.position() : 0;
    }

    private static MethodHandle foreign() {
        if (Runtime.version().feature() < 22) {
            return null; // the API is a preview before 22: not there without --enable-preview
        }
        try {
            Class<?> segment = Class.forName("java.lang.foreign.MemorySegment");
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            MethodHandle of = lookup.findStatic(segment, "ofBuffer", MethodType.methodType(segment, Buffer.class));
            MethodHandle address = lookup.findVirtual(segment, "address", MethodType.methodType(long.class));
            MethodHandle h = MethodHandles.filterReturnValue(of, address)
                    .asType(MethodType.methodType(long.class, ByteBuffer.class));
            long probe = (long) h.invokeExact(ByteBuffer.allocateDirect(1));
            return probe != 0 ? h : null;
        } catch (Throwable t) {
            return null;
        }
    }
}
