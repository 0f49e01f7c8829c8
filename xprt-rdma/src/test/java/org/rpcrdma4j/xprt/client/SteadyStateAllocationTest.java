package org.rpcrdma4j.xprt.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.registration.RegisteredBuffer;
import org.rpcrdma4j.verbs.conformance.AllocationWindows;
import org.rpcrdma4j.xprt.DataItem;
import org.rpcrdma4j.xprt.UpperLayerBinding;
import org.rpcrdma4j.xprt.client.fake.TestProgram;

/**
 * The DDP API allocates nothing per call once warm, on the calling thread and on the connection's agent thread
 * (measured with the JVM's per-thread allocation counters; the fake server's and the device's threads are not ours).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class SteadyStateAllocationTest extends ClientTestBase {
    private static final int WARM = 1500;
    private static final int MEASURED = 1000;

    /** The test program's binding without per-call allocation (the test binding makes a cursor per call). */
    private static final UpperLayerBinding QUIET = new UpperLayerBinding() {
        @Override
        public int program() {
            return TestProgram.PROGRAM;
        }

        @Override
        public boolean supportsVersion(int version) {
            return version == TestProgram.VERSION;
        }

        @Override
        public boolean locateCallItem(int version, int procedure, ByteBuf args, DataItem out) {
            return false;
        }

        @Override
        public boolean locateReplyItem(int version, int procedure, ByteBuf results, DataItem out) {
            return false;
        }

        @Override
        public boolean locateReducedReplyItem(int version, int procedure, ByteBuf results, DataItem out) {
            return false;
        }

        @Override
        public long maxReplyItemLength(int version, int procedure, ByteBuf args) {
            return procedure == TestProgram.GET ? args.getInt(args.readerIndex()) : -1;
        }

        @Override
        public long maxInlineReplySize(int version, int procedure, ByteBuf args) {
            return TestProgram.MAX_REPLY_HEADER + 16;
        }
    };

    /**
     * A buffer outside Netty's leak detection: under the paranoid level the tests run with, every operation on a
     * tracked buffer records a stack trace, which would be counted here as the transport's allocation.
     */
    private static ByteBuf untracked(int capacity) {
        return Unpooled.wrappedBuffer(java.nio.ByteBuffer.allocateDirect(capacity)).clear();
    }

    private static long allocated(Thread t) {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getThreadAllocatedBytes(t.getId());
    }

    private static Thread agentThread(RdmaClientTransport t) {
        for (Thread th : Thread.getAllStackTraces().keySet()) {
            if (th.getName().equals("rpcrdma-" + t.name())) {
                return th;
            }
        }
        throw new AssertionError("no agent thread");
    }

    private interface Call {
        void run(int i) throws Exception;
    }

    private void assertNoAllocation(RdmaClientTransport t, Call call) throws Exception {
        for (int i = 0; i < WARM; i++) {
            call.run(i);
        }
        server.drainCalls();
        Thread agent = agentThread(t);
        Thread me = Thread.currentThread();
        // reading a thread's counter allocates a few hundred bytes itself; one object per call would be 16 bytes or more
        // per call: a bound of 8 bytes per call tells the two apart. Windows run until the JIT has compiled the path.
        AllocationWindows.Work window = () -> {
            for (int i = 0; i < MEASURED; i++) {
                call.run(i);
            }
        };
        AllocationWindows.Result caller = AllocationWindows.measure(10, 8L * MEASURED, () -> allocated(me), window);
        assertThat(caller.least()).as("bytes allocated by the caller over %d calls (windows: %s)", MEASURED,
                caller.windows()).isLessThan(8L * MEASURED);
        AllocationWindows.Result agentBytes = AllocationWindows.measure(10, 8L * MEASURED, () -> allocated(agent),
                window);
        server.drainCalls();
        assertThat(agentBytes.least()).as("bytes allocated by the agent over %d calls (windows: %s)", MEASURED,
                agentBytes.windows()).isLessThan(8L * MEASURED);
    }

    private RdmaClientTransport quietTransport() throws Exception {
        // few slots: the device's send queue (sized by them) is cycled through while warming up, so that its lazily grown
        // per-request page arrays are all grown before measuring
        return RdmaClientTransport.connect(server.address(), config().bindingsCleared().binding(QUIET).maxCredits(8)
                .build());
    }

    @Test
    void inlineCalls() throws Exception {
        RdmaClientTransport t = track(quietTransport());
        RdmaCall call = new RdmaCall();
        ByteBuf message = untracked(64);
        ByteBuf reply = untracked(256);
        assertNoAllocation(t, i -> {
            message.clear();
            TestProgram.header(message, t.nextXid(), TestProgram.NULL);
            reply.clear();
            t.call(call.reset().message(message).reply(reply));
        });
    }

    @Test
    void payloadsThroughReadChunksAndResultsThroughWriteChunks() throws Exception {
        RdmaClientTransport t = track(quietTransport());
        int size = 64 * 1024;
        RegisteredBuffer payload = registered(t, TestProgram.pattern(1, size));
        RegisteredBuffer sink = registered(t, size);
        RdmaCall call = new RdmaCall();
        ByteBuf message = untracked(64);
        ByteBuf reply = untracked(256);
        assertNoAllocation(t, i -> {
            message.clear();
            reply.clear();
            if ((i & 1) == 0) {
                TestProgram.header(message, t.nextXid(), TestProgram.PUT).writeInt(i).writeInt(size);
                t.call(call.reset().message(message).payload(payload, 0, size).reply(reply));
            } else {
                TestProgram.header(message, t.nextXid(), TestProgram.GET).writeInt(size).writeInt(1);
                t.call(call.reset().message(message).sink(sink, 0, size).reply(reply));
            }
        });
        assertThat(bytes(sink, 0, size)).isEqualTo(TestProgram.pattern(1, size));
    }
}
