package org.rpcrdma4j.verbs.ffm.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;

import org.rpcrdma4j.verbs.VerbsException;

/**
 * The data path through the FFM API on a real device, one process talking to itself: RDMA CM listen, connect and
 * accept with private data both ways and IRD/ORD set, then a SEND, an RDMA WRITE and an RDMA READ between the two
 * queue pairs, the bytes compared at each end, and everything torn down. Run in the rdma-core guest by
 * {@code FfmGuestTest}: {@code GuestLoopback <IPv4 of the RDMA interface> <port>}. Prints one {@code loopback:} line
 * and exits 0, or throws.
 */
public final class GuestLoopback {
    private static final int SEND_BYTES = 4096;
    private static final int RDMA_BYTES = 65536;
    private static final byte[] CALLER_DATA = "rpcrdma4j-ffm connect".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ACCEPT_DATA = "rpcrdma4j-ffm accept".getBytes(StandardCharsets.US_ASCII);

    private final Ibv ibv;
    private final RdmaCm cm;
    private final Arena arena;
    private final MemorySegment errno;

    private GuestLoopback(Ibv ibv, RdmaCm cm, Arena arena) {
        this.ibv = ibv;
        this.cm = cm;
        this.arena = arena;
        this.errno = Errno.allocate(arena);
    }

    private boolean windows;

    public static void main(String[] args) throws Exception {
        InetSocketAddress at = new InetSocketAddress(args[0], Integer.parseInt(args[1]));
        boolean windows = args.length > 2 && args[2].equals("windows");
        Ibv ibv = new Ibv(NativeLibrary.open(NativeLibrary.IBVERBS));
        RdmaCm cm = new RdmaCm(NativeLibrary.open(NativeLibrary.RDMACM));
        try (Arena arena = Arena.ofConfined()) {
            GuestLoopback loopback = new GuestLoopback(ibv, cm, arena);
            loopback.windows = windows;
            System.out.println(loopback.run(at));
        }
    }

