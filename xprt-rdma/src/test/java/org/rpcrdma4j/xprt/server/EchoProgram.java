package org.rpcrdma4j.xprt.server;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.CompletionHandler;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.zip.CRC32C;

import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.dcache.oncrpc4j.xdr.XdrVoid;

/**
 * A small oncrpc4j program for the transport tests (program {@link #PROGRAM}, version {@link #VERSION}):
 * <pre>
 *  0 NULL                                   void -&gt; void
 *  1 ECHO      opaque data&lt;&gt;             -&gt; opaque data&lt;&gt; (the same bytes)
 *  2 DIGEST    opaque data&lt;&gt;             -&gt; unsigned length, unsigned crc32c
 *  3 READ      unsigned n, unsigned seed    -&gt; opaque&lt;&gt; of n pattern bytes, encoded by reference from a
 *                                              buffer of the server's allocator (registered: zero copy)
 *  4 READ_HEAP unsigned n, unsigned seed    -&gt; the same bytes, encoded by value (a heap copy)
 *  5 SLOW      unsigned id                  -&gt; void, once the test {@linkplain #release releases} id
 *  6 READ_PLAIN unsigned n, unsigned seed   -&gt; the same bytes, by reference from unregistered direct memory
 *  7 KEEP      opaque data&lt;&gt;             -&gt; 1 KiB of pattern bytes; the data's bytes are offered to the test's
 *                                              {@linkplain #keeper keeper} first (kept past the reply, or not)
 *  8 FAIL      opaque data&lt;&gt;             -&gt; nothing: throws the test's {@linkplain #failure failure} once the
 *                                              data is decoded
 *  9 TWICE     unsigned id                  -&gt; void, and again once the test {@linkplain #release releases} id
 *                                              (a program's bug): {@link #SECOND_REPLY_BYTES} of 0x5e, longer than
 *                                              a call's header; what became of it goes to {@link #secondReplies}
 * 10 LATE_ECHO unsigned id, opaque data&lt;&gt; -&gt; opaque data&lt;&gt;: decodes the id, then the data only once the test
 *                                              {@linkplain #release releases} id
 * </pre>
 * Plain oncrpc4j: it knows nothing of RDMA. READ releases its buffer in a send listener, as the NFS server does.
 */
final class EchoProgram implements RpcDispatchable {
    static final int PROGRAM = 0x20000099;
    static final int VERSION = 1;
    static final int NULL = 0;
    static final int ECHO = 1;
    static final int DIGEST = 2;
    static final int READ = 3;
    static final int READ_HEAP = 4;
    static final int SLOW = 5;
    static final int READ_PLAIN = 6;
    static final int KEEP = 7;
    static final int FAIL = 8;
    static final int TWICE = 9;
    static final int LATE_ECHO = 10;
    /** TWICE's second reply: an opaque of this many bytes 0x5e. */
    static final int SECOND_REPLY_BYTES = 256;
    /** KEEP's reply: longer than the call's own header, so a reply encoded over the call would reach its data. */
    static final int KEEP_REPLY_BYTES = 1024;

    private final IntFunction<ReplyBufferSource> buffers;
    private final Map<Integer, CountDownLatch> gates = new ConcurrentHashMap<>();
    final AtomicInteger slowStarted = new AtomicInteger();
    final AtomicInteger slowFinished = new AtomicInteger();
    final AtomicInteger buffersReleased = new AtomicInteger();
    final AtomicInteger sendFailures = new AtomicInteger();
    final AtomicInteger digests = new AtomicInteger();
    /** TWICE: first replies whose Send completed. */
    final AtomicInteger firstRepliesSent = new AtomicInteger();
    /** TWICE: for each second reply, null when it was sent, else why it was not. */
    final java.util.concurrent.BlockingQueue<java.util.Optional<Throwable>> secondReplies =
            new java.util.concurrent.LinkedBlockingQueue<>();
    /** What KEEP does with the view of its data (a view of the call's arguments); set by the test. */
    volatile java.util.function.BiConsumer<RpcCall, ByteBuffer> keeper = (call, data) -> { };
    /** What FAIL throws; set by the test. */
    volatile java.util.function.Supplier<Error> failure = () -> new StackOverflowError("deep in the test's decoder");

