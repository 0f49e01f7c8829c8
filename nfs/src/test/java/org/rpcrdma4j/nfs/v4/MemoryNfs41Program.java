package org.rpcrdma4j.nfs.v4;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.CompletionHandler;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.rpcrdma4j.nfs.v4.Compound41.CreateSymlink;
import org.rpcrdma4j.nfs.v4.Compound41.GetAttr;
import org.rpcrdma4j.nfs.v4.Compound41.GetFh;
import org.rpcrdma4j.nfs.v4.Compound41.Op;
import org.rpcrdma4j.nfs.v4.Compound41.PutFh;
import org.rpcrdma4j.nfs.v4.Compound41.Read;
import org.rpcrdma4j.nfs.v4.Compound41.ReadLink;
import org.rpcrdma4j.nfs.v4.Compound41.Sequence;
import org.rpcrdma4j.nfs.v4.Compound41.Unknown;
import org.rpcrdma4j.nfs.v4.Compound41.WantDelegation;
import org.rpcrdma4j.nfs.v4.Compound41.Write;
import org.rpcrdma4j.nfs.v4.Compound41Res.Failed;
import org.rpcrdma4j.nfs.v4.Compound41Res.Result;

/**
 * A minimal NFSv4.1 server as a plain oncrpc4j program (program 100003, version 4: NULL and COMPOUND), over files
 * held in memory: SEQUENCE on one fixed session ({@link #SESSION}; there is no EXCHANGE_ID or CREATE_SESSION, the
 * tests start in it), PUTFH, WRITE (always FILE_SYNC4), READ, GETATTR (type, change, size), WANT_DELEGATION (never
 * grants one), CREATE of a symbolic link in a directory, GETFH and READLINK. Anything else ends the COMPOUND with
 * NFS4ERR_NOTSUPP, or NFS4ERR_OP_ILLEGAL outside minor version 1. There is no name space: files and directories
 * are made by the test ({@link #createFile}, {@link #createDirectory}), links by CREATE.
 * <p>
 * READ data is encoded by reference from memory of the {@link ReadBuffers} given (the RDMA server's registered
 * buffers, so that the transport RDMA-writes it without a copy), released once the reply was sent, as the NFSv3
 * server does. It knows nothing of RDMA otherwise. Thread-safe.
 */
final class MemoryNfs41Program implements RpcDispatchable {
    static final byte[] SESSION = HexFormat.of().parseHex("4e465334315f7264 6d615f7465737421".replace(" ", ""));
    static final long WRITE_VERIFIER = 0x5a5a_0001_0002_0003L;

    /** Memory for READ results: a buffer of exactly {@code length} bytes for the reply to {@code call}. */
    @FunctionalInterface
    interface ReadBuffers {
        io.netty.buffer.ByteBuf allocate(RpcCall call, int length);
    }

    private final ReadBuffers readBuffers;
    private final Map<String, Node> files = new ConcurrentHashMap<>();
    private final AtomicInteger handles = new AtomicInteger();
    final AtomicInteger buffersHeld = new AtomicInteger();

    MemoryNfs41Program(ReadBuffers readBuffers) {
        this.readBuffers = readBuffers;
    }

    /** A new empty file; its handle is 27 bytes (so that its XDR needs padding). */
    byte[] createFile() {
        return add(Compound41.NF4REG, null).handle;
    }

    /** A new empty directory. */
    byte[] createDirectory() {
        return add(Compound41.NF4DIR, null).handle;
    }

    private Node add(int type, byte[] link) {
        byte[] handle = new byte[27];
        Arrays.fill(handle, (byte) 0xF4);
        int n = handles.incrementAndGet();
        handle[23] = (byte) (n >>> 24);
        handle[24] = (byte) (n >>> 16);
        handle[25] = (byte) (n >>> 8);
        handle[26] = (byte) n;
        Node node = new Node(handle, type, link);
        files.put(key(handle), node);
        return node;
    }

    /** A copy of the file's bytes. */
    byte[] contents(byte[] handle) {
        return files.get(key(handle)).copy();
    }

    /** A copy of the symbolic link's text. */
    byte[] linkText(byte[] handle) {
        return files.get(key(handle)).link.clone();
    }

    private static String key(byte[] handle) {
        return HexFormat.of().formatHex(handle);
    }

    @Override
    public void dispatchOncRpcCall(RpcCall call) throws OncRpcException, IOException {
        switch (call.getProcedure()) {
            case Nfs4.PROC_NULL -> {
                call.retrieveCall(XdrVoid.XDR_VOID);
                call.reply(XdrVoid.XDR_VOID);
            }
            case Nfs4.PROC_COMPOUND -> compound(call);
            default -> call.failProcedureUnavailable();
        }
    }