    private String run(InetSocketAddress at) throws Exception {
        long t0 = System.nanoTime();
        MemorySegment channel = cm.createEventChannel(errno);
        MemorySegment listener = cm.createId(arena, channel, errno);
        cm.bindAddr(listener, RdmaCm.sockaddr(arena, at), errno);
        cm.listen(listener, 4, errno);

        MemorySegment client = cm.createId(arena, channel, errno);
        cm.resolveAddr(client, RdmaCm.sockaddr(arena, at), 2000, errno);
        ack(expect(channel, RdmaCmAbi.EVENT_ADDR_RESOLVED));
        cm.resolveRoute(client, 2000, errno);
        ack(expect(channel, RdmaCmAbi.EVENT_ROUTE_RESOLVED));
        MemorySegment context = MemorySegment.ofAddress(RdmaCm.verbs(client));
        MemorySegment pd = ibv.allocPd(context, errno);
        MemorySegment clientCq = ibv.createCq(context, 64, errno);
        MemorySegment events = ibv.createCompChannel(context, errno);
        MemorySegment serverCq = ibv.createCq(context, 64, events, errno);
        cm.createQp(client, pd, qpAttr(clientCq), errno);
        cm.connect(client, connParam(CALLER_DATA), errno);

        MemorySegment request = expect(channel, RdmaCmAbi.EVENT_CONNECT_REQUEST);
        MemorySegment server = request.get(ADDRESS, RdmaCmAbi.CM_EVENT_ID);
        byte[] offered = privateData(request, CALLER_DATA.length);
        int ord = Byte.toUnsignedInt(request.get(JAVA_BYTE, RdmaCmAbi.CM_EVENT_CONN_INITIATOR_DEPTH));
        ack(request);
        require(Arrays.equals(offered, CALLER_DATA), "the connect's private data arrived: "
                + new String(offered, StandardCharsets.US_ASCII));
        require(ord == 4, "the caller's ORD arrived as the listener's IRD offer: " + ord);
        cm.createQp(server, pd, qpAttr(serverCq), errno);

        MemorySegment serverBuf = arena.allocate(RDMA_BYTES, 4096);
        MemorySegment clientBuf = arena.allocate(RDMA_BYTES, 4096);
        int access = IbvAbi.ACCESS_LOCAL_WRITE | IbvAbi.ACCESS_REMOTE_WRITE | IbvAbi.ACCESS_REMOTE_READ;
        MemorySegment serverMr = ibv.regMr(pd, serverBuf, RDMA_BYTES, access, errno);
        MemorySegment clientMr = ibv.regMr(pd, clientBuf, RDMA_BYTES, access, errno);
        MemorySegment serverQp = RdmaCm.qp(server);
        MemorySegment clientQp = RdmaCm.qp(client);
        MemorySegment badWr = arena.allocate(ADDRESS);
        Ibv.postRecv(Ibv.op(context, IbvAbi.CONTEXT_OPS_POST_RECV), serverQp,
                recvWr(1, sge(serverBuf, SEND_BYTES, mrKey(serverMr, IbvAbi.MR_LKEY))), badWr);
        cm.accept(server, connParam(ACCEPT_DATA), errno);
        byte[] accepted = null;
        for (int established = 0; established < 2; established++) {
            MemorySegment e = expect(channel, RdmaCmAbi.EVENT_ESTABLISHED);
            if (e.get(ADDRESS, RdmaCmAbi.CM_EVENT_ID).equals(client)) {
                accepted = privateData(e, ACCEPT_DATA.length);
            }
            ack(e);
        }
        require(accepted != null && Arrays.equals(accepted, ACCEPT_DATA), "the accept's private data arrived");
        long t1 = System.nanoTime();

        MemorySegment postSend = Ibv.op(context, IbvAbi.CONTEXT_OPS_POST_SEND);
        MemorySegment poll = Ibv.op(context, IbvAbi.CONTEXT_OPS_POLL_CQ);
        int lkey = mrKey(clientMr, IbvAbi.MR_LKEY);
        long remote = serverBuf.address();
        int rkey = mrKey(serverMr, IbvAbi.MR_RKEY);

        byte[] sent = fill(clientBuf, SEND_BYTES, 1);
        Ibv.reqNotifyCq(Ibv.op(context, IbvAbi.CONTEXT_OPS_REQ_NOTIFY_CQ), serverCq);
        Ibv.postSend(postSend, clientQp, sendWr(2, IbvAbi.WR_SEND, sge(clientBuf, SEND_BYTES, lkey), 0, 0), badWr);
        complete(poll, clientCq, IbvAbi.WC_OP_SEND, 2);
        // the receive's completion wakes a thread blocked on the completion channel
        MemorySegment woken = ibv.getCqEvent(arena, events, errno);
        require(woken.equals(serverCq), "the completion channel named the receiving queue");
        ibv.ackCqEvents(woken, 1);
        int received = complete(poll, serverCq, IbvAbi.WC_OP_RECV, 1);
        require(received == SEND_BYTES, "the receive completion's byte_len: " + received);
        require(Arrays.equals(bytes(serverBuf, SEND_BYTES), sent), "the SEND's bytes arrived");

        byte[] written = fill(clientBuf, RDMA_BYTES, 2);
        Ibv.postSend(postSend, clientQp, sendWr(3, IbvAbi.WR_RDMA_WRITE, sge(clientBuf, RDMA_BYTES, lkey), remote,
                rkey), badWr);
        complete(poll, clientCq, IbvAbi.WC_OP_RDMA_WRITE, 3);
        require(Arrays.equals(bytes(serverBuf, RDMA_BYTES), written), "the RDMA WRITE's bytes landed");

        byte[] served = fill(serverBuf, RDMA_BYTES, 3);
        clientBuf.fill((byte) 0);
        Ibv.postSend(postSend, clientQp, sendWr(4, IbvAbi.WR_RDMA_READ, sge(clientBuf, RDMA_BYTES, lkey), remote,
                rkey), badWr);
        complete(poll, clientCq, IbvAbi.WC_OP_RDMA_READ, 4);
        require(Arrays.equals(bytes(clientBuf, RDMA_BYTES), served), "the RDMA READ's bytes arrived");

        String steady = steadyState(postSend, Ibv.op(context, IbvAbi.CONTEXT_OPS_POST_RECV), poll, clientQp, serverQp,
                clientCq, serverCq, clientBuf, lkey, serverBuf, mrKey(serverMr, IbvAbi.MR_LKEY), badWr);
        String window = windows ? "\nmemory window: " + window(context, pd, postSend, poll, clientQp, serverQp,
                clientCq, serverCq, clientBuf, lkey, serverBuf, mrKey(serverMr, IbvAbi.MR_LKEY), badWr) : "";
        long t2 = System.nanoTime();
        cm.disconnect(client, errno);
        // both ends disconnect: over InfiniBand's CM (rxe) the caller's DREQ is answered by the other end's own
        // rdma_disconnect, without which the caller waits out the DREQ timeout (about 100 s) before its event
        cm.disconnect(server, errno);
        for (int disconnected = 0; disconnected < 2; disconnected++) {
            ack(expect(channel, RdmaCmAbi.EVENT_DISCONNECTED));
        }
        long t3 = System.nanoTime();
        cm.destroyQp(client);
        String vanished = vanishedEvent(context, events, server, serverCq, serverBuf, mrKey(serverMr, IbvAbi.MR_LKEY),
                badWr);
        ibv.deregMr(clientMr);
        ibv.deregMr(serverMr);
        ibv.destroyCq(clientCq);
        ibv.destroyCompChannel(events);
        ibv.deallocPd(pd);
        cm.destroyId(server, errno);
        cm.destroyId(client, errno);
        cm.destroyId(listener, errno);
        cm.destroyEventChannel(channel);
        return "loopback: private data both ways, ORD " + ord + "; completion event; SEND " + SEND_BYTES
                + ", RDMA WRITE " + RDMA_BYTES
                + ", RDMA READ " + RDMA_BYTES + " bytes compared; torn down (ms: connect " + (t1 - t0) / 1_000_000
                + ", data " + (t2 - t1) / 1_000_000 + ", disconnect " + (t3 - t2) / 1_000_000 + ", release "
                + (System.nanoTime() - t3) / 1_000_000 + ")\nsteady state: " + steady + window
                + "\nvanished event: " + vanished;
    }

