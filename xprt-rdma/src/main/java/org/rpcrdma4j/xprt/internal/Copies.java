package org.rpcrdma4j.xprt.internal;

import java.nio.ByteBuffer;

import io.netty.buffer.ByteBuf;
import org.rpcrdma4j.registration.RegisteredBuffer;

/**
 * Copies between callers' buffers and registered buffers without allocating: Netty's {@code setBytes(ByteBuf)} into
 * (and {@code getBytes} out of) a plain direct buffer such as {@link RegisteredBuffer} makes NIO views per copy; going
 * through the registered buffer's reused internal NIO view does not. The registered buffer must belong to the calling
 * thread for the duration (its internal view is shared by its users).
 */
public final class Copies {
    private Copies() {
    }

    /** Copies {@code length} bytes of {@code src} at {@code srcIndex} into {@code dst} at {@code dstIndex}. */
    public static void into(ByteBuf src, int srcIndex, RegisteredBuffer dst, int dstIndex, int length) {
        if (length == 0) {
            return;
        }
        ByteBuffer view = dst.internalNioBuffer(dstIndex, length);
        src.getBytes(srcIndex, view);
    }

    /** Appends {@code length} bytes of {@code src} at {@code srcIndex} to {@code dst} (at its writer index). */
    public static void append(RegisteredBuffer src, int srcIndex, int length, ByteBuf dst) {
        if (length == 0) {
            return;
        }
        dst.writeBytes(src.internalNioBuffer(srcIndex, length));
    }
}
