package org.rpcrdma4j.xprt.drc;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.dcache.oncrpc4j.xdr.XdrString;
import org.dcache.oncrpc4j.xdr.XdrVoid;

/**
 * A test program whose non-idempotent procedures show every execution: APPEND adds one to a name's count and answers
 * the new count and a server-wide serial number, so a second execution answers differently from the first and leaves
 * the ledger one higher.
 */
public final class LedgerProgram implements RpcDispatchable {
    public static final int PROGRAM = 0x2000_4C47;
    public static final int VERSION = 1;

    public static final int NULL = 0;
    /** name -> (count, serial); non-idempotent. */
    public static final int APPEND = 1;
    /** name -> count; idempotent. */
    public static final int COUNT = 2;
    /** As APPEND, but waits for {@link #gate} first (after counting down {@link #entered}). */
    public static final int SLOW_APPEND = 3;
    /** (size, seed) -> opaque of {@code size} bytes whose first word is the serial; non-idempotent. */
    public static final int BLOB = 4;
    /** Counts an execution, then throws: the server answers SYSTEM_ERR. */
    public static final int FAIL = 5;
    /** As APPEND, but answered from another thread once {@link #gate} opens (dispatch returns at once). */
    public static final int LATER = 6;
    /** As FAIL, but what it throws is an Error (a failed assertion). */
    public static final int FAIL_HARD = 7;

    private final Map<String, Integer> counts = new ConcurrentHashMap<>();
    private final AtomicInteger serial = new AtomicInteger();
    private final AtomicInteger executions = new AtomicInteger();
    public volatile CountDownLatch gate = new CountDownLatch(0);
    public volatile CountDownLatch entered = new CountDownLatch(1);

    /** Executions of the non-idempotent procedures. */
    public int executions() {
        return executions.get();
    }

    public int count(String name) {
        return counts.getOrDefault(name, 0);
    }

    /** Makes SLOW_APPEND and LATER wait until {@link #openGate()}; returns the latch that counts SLOW_APPEND entries. */
    public CountDownLatch closeGate() {
        gate = new CountDownLatch(1);
        entered = new CountDownLatch(1);
        return entered;
    }

    public void openGate() {
        gate.countDown();
    }

    @Override
    public void dispatchOncRpcCall(RpcCall call) throws OncRpcException, IOException {
        switch (call.getProcedure()) {
            case NULL -> {
                call.retrieveCall(XdrVoid.XDR_VOID);
                call.reply(XdrVoid.XDR_VOID);
            }
            case APPEND -> call.reply(append(name(call)));
            case COUNT -> call.reply(new Ints(count(name(call))));
            case SLOW_APPEND -> {
                String name = name(call);
                entered.countDown();
                await();
                call.reply(append(name));
            }
            case BLOB -> {
                Ints args = new Ints(0, 0);
                call.retrieveCall(args);
                executions.incrementAndGet();
                call.reply(new Blob(args.values[0], args.values[1], serial.incrementAndGet()));
            }
            case FAIL -> {
                call.retrieveCall(XdrVoid.XDR_VOID);
                executions.incrementAndGet();
                throw new IllegalStateException("FAIL fails");
            }
            case FAIL_HARD -> {
                call.retrieveCall(XdrVoid.XDR_VOID);
                executions.incrementAndGet();
                throw new AssertionError("FAIL_HARD fails");
            }
            case LATER -> {
                String name = name(call);
                Thread t = new Thread(() -> {
                    await();
                    call.reply(append(name));
                }, "ledger-later");
                t.setDaemon(true);
                t.start();
            }
            default -> call.failProcedureUnavailable();
        }
    }

    private Ints append(String name) {
        executions.incrementAndGet();
        int count = counts.merge(name, 1, Integer::sum);
        return new Ints(count, serial.incrementAndGet());
    }

    private void await() {
        try {
            if (!gate.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test never opened the gate");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String name(RpcCall call) throws IOException {
        XdrString name = new XdrString();
        call.retrieveCall(name);
        return name.stringValue();
    }

    public static XdrString name(String name) {
        return new XdrString(name);
    }

    /** XDR ints, as many as given (decoding fills the array's length). */
    public static final class Ints implements XdrAble {
        public final int[] values;

        public Ints(int... values) {
            this.values = values;
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws IOException {
            for (int i = 0; i < values.length; i++) {
                values[i] = xdr.xdrDecodeInt();
            }
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) throws IOException {
            for (int v : values) {
                xdr.xdrEncodeInt(v);
            }
        }
    }

    /** The BLOB result: a variable-length opaque, its first word the serial, the rest a pattern of the seed. */
    public static final class Blob implements XdrAble {
        public byte[] bytes;

        public Blob() {
        }

        Blob(int size, int seed, int serial) {
            bytes = new byte[size];
            for (int i = 0; i < size; i++) {
                bytes[i] = (byte) (seed * 31 + i * 7);
            }
            for (int i = 0; i < 4 && i < size; i++) {
                bytes[i] = (byte) (serial >>> (24 - 8 * i));
            }
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws IOException {
            bytes = xdr.xdrDecodeDynamicOpaque();
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) throws IOException {
            xdr.xdrEncodeDynamicOpaque(bytes);
        }
    }
}