    /**
     * A completion event that goes with its queue between the poll that saw it and the read (the kernel drops the
     * events of a queue destroyed): the read of a non-blocking channel then says there is none, where a blocking one
     * would wait for another queue's next event.
     * Destroys {@code server}'s queue pair and {@code serverCq}.
     */
    private String vanishedEvent(MemorySegment context, MemorySegment events, MemorySegment server,
                                 MemorySegment serverCq, MemorySegment serverBuf, int serverLkey, MemorySegment badWr)
            throws Exception {
        int fd = events.reinterpret(16).get(JAVA_INT, IbvAbi.COMP_CHANNEL_FD);
        Libc.nonBlocking(fd, errno);
        Ibv.reqNotifyCq(Ibv.op(context, IbvAbi.CONTEXT_OPS_REQ_NOTIFY_CQ), serverCq);
        // a receive and a Send posted to the queue pair in error; the device flushes them (or not: some ignore posts
        // to a queue pair in error) and the armed queue raises its event
        Ibv.postRecv(Ibv.op(context, IbvAbi.CONTEXT_OPS_POST_RECV), RdmaCm.qp(server),
                recvWr(12, sge(serverBuf, 64, serverLkey)), badWr);
        try {
            Ibv.postSend(Ibv.op(context, IbvAbi.CONTEXT_OPS_POST_SEND), RdmaCm.qp(server),
                    sendWr(13, IbvAbi.WR_SEND, sge(serverBuf, 64, serverLkey), 0, 0), badWr);
        } catch (VerbsException refused) {
            // refused at the post: nothing to flush
        }
        MemorySegment pollfds = arena.allocate(Libc.POLLFD_SIZE, 8);
        Libc.watch(pollfds, 0, fd);
        boolean seen = Libc.poll(pollfds, 1, 5000, errno) == 1;
        cm.destroyQp(server);
        ibv.destroyCq(serverCq);
        MemorySegment out = arena.allocate(ADDRESS.byteSize() * 2, 8);
        long left = ibv.nextCqEvent(events, out, errno);
        require(left == 0, "the read after the queue went found no event: " + left);
        return seen ? "the flushed requests' event, seen by poll, went with its queue; the read returned at once"
                : "the device raised no event for the requests posted; the read of the empty channel returned at once";
    }