    private void compound(RpcCall call) throws OncRpcException, IOException {
        Compound41 args = new Compound41();
        call.retrieveCall(args);
        Compound41Res res = new Compound41Res();
        res.tag = args.tag;
        List<io.netty.buffer.ByteBuf> held = new ArrayList<>();
        if (args.minorVersion != 1) {
            res.status = Compound41Res.NFS4ERR_MINOR_VERS_MISMATCH;
        } else {
            Node current = null;
            for (int i = 0; i < args.ops.size(); i++) {
                Op op = args.ops.get(i);
                Result r;
                if (i == 0 != op instanceof Sequence) {
                    r = new Failed(op.opcode(), Compound41Res.NFS4ERR_OP_NOT_IN_SESSION);
                } else if (op instanceof PutFh p) {
                    current = files.get(key(p.handle()));
                    r = current == null ? new Failed(op.opcode(), Compound41Res.NFS4ERR_BADHANDLE)
                            : new Compound41Res.PutFhOk();
                } else if (op instanceof Unknown u) {
                    r = Nfs4.isOperationOf(u.opcode(), 1) ? new Failed(u.opcode(), Compound41Res.NFS4ERR_NOTSUPP)
                            : new Failed(Nfs4.OP_ILLEGAL, Compound41Res.NFS4ERR_OP_ILLEGAL);
                } else if (op instanceof Sequence s) {
                    r = Arrays.equals(s.sessionId(), SESSION)
                            ? new Compound41Res.SequenceOk(SESSION, s.sequenceId(), s.slot())
                            : new Failed(op.opcode(), Compound41Res.NFS4ERR_BADSESSION);
                } else if (current == null) {
                    r = new Failed(op.opcode(), Compound41Res.NFS4ERR_NOFILEHANDLE);
                } else if (op instanceof CreateSymlink c && current.type == Compound41.NF4DIR) {
                    long before = current.change();
                    long after = current.changed();
                    current = add(Nfs4.NF4LNK, c.linkdata().clone()); // the new link becomes the current handle
                    r = new Compound41Res.CreateOk(before, after);
                } else {
                    r = execute(call, op, current, held);
                }
                res.results.add(r);
                res.status = r.status();
                if (r.status() != Nfs4.NFS4_OK) {
                    break;
                }
            }
        }
        if (!held.isEmpty()) {
            call.registerSendOnceListener(new CompletionHandler<>() {
                @Override
                public void completed(Integer result, InetSocketAddress attachment) {
                    release(held);
                }

                @Override
                public void failed(Throwable exc, InetSocketAddress attachment) {
                    release(held);
                }
            });
        }
        call.reply(res);
    }

    private Result execute(RpcCall call, Op op, Node file, List<io.netty.buffer.ByteBuf> held) {
        if (op instanceof GetFh) {
            return new Compound41Res.GetFhOk(file.handle);
        }
        if (op instanceof GetAttr g) {
            return new Compound41Res.GetAttrOk(g.bitmap() & Compound41.bitmap(Compound41.ATTR_TYPE,
                    Compound41.ATTR_CHANGE, Compound41.ATTR_SIZE), file.type, file.change(), file.size());
        }
        if (op instanceof CreateSymlink) {
            return new Failed(op.opcode(), Compound41Res.NFS4ERR_NOTDIR); // in a directory, CREATE runs in compound()
        }
        if (op instanceof ReadLink) {
            return file.type == Nfs4.NF4LNK ? new Compound41Res.ReadLinkOk(file.link.clone())
                    : new Failed(op.opcode(), Compound41Res.NFS4ERR_INVAL);
        }
        if (file.type != Compound41.NF4REG) {
            return new Failed(op.opcode(), Compound41Res.NFS4ERR_INVAL);
        }
        if (op instanceof Write w) {
            file.write(w.offset(), w.data());
            return new Compound41Res.WriteOk(w.data().length, Compound41.FILE_SYNC4, WRITE_VERIFIER);
        }
        if (op instanceof Read r) {
            byte[] bytes = file.read(r.offset(), r.count());
            boolean eof = r.offset() + bytes.length >= file.size();
            if (bytes.length == 0) {
                return new Compound41Res.ReadOk(eof, bytes, null);
            }
            io.netty.buffer.ByteBuf buffer = readBuffers.allocate(call, bytes.length);
            held.add(buffer);
            buffersHeld.incrementAndGet();
            ByteBuffer data = buffer.nioBuffer(0, bytes.length);
            data.put(0, bytes);
            return new Compound41Res.ReadOk(eof, null, data);
        }
        if (op instanceof WantDelegation) {
            return new Compound41Res.WantDelegationOk();
        }
        throw new IllegalStateException("not executed here: " + op);
    }

    private void release(List<io.netty.buffer.ByteBuf> held) {
        for (io.netty.buffer.ByteBuf b : held) {
            b.release();
            buffersHeld.decrementAndGet();
        }
    }

    /** A file (its bytes), a directory or a symbolic link (its text), with its handle and change attribute. */
    private static final class Node {
        final byte[] handle;
        final int type;
        final byte[] link;
        private byte[] bytes = new byte[0];
        private int size;
        private long change = 1;

        Node(byte[] handle, int type, byte[] link) {
            this.handle = handle;
            this.type = type;
            this.link = link;
        }

        synchronized long changed() {
            return ++change;
        }

        synchronized void write(long offset, byte[] data) {
            long end = offset + data.length;
            if (end > Integer.MAX_VALUE - 8) {
                throw new IllegalArgumentException("file too large for this program: " + end);
            }
            if (end > bytes.length) {
                bytes = Arrays.copyOf(bytes, (int) Math.max(end, 2L * bytes.length));
            }
            System.arraycopy(data, 0, bytes, (int) offset, data.length);
            size = (int) Math.max(size, end);
            change++;
        }

        synchronized byte[] read(long offset, int count) {
            if (offset >= size) {
                return new byte[0];
            }
            int n = (int) Math.min(Integer.toUnsignedLong(count), size - offset);
            return Arrays.copyOfRange(bytes, (int) offset, (int) offset + n);
        }

        synchronized long size() {
            return size;
        }

        synchronized long change() {
            return change;
        }

        synchronized byte[] copy() {
            return Arrays.copyOf(bytes, size);
        }
    }
}
