package org.rpcrdma4j.benchmarks.verbs;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.PostException;
import org.rpcrdma4j.verbs.RecvWorkRequest;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.WcStatus;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * Send round trip over the software device: the client sends {@code size} bytes, the server's completion listener
 * (on its engine thread) answers with a Send of the same size, the client spins until the answer's receive
 * completes. Compare with {@link NioLatencyBenchmark}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Thread)
public class VerbsLatencyBenchmark {
    private static final int DEPTH = 64;
    private static final int SIGNAL_EVERY = 16;

    @Param({"64", "4096"})
    public int size;

    /** Extra device options, {@code key=value,key=value}. */
    @Param({""})
    public String options;

    /** How the client waits for the answer: {@code park} (armed queue wakes it) or {@code spin} (busy poll). */
    @Param({"park"})
    public String wait;

    private VerbsPair pair;
    private SendWorkRequest ping;
    private RecvWorkRequest pingRecv;
    private final WorkCompletion[] batch = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(),
        new WorkCompletion()};
    private long sent;
    private boolean spin;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        pair = new VerbsPair(VerbsBandwidthBenchmark.parse(options), DEPTH);
        spin = "spin".equals(wait);
        int rw = Access.LOCAL_WRITE | Access.REMOTE_WRITE;
        RegisteredMemory clientOut = pair.register(size, rw);
        RegisteredMemory clientIn = pair.register(size, rw);
        RegisteredMemory serverIn = pair.register(size, rw);
        ping = new SendWorkRequest(1);
        ping.addSge().set(clientOut, 0, size);
        pingRecv = new RecvWorkRequest(1);
        pingRecv.addSge().set(clientIn, 0, size);
        VerbsPair.wakes(pair.clientRecvCq, Thread.currentThread());
        Echo echo = new Echo(pair, serverIn, size);
        for (int i = 0; i < DEPTH / 2; i++) {
            pair.server.postRecv(echo.recv);
        }
        pair.serverRecvCq.setListener(echo);
        pair.serverRecvCq.requestNotify();
        echo.onCompletion(pair.serverRecvCq);
    }

    /** The server side: answers every received Send, re-posting its receive. Runs on the server's engine. */
    static final class Echo implements CompletionQueue.CompletionListener {
        final RecvWorkRequest recv = new RecvWorkRequest(1);
        private final SendWorkRequest pong = new SendWorkRequest(1);
        private final WorkCompletion[] batch = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(),
            new WorkCompletion()};
        private final VerbsPair pair;
        private long answered;

        Echo(VerbsPair pair, RegisteredMemory in, int size) {
            this.pair = pair;
            recv.addSge().set(in, 0, size);
            pong.addSge().set(in, 0, size);
        }

        @Override
        public void onCompletion(CompletionQueue cq) {
            try {
                do {
                    answer(cq);
                    cq.requestNotify();
                } while (answer(cq));
            } catch (PostException e) {
                throw new IllegalStateException(e);
            }
        }

        /** Answers every Send received so far; returns whether there was any. */
        private boolean answer(CompletionQueue cq) throws PostException {
            boolean any = false;
            int n;
            while ((n = cq.poll(batch)) > 0) {
                any = true;
                for (int i = 0; i < n; i++) {
                    if (batch[i].status != WcStatus.SUCCESS) {
                        return false;
                    }
                    pair.server.postRecv(recv);
                    pong.flags = ++answered % SIGNAL_EVERY == 0 ? SendWorkRequest.SIGNALED : 0;
                    pair.server.postSend(pong);
                }
                pair.serverSendCq.poll(batch);
            }
            return any;
        }
    }

    @Benchmark
    public int roundTrip() throws Exception {
        pair.client.postRecv(pingRecv);
        ping.flags = ++sent % SIGNAL_EVERY == 0 ? SendWorkRequest.SIGNALED : 0;
        pair.client.postSend(ping);
        int n;
        if (spin) {
            while ((n = pair.clientRecvCq.poll(batch)) == 0) {
                Thread.onSpinWait();
            }
        } else {
            while ((n = VerbsPair.pollOrWait(pair.clientRecvCq, batch)) == 0) {
                Thread.onSpinWait();
            }
        }
        pair.clientSendCq.poll(batch);
        return n;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        pair.close();
    }
}