    /**
     * The data path in steady state: a receive posted, a 64-byte SEND posted, both completions polled, over and over
     * with work requests built once. Returns how many pairs ran and how many bytes this thread allocated while the
     * measured ones ran (after a warm-up for the JIT).
     */
    private String steadyState(MemorySegment postSend, MemorySegment postRecv, MemorySegment poll,
                               MemorySegment clientQp, MemorySegment serverQp, MemorySegment clientCq,
                               MemorySegment serverCq, MemorySegment clientBuf, int clientLkey, MemorySegment serverBuf,
                               int serverLkey, MemorySegment badWr) throws Exception {
        MemorySegment send = sendWr(5, IbvAbi.WR_SEND, sge(clientBuf, 64, clientLkey), 0, 0);
        MemorySegment recv = recvWr(6, sge(serverBuf, 64, serverLkey));
        MemorySegment wc = arena.allocate(IbvAbi.WC_SIZE, 8);
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        int warmUp = 20_000;
        int measured = 20_000;
        for (int i = 0; i < warmUp; i++) {
            pingPong(postSend, postRecv, poll, clientQp, serverQp, clientCq, serverCq, send, recv, wc, badWr);
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < measured; i++) {
            pingPong(postSend, postRecv, poll, clientQp, serverQp, clientCq, serverCq, send, recv, wc, badWr);
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        return measured + " SEND/receive pairs, " + allocated + " bytes allocated";
    }

    /**
     * A type 2 memory window over a buffer of the accepting end: bound with a work request on that end's queue pair,
     * written through by the connecting end, invalidated by that end's SEND with Invalidate (the receive completion
     * names the window), and then refused. Leaves both queue pairs in error.
     */
    private String window(MemorySegment context, MemorySegment pd, MemorySegment postSend, MemorySegment poll,
                          MemorySegment clientQp, MemorySegment serverQp, MemorySegment clientCq,
                          MemorySegment serverCq, MemorySegment clientBuf, int clientLkey, MemorySegment serverBuf,
                          int serverLkey, MemorySegment badWr) throws Exception {
        MemorySegment buffer = arena.allocate(4096, 4096);
        MemorySegment mr = ibv.regMr(pd, buffer, 4096, IbvAbi.ACCESS_LOCAL_WRITE | IbvAbi.ACCESS_REMOTE_WRITE
                | IbvAbi.ACCESS_REMOTE_READ | IbvAbi.ACCESS_MW_BIND, errno);
        MemorySegment mw = Ibv.allocMw(context, pd, IbvAbi.MW_TYPE_2, errno);
        int old = mw.get(JAVA_INT, IbvAbi.MW_RKEY);
        int rkey = (old & 0xffffff00) | ((old + 1) & 0xff); // ibv_inc_rkey
        MemorySegment bind = arena.allocate(IbvAbi.SEND_WR_SIZE, 8);
        bind.set(JAVA_LONG, IbvAbi.SEND_WR_WR_ID, 7);
        bind.set(JAVA_INT, IbvAbi.SEND_WR_OPCODE, IbvAbi.WR_BIND_MW);
        bind.set(JAVA_INT, IbvAbi.SEND_WR_SEND_FLAGS, IbvAbi.SEND_SIGNALED);
        bind.set(ADDRESS, IbvAbi.SEND_WR_BIND_MW_MW, mw);
        bind.set(JAVA_INT, IbvAbi.SEND_WR_BIND_MW_RKEY, rkey);
        long info = IbvAbi.SEND_WR_BIND_MW_BIND_INFO;
        bind.set(ADDRESS, info + IbvAbi.MW_BIND_INFO_MR, mr);
        bind.set(JAVA_LONG, info + IbvAbi.MW_BIND_INFO_ADDR, buffer.address());
        bind.set(JAVA_LONG, info + IbvAbi.MW_BIND_INFO_LENGTH, 4096);
        bind.set(JAVA_INT, info + IbvAbi.MW_BIND_INFO_ACCESS, IbvAbi.ACCESS_REMOTE_WRITE | IbvAbi.ACCESS_REMOTE_READ);
        Ibv.postSend(postSend, serverQp, bind, badWr);
        complete(poll, serverCq, IbvAbi.WC_OP_BIND_MW, 7);

        byte[] through = fill(clientBuf, 4096, 4);
        Ibv.postSend(postSend, clientQp, sendWr(8, IbvAbi.WR_RDMA_WRITE, sge(clientBuf, 4096, clientLkey),
                buffer.address(), rkey), badWr);
        complete(poll, clientCq, IbvAbi.WC_OP_RDMA_WRITE, 8);
        require(Arrays.equals(bytes(buffer, 4096), through), "an RDMA WRITE through the window landed");

        Ibv.postRecv(Ibv.op(context, IbvAbi.CONTEXT_OPS_POST_RECV), serverQp,
                recvWr(9, sge(serverBuf, 64, serverLkey)), badWr);
        MemorySegment sendInv = sendWr(10, IbvAbi.WR_SEND_WITH_INV, sge(clientBuf, 64, clientLkey), 0, 0);
        sendInv.set(JAVA_INT, IbvAbi.SEND_WR_INVALIDATE_RKEY, rkey);
        Ibv.postSend(postSend, clientQp, sendInv, badWr);
        complete(poll, clientCq, IbvAbi.WC_OP_SEND, 10);
        MemorySegment recv = awaitCompletion(poll, serverCq, 9);
        require(recv.get(JAVA_INT, IbvAbi.WC_STATUS) == IbvAbi.WC_SUCCESS, "the SEND with Invalidate arrived");
        // whether the receive says which STag was invalidated is the device's business (rxe does not say; see the
        // README): what must hold is that the window is gone, below
        int flags = recv.get(JAVA_INT, IbvAbi.WC_WC_FLAGS);
        String named = (flags & IbvAbi.WC_WITH_INV) != 0
                ? "named 0x" + Integer.toHexString(recv.get(JAVA_INT, IbvAbi.WC_INVALIDATED_RKEY))
                : "not named (wc_flags 0x" + Integer.toHexString(flags) + ")";

        Ibv.postSend(postSend, clientQp, sendWr(11, IbvAbi.WR_RDMA_WRITE, sge(clientBuf, 4096, clientLkey),
                buffer.address(), rkey), badWr);
        int refused = awaitCompletion(poll, clientCq, 11).get(JAVA_INT, IbvAbi.WC_STATUS);
        require(refused != IbvAbi.WC_SUCCESS, "an RDMA WRITE through the invalidated window is refused");
        Ibv.deallocMw(context, mw);
        ibv.deregMr(mr);
        return "type 2, bound (rkey 0x" + Integer.toHexString(rkey) + "), written through, invalidated by the peer's "
                + "SEND with Invalidate (in the receive completion: " + named + "), then refused (status " + refused
                + ")";
    }

    /** Polls until the completion of {@code wrId} comes (flushed ones of other requests are passed over). */
    private MemorySegment awaitCompletion(MemorySegment poll, MemorySegment cq, long wrId) throws Exception {
        MemorySegment wc;
        do {
            wc = nextCompletion(poll, cq, wrId);
        } while (wc.get(JAVA_LONG, IbvAbi.WC_WR_ID) != wrId);
        return wc;
    }

    /** Polls {@code cq} until it gives one completion, for at most 10 s ({@code wrId}: the one awaited, for errors). */
    private MemorySegment nextCompletion(MemorySegment poll, MemorySegment cq, long wrId) throws Exception {
        MemorySegment wc = arena.allocate(IbvAbi.WC_SIZE, 8);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (Ibv.pollCq(poll, cq, 1, wc) == 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("failed: a completion for work request " + wrId + " within 10 s");
            }
            Thread.onSpinWait();
        }
        return wc;
    }

