package org.rpcrdma4j.verbs.ffm.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

import org.rpcrdma4j.verbs.ffm.FfmVerbsException;

/**
 * The C library's {@code errno} as a downcall leaves it: a handle linked with {@link #CAPTURE} takes a segment of
 * {@link #LAYOUT} first and fills it in, and {@link #of} reads it back. Names errors with {@code strerror}.
 */
public final class Errno {
    /** The link option that captures {@code errno} after the call. */
    public static final Linker.Option CAPTURE = Linker.Option.captureCallState("errno");
    /** The layout of the captured state. */
    public static final StructLayout LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle STRERROR = Linker.nativeLinker().downcallHandle(
            Linker.nativeLinker().defaultLookup().find("strerror").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_INT));

    private Errno() {
    }

    /** Room for the captured state, from {@code arena}. */
    public static MemorySegment allocate(Arena arena) {
        return arena.allocate(LAYOUT);
    }

    /** The {@code errno} a call linked with {@link #CAPTURE} left in {@code state}. */
    public static int of(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }

    /** What {@code strerror} says of {@code errno}. */
    public static String describe(int errno) {
        try {
            MemorySegment text = (MemorySegment) STRERROR.invokeExact(errno);
            return text.equals(MemorySegment.NULL) ? "unknown error" : text.reinterpret(256).getString(0);
        } catch (Throwable t) {
            return "error " + errno;
        }
    }

    /** The typed failure of {@code verb} with {@code errno}. */
    public static FfmVerbsException failure(String verb, int errno, String context) {
        return new FfmVerbsException(verb, errno, describe(errno), context);
    }
}
