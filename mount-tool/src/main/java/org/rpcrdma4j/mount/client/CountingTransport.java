package org.rpcrdma4j.mount.client;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import io.netty.buffer.ByteBuf;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.rpcrdma4j.nfs.client.DataTransport;
import org.rpcrdma4j.nfs.client.DataTransportFactory;
import org.rpcrdma4j.nfs.client.NfsClientConfig;
import org.rpcrdma4j.nfs.client.v4.CompoundCall;
import org.rpcrdma4j.nfs.xdr.DdpArgument;
import org.rpcrdma4j.nfs.xdr.DdpResult;
import org.rpcrdma4j.nfs.xdr.Nfs3;

/**
 * A {@link DataTransport} that passes every call to another and counts NFS calls into {@link OpCounters}: NFSv3 by
 * procedure, NFSv4 by the operation each COMPOUND was sent for (MOUNT calls pass uncounted). Owns the transport it
 * wraps.
 */
public final class CountingTransport implements DataTransport {
    private final DataTransport delegate;
    private final OpCounters counters;

    CountingTransport(DataTransport delegate, OpCounters counters) {
        this.delegate = delegate;
        this.counters = counters;
    }

    /** The transport underneath (for its own counters). */
    public DataTransport delegate() {
        return delegate;
    }

    @Override
    public <T extends XdrAble> CompletableFuture<T> call(int program, int version, int procedure, XdrAble args,
                                                         T result) {
        String operation = operation(program, version, procedure, args);
        if (operation == null) {
            return delegate.call(program, version, procedure, args, result);
        }
        long sent = args instanceof DdpArgument d && d.item() != null ? d.item().readableBytes() : 0;
        ByteBuf sink = result instanceof DdpResult d ? d.sink() : null;
        int sinkStart = sink == null ? 0 : sink.writerIndex();
        long start = System.nanoTime();
        return delegate.call(program, version, procedure, args, result).whenComplete((r, error) -> {
            long received = sink == null || error != null ? 0 : Math.max(0, sink.writerIndex() - sinkStart);
            Throwable cause = error instanceof CompletionException && error.getCause() != null
                    ? error.getCause() : error;
            counters.record(operation, System.nanoTime() - start, sent + received, cause);
        });
    }

    /**
     * The name a call is counted under: an NFSv3 procedure's, or the operation an NFSv4 COMPOUND was sent for; null
     * for calls not counted (MOUNT, NFSv4 COMPOUNDs of other clients).
     */
    static String operation(int program, int version, int procedure, XdrAble args) {
        if (program != Nfs3.PROGRAM) {
            return null;
        }
        if (version == Nfs3.VERSION || procedure == Nfs3.NULL) {
            return Nfs3.procedureName(procedure);
        }
        return args instanceof CompoundCall c ? c.operation() : null;
    }

    @Override
    public ByteBuf allocateData(int size) throws IOException {
        return delegate.allocateData(size);
    }

    @Override
    public boolean movesWithoutCopy(ByteBuf b) {
        return delegate.movesWithoutCopy(b);
    }

    @Override
    public boolean servesReverseProgram(int program, int version) {
        return delegate.servesReverseProgram(program, version);
    }

    @Override
    public int maxDataPerCall() {
        return delegate.maxDataPerCall();
    }

    @Override
    public long connectionGeneration() {
        return delegate.connectionGeneration();
    }

    @Override
    public int maxConcurrentCalls() {
        return delegate.maxConcurrentCalls();
    }

    @Override
    public int maxUnboundedReply() {
        return delegate.maxUnboundedReply();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return delegate.remoteAddress();
    }

    @Override
    public void close() {
        delegate.close();
    }

    /** Wraps the transports another factory makes; remembers the last one for statistics. */
    static final class Factory implements DataTransportFactory {
        private final DataTransportFactory delegate;
        private final OpCounters counters;
        private volatile CountingTransport last;

        Factory(DataTransportFactory delegate, OpCounters counters) {
            this.delegate = delegate;
            this.counters = counters;
        }

        @Override
        public String scheme() {
            return delegate.scheme();
        }

        @Override
        public int defaultPort() {
            return delegate.defaultPort();
        }

        @Override
        public DataTransport connect(InetSocketAddress server, NfsClientConfig config) throws IOException {
            CountingTransport t = new CountingTransport(delegate.connect(server, config), counters);
            last = t;
            return t;
        }

        CountingTransport last() {
            return last;
        }
    }
}