    private static void pingPong(MemorySegment postSend, MemorySegment postRecv, MemorySegment poll,
                                 MemorySegment clientQp, MemorySegment serverQp, MemorySegment clientCq,
                                 MemorySegment serverCq, MemorySegment send, MemorySegment recv, MemorySegment wc,
                                 MemorySegment badWr) throws Exception {
        Ibv.postRecv(postRecv, serverQp, recv, badWr);
        Ibv.postSend(postSend, clientQp, send, badWr);
        awaitOne(poll, clientCq, wc);
        awaitOne(poll, serverCq, wc);
    }

    /** Polls until one completion comes; allocates nothing unless it failed. */
    private static void awaitOne(MemorySegment poll, MemorySegment cq, MemorySegment wc) throws Exception {
        while (Ibv.pollCq(poll, cq, 1, wc) == 0) {
            Thread.onSpinWait();
        }
        if (wc.get(JAVA_INT, IbvAbi.WC_STATUS) != IbvAbi.WC_SUCCESS) {
            throw new IllegalStateException("a completion with status " + wc.get(JAVA_INT, IbvAbi.WC_STATUS));
        }
    }

    private MemorySegment expect(MemorySegment channel, int type) throws Exception {
        MemorySegment e = cm.getCmEvent(arena, channel, errno);
        int got = e.get(JAVA_INT, RdmaCmAbi.CM_EVENT_EVENT);
        if (got != type) {
            int status = e.get(JAVA_INT, RdmaCmAbi.CM_EVENT_STATUS);
            ack(e);
            throw new IllegalStateException("expected RDMA CM event " + type + ", got " + got + " (status " + status
                    + ")");
        }
        return e;
    }