    /** Where READ gets its buffer: per call, the server's allocator (or plain memory for READ_PLAIN). */
    interface ReplyBufferSource {
        io.netty.buffer.ByteBuf allocate(RpcCall call, int length);
    }

    EchoProgram(IntFunction<ReplyBufferSource> buffers) {
        this.buffers = buffers;
    }

    /** Lets SLOW call {@code id} finish. */
    void release(int id) {
        gate(id).countDown();
    }

    private CountDownLatch gate(int id) {
        return gates.computeIfAbsent(id, k -> new CountDownLatch(1));
    }

    @Override
    public void dispatchOncRpcCall(RpcCall call) throws OncRpcException, IOException {
        switch (call.getProcedure()) {
            case NULL -> {
                call.retrieveCall(XdrVoid.XDR_VOID);
                call.reply(XdrVoid.XDR_VOID);
            }
            case ECHO -> {
                Opaque data = new Opaque();
                call.retrieveCall(data);
                call.reply(data);
            }
            case DIGEST -> {
                Opaque data = new Opaque();
                call.retrieveCall(data);
                digests.incrementAndGet();
                CRC32C crc = new CRC32C();
                crc.update(data.bytes);
                int length = data.bytes.length;
                int value = (int) crc.getValue();
                call.reply(encoding(xdr -> {
                    xdr.xdrEncodeInt(length);
                    xdr.xdrEncodeInt(value);
                }));
            }
            case READ, READ_PLAIN -> read(call, call.getProcedure());
            case KEEP -> {
                ByteBuffer[] data = new ByteBuffer[1];
                call.retrieveCall(new XdrAble() {
                    @Override
                    public void xdrDecode(XdrDecodingStream xdr) throws OncRpcException, IOException {
                        data[0] = ((org.dcache.oncrpc4j.xdr.Xdr) xdr).xdrDecodeByteBuffer();
                    }

                    @Override
                    public void xdrEncode(XdrEncodingStream xdr) {
                        throw new UnsupportedOperationException();
                    }
                });
                keeper.accept(call, data[0]);
                byte[] reply = pattern(KEEP_REPLY_BYTES, 77);
                call.reply(encoding(xdr -> xdr.xdrEncodeDynamicOpaque(reply)));
            }
            case TWICE -> {
                int id = decodeId(call);
                call.registerSendOnceListener(new CompletionHandler<>() {
                    @Override
                    public void completed(Integer result, InetSocketAddress attachment) {
                        firstRepliesSent.incrementAndGet();
                    }

                    @Override
                    public void failed(Throwable exc, InetSocketAddress attachment) {
                    }
                });
                call.reply(XdrVoid.XDR_VOID);
                try {
                    gate(id).await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                call.registerSendOnceListener(new CompletionHandler<>() {
                    @Override
                    public void completed(Integer result, InetSocketAddress attachment) {
                        secondReplies.add(java.util.Optional.empty());
                    }

                    @Override
                    public void failed(Throwable exc, InetSocketAddress attachment) {
                        secondReplies.add(java.util.Optional.of(exc));
                    }
                });
                byte[] second = new byte[SECOND_REPLY_BYTES];
                java.util.Arrays.fill(second, (byte) 0x5e);
                call.reply(encoding(xdr -> xdr.xdrEncodeDynamicOpaque(second)));
            }
            case LATE_ECHO -> {
                Opaque data = new Opaque();
                call.retrieveCall(new XdrAble() {
                    @Override
                    public void xdrDecode(XdrDecodingStream xdr) throws OncRpcException, IOException {
                        int id = xdr.xdrDecodeInt();
                        slowStarted.incrementAndGet();
                        try {
                            gate(id).await(60, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        data.xdrDecode(xdr);
                    }

                    @Override
                    public void xdrEncode(XdrEncodingStream xdr) {
                        throw new UnsupportedOperationException();
                    }
                });
                call.reply(data);
            }
            case FAIL -> {
                call.retrieveCall(new Opaque());
                throw failure.get();
            }
            case READ_HEAP -> {
                ReadArgs args = new ReadArgs();
                call.retrieveCall(args);
                byte[] bytes = pattern(args.n, args.seed);
                call.reply(encoding(xdr -> xdr.xdrEncodeDynamicOpaque(bytes)));
            }
            case SLOW -> {
                int id = decodeId(call);
                slowStarted.incrementAndGet();
                try {
                    gate(id).await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                slowFinished.incrementAndGet();
                call.registerSendOnceListener(new CompletionHandler<>() {
                    @Override
                    public void completed(Integer result, InetSocketAddress attachment) {
                    }

                    @Override
                    public void failed(Throwable exc, InetSocketAddress attachment) {
                        sendFailures.incrementAndGet();
                    }
                });
                call.reply(XdrVoid.XDR_VOID);
            }
            default -> call.failProcedureUnavailable();
        }
    }

    private static int decodeId(RpcCall call) throws OncRpcException, IOException {
        int[] id = new int[1];
        call.retrieveCall(new XdrAble() {
            @Override
            public void xdrDecode(XdrDecodingStream xdr) throws OncRpcException, IOException {
                id[0] = xdr.xdrDecodeInt();
            }

            @Override
            public void xdrEncode(XdrEncodingStream xdr) {
                throw new UnsupportedOperationException();
            }
        });
        return id[0];
    }

    private void read(RpcCall call, int procedure) throws OncRpcException, IOException {
        ReadArgs args = new ReadArgs();
        call.retrieveCall(args);
        io.netty.buffer.ByteBuf buffer = buffers.apply(procedure).allocate(call, args.n);
        ByteBuffer data = buffer.nioBuffer(0, args.n);
        data.put(0, pattern(args.n, args.seed));
        call.registerSendOnceListener(new CompletionHandler<>() {
            @Override
            public void completed(Integer result, InetSocketAddress attachment) {
                buffer.release();
                buffersReleased.incrementAndGet();
            }

            @Override
            public void failed(Throwable exc, InetSocketAddress attachment) {
                buffer.release();
                buffersReleased.incrementAndGet();
                sendFailures.incrementAndGet();
            }
        });
        call.reply(encoding(xdr -> ((org.dcache.oncrpc4j.xdr.Xdr) xdr).xdrEncodeShallowByteBuffer(data.duplicate())));
    }

    /** Deterministic bytes for READ: {@code n} bytes from {@code seed}. */
    static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        int x = seed * 0x9E3779B9 | 1;
        for (int i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >>> 17;
            x ^= x << 5;
            b[i] = (byte) x;
        }
        return b;
    }

    /** Writes a reply body. */
    @FunctionalInterface
    interface Encode {
        void encode(XdrEncodingStream xdr) throws OncRpcException, IOException;
    }

    /** An encode-only XdrAble. */
    static XdrAble encoding(Encode encode) {
        return new XdrAble() {
            @Override
            public void xdrDecode(XdrDecodingStream xdr) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void xdrEncode(XdrEncodingStream xdr) throws OncRpcException, IOException {
                encode.encode(xdr);
            }
        };
    }

    /** A variable-length opaque. */
    static final class Opaque implements XdrAble {
        byte[] bytes;

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws OncRpcException, IOException {
            bytes = xdr.xdrDecodeDynamicOpaque();
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) throws OncRpcException, IOException {
            xdr.xdrEncodeDynamicOpaque(bytes);
        }
    }

    static final class ReadArgs implements XdrAble {
        int n;
        int seed;

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws OncRpcException, IOException {
            n = xdr.xdrDecodeInt();
            seed = xdr.xdrDecodeInt();
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) throws OncRpcException, IOException {
            xdr.xdrEncodeInt(n);
            xdr.xdrEncodeInt(seed);
        }
    }
}