    private void ack(MemorySegment event) throws Exception {
        cm.ackCmEvent(event, errno);
    }

    private static byte[] privateData(MemorySegment event, int length) {
        int len = Byte.toUnsignedInt(event.get(JAVA_BYTE, RdmaCmAbi.CM_EVENT_CONN_PRIVATE_DATA_LEN));
        MemorySegment data = event.get(ADDRESS, RdmaCmAbi.CM_EVENT_CONN_PRIVATE_DATA);
        require(len >= length && !data.equals(MemorySegment.NULL), "private data of " + len + " bytes");
        return data.reinterpret(len).asSlice(0, length).toArray(JAVA_BYTE);
    }

    private MemorySegment connParam(byte[] privateData) {
        MemorySegment data = arena.allocate(privateData.length);
        data.copyFrom(MemorySegment.ofArray(privateData));
        MemorySegment p = arena.allocate(RdmaCmAbi.CONN_PARAM_SIZE, 8);
        p.set(ADDRESS, RdmaCmAbi.CONN_PARAM_PRIVATE_DATA, data);
        p.set(JAVA_BYTE, RdmaCmAbi.CONN_PARAM_PRIVATE_DATA_LEN, (byte) privateData.length);
        p.set(JAVA_BYTE, RdmaCmAbi.CONN_PARAM_RESPONDER_RESOURCES, (byte) 4);
        p.set(JAVA_BYTE, RdmaCmAbi.CONN_PARAM_INITIATOR_DEPTH, (byte) 4);
        p.set(JAVA_BYTE, RdmaCmAbi.CONN_PARAM_RETRY_COUNT, (byte) 7);
        p.set(JAVA_BYTE, RdmaCmAbi.CONN_PARAM_RNR_RETRY_COUNT, (byte) 7);
        return p;
    }

    private MemorySegment qpAttr(MemorySegment cq) {
        MemorySegment a = arena.allocate(IbvAbi.QP_INIT_ATTR_SIZE, 8);
        a.set(ADDRESS, IbvAbi.QP_INIT_ATTR_SEND_CQ, cq);
        a.set(ADDRESS, IbvAbi.QP_INIT_ATTR_RECV_CQ, cq);
        long cap = IbvAbi.QP_INIT_ATTR_CAP;
        a.set(JAVA_INT, cap + IbvAbi.QP_CAP_MAX_SEND_WR, 16);
        a.set(JAVA_INT, cap + IbvAbi.QP_CAP_MAX_RECV_WR, 16);
        a.set(JAVA_INT, cap + IbvAbi.QP_CAP_MAX_SEND_SGE, 1);
        a.set(JAVA_INT, cap + IbvAbi.QP_CAP_MAX_RECV_SGE, 1);
        a.set(JAVA_INT, IbvAbi.QP_INIT_ATTR_QP_TYPE, IbvAbi.QPT_RC);
        return a;
    }

    private MemorySegment sge(MemorySegment buffer, int length, int lkey) {
        MemorySegment s = arena.allocate(IbvAbi.SGE_SIZE, 8);
        s.set(JAVA_LONG, IbvAbi.SGE_ADDR, buffer.address());
        s.set(JAVA_INT, IbvAbi.SGE_LENGTH, length);
        s.set(JAVA_INT, IbvAbi.SGE_LKEY, lkey);
        return s;
    }

    private MemorySegment recvWr(long wrId, MemorySegment sge) {
        MemorySegment w = arena.allocate(IbvAbi.RECV_WR_SIZE, 8);
        w.set(JAVA_LONG, IbvAbi.RECV_WR_WR_ID, wrId);
        w.set(ADDRESS, IbvAbi.RECV_WR_SG_LIST, sge);
        w.set(JAVA_INT, IbvAbi.RECV_WR_NUM_SGE, 1);
        return w;
    }

    private MemorySegment sendWr(long wrId, int opcode, MemorySegment sge, long remoteAddr, int rkey) {
        MemorySegment w = arena.allocate(IbvAbi.SEND_WR_SIZE, 8);
        w.set(JAVA_LONG, IbvAbi.SEND_WR_WR_ID, wrId);
        w.set(ADDRESS, IbvAbi.SEND_WR_SG_LIST, sge);
        w.set(JAVA_INT, IbvAbi.SEND_WR_NUM_SGE, 1);
        w.set(JAVA_INT, IbvAbi.SEND_WR_OPCODE, opcode);
        w.set(JAVA_INT, IbvAbi.SEND_WR_SEND_FLAGS, IbvAbi.SEND_SIGNALED);
        w.set(JAVA_LONG, IbvAbi.SEND_WR_RDMA_REMOTE_ADDR, remoteAddr);
        w.set(JAVA_INT, IbvAbi.SEND_WR_RDMA_RKEY, rkey);
        return w;
    }

    /** Polls {@code cq} until one completion comes; it must be {@code opcode} for {@code wrId} and succeed. */
    private int complete(MemorySegment poll, MemorySegment cq, int opcode, long wrId) throws Exception {
        MemorySegment wc = nextCompletion(poll, cq, wrId);
        int status = wc.get(JAVA_INT, IbvAbi.WC_STATUS);
        require(status == IbvAbi.WC_SUCCESS, "work request " + wrId + " completed with status " + status);
        require(wc.get(JAVA_LONG, IbvAbi.WC_WR_ID) == wrId, "the completion's wr_id " + wc.get(JAVA_LONG, 0));
        require(wc.get(JAVA_INT, IbvAbi.WC_OPCODE) == opcode, "the completion's opcode "
                + wc.get(JAVA_INT, IbvAbi.WC_OPCODE));
        return wc.get(JAVA_INT, IbvAbi.WC_BYTE_LEN);
    }

    private static int mrKey(MemorySegment mr, long offset) {
        return mr.reinterpret(IbvAbi.MR_RKEY + 4).get(JAVA_INT, offset);
    }

    private static byte[] fill(MemorySegment buffer, int length, long seed) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        buffer.asSlice(0, length).copyFrom(MemorySegment.ofArray(b));
        return b;
    }

    private static byte[] bytes(MemorySegment buffer, int length) {
        return buffer.asSlice(0, length).toArray(JAVA_BYTE);
    }

    private static void require(boolean holds, String what) {
        if (!holds) {
            throw new IllegalStateException("failed: " + what);
        }
    }
}
