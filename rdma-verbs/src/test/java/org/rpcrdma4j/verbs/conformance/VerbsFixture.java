package org.rpcrdma4j.verbs.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.rpcrdma4j.verbs.AcceptParameters;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.ConnectParameters;
import org.rpcrdma4j.verbs.ConnectionEvent;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionInfo;
import org.rpcrdma4j.verbs.ConnectionListener;
import org.rpcrdma4j.verbs.ConnectionRequest;
import org.rpcrdma4j.verbs.DeviceCapability;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairConfig;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RdmaListener;
import org.rpcrdma4j.verbs.RecvWorkRequest;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.ResourceCounts;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.TransportType;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * The base of the provider-neutral conformance suite: opens the devices, makes connected queue pairs, waits for
 * completions and events, and after every test closes what the test made (in reverse order) and asserts that every
 * device's {@link RdmaDevice#resourceCounts()} is back to zero.
 * <p>
 * A provider runs the suite by extending each abstract test class and implementing {@link #newDevice()}; hooks say
 * what it can do ({@link #supports}) and how it behaves where providers legitimately differ.
 */
public abstract class VerbsFixture {
    /** Hang guard for every wait; a wait that takes this long fails the test. */
    protected static final Duration WAIT = Duration.ofSeconds(30);

    protected RdmaDevice device;
    protected RdmaDevice peerDevice;
    private final Deque<AutoCloseable> owned = new ArrayDeque<>();

    /** Opens a fresh device for one test. */
    protected abstract RdmaDevice newDevice() throws Exception;

    /** The device for the passive side of connections; by default a second device from {@link #newDevice()}. */
    protected RdmaDevice newPeerDevice() throws Exception {
        return newDevice();
    }

    /** Where listeners bind (port 0: any). */
    protected InetSocketAddress listenAddress() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    }

    protected boolean supports(DeviceCapability capability) {
        return device.attributes().has(capability) && peerDevice.attributes().has(capability);
    }

    /**
     * Whether a Write or Send the peer refuses completes with the remote error itself (REM_ACCESS_ERR / REM_OP_ERR),
     * as on InfiniBand and on the software device with placement confirmation. On an iWARP RNIC that completes such
     * requests once they are sent (Linux siw), the request may complete successfully (or, when the refusal overtakes
     * its completion, with LOC_QP_OP_ERR) and only the connection breaks;
     * such a provider returns false and the suite then asks only for the broken connection and untouched memory.
     */
    protected boolean remoteErrorsReachTheRequest() {
        return true;
    }

    /** Asserts the completion of a Write or Send the peer refused (see {@link #remoteErrorsReachTheRequest()}). */
    protected void assertRefused(WorkCompletion wc, org.rpcrdma4j.verbs.WcStatus status) {
        if (remoteErrorsReachTheRequest()) {
            assertThat(wc.status).as("completion of the refused request " + wc).isEqualTo(status);
        } else {
            // such an RNIC also completes a Write whose transmission the peer's TERMINATE cut short as a local
            // queue-pair error (siw: LOC_QP_OP_ERR, seen when the refusal overtook the Write's completion)
            assertThat(wc.status).as("completion of the refused request " + wc)
                    .isIn(status, org.rpcrdma4j.verbs.WcStatus.SUCCESS, org.rpcrdma4j.verbs.WcStatus.LOC_QP_OP_ERR);
        }
    }

    /** Asserts the completion of a request posted after a refused one (flushed, or already done where allowed). */
    protected void assertAfterRefused(WorkCompletion wc) {
        if (remoteErrorsReachTheRequest()) {
            assertThat(wc.status).as("completion after the refused request " + wc)
                    .isEqualTo(org.rpcrdma4j.verbs.WcStatus.WR_FLUSH_ERR);
        } else {
            assertThat(wc.status).as("completion after the refused request " + wc)
                    .isIn(org.rpcrdma4j.verbs.WcStatus.WR_FLUSH_ERR, org.rpcrdma4j.verbs.WcStatus.SUCCESS);
        }
    }

    /**
     * Whether the connection manager carries private data both ways (connect, accept, reject). DiSNI delivers none
     * to the Java side; such a provider returns false and the suite skips the checks of the data itself.
     */
    protected boolean privateDataTravels() {
        return true;
    }

    protected boolean iwarp() {
        return device.attributes().transportType() == TransportType.IWARP;
    }

    @BeforeEach
    final void openDevices() throws Exception {
        device = newDevice();
        peerDevice = newPeerDevice();
    }

    @AfterEach
    final void closeAndCheckLeaks() throws Exception {
        Throwable failure = null;
        while (!owned.isEmpty()) {
            try {
                owned.pop().close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = e;
                }
            }
        }
        try {
            ResourceCounts counts = device.resourceCounts();
            ResourceCounts peerCounts = peerDevice.resourceCounts();
            assertThat(counts).as("resources left open on the device").isEqualTo(ResourceCounts.NONE);
            assertThat(peerCounts).as("resources left open on the peer device").isEqualTo(ResourceCounts.NONE);
        } finally {
            if (peerDevice != device) {
                peerDevice.close();
            }
            device.close();
        }
        if (failure != null) {
            throw new AssertionError("closing a test resource failed", failure);
        }
    }

    /** Registers an object to be closed after the test (in reverse order of registration). */
    protected <T extends AutoCloseable> T own(T resource) {
        owned.push(resource);
        return resource;
    }

    // ---------------------------------------------------------------- building blocks

    protected ProtectionDomain pd(RdmaDevice on) throws Exception {
        return own(on.allocProtectionDomain());
    }

    protected CompletionQueue cq(RdmaDevice on, int entries) throws Exception {
        return own(on.createCompletionQueue(entries));
    }

    protected RegisteredMemory register(ProtectionDomain pd, int size, int access) throws Exception {
        return own(pd.registerMemory(ByteBuffer.allocateDirect(size), access));
    }

    /** Fills a buffer with a pattern that depends on {@code seed} and the position. */
    protected static void fill(ByteBuffer buffer, int seed) {
        int x = seed * 0x9E3779B9 | 1;
        for (int i = 0; i < buffer.capacity(); i++) {
            x ^= x << 13;
            x ^= x >>> 17;
            x ^= x << 5;
            buffer.put(i, (byte) x);
        }
    }

    /**
     * The JVM's per-thread allocation counters, for tests that show a path allocates nothing; the test is skipped
     * (with the reason) on a JVM that cannot measure them.
     */
    protected static com.sun.management.ThreadMXBean allocationMeter() {
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        assumeTrue(threads instanceof com.sun.management.ThreadMXBean mx && mx.isThreadAllocatedMemorySupported(),
                "this JVM cannot measure per-thread allocation");
        return (com.sun.management.ThreadMXBean) threads;
    }

    /** Bytes allocated so far by {@code threads} together (threads that ended count nothing). */
    protected static long allocated(com.sun.management.ThreadMXBean mx, long[] threads) {
        long sum = 0;
        for (long bytes : mx.getThreadAllocatedBytes(threads)) {
            if (bytes > 0) {
                sum += bytes;
            }
        }
        return sum;
    }

    protected static byte[] bytes(ByteBuffer buffer, int offset, int length) {
        byte[] b = new byte[length];
        buffer.get(offset, b);
        return b;
    }

    /** Queue sizes of a test queue pair. */
    public record Sizes(int sendWr, int recvWr, int sge, int inline, int cqEntries) {
        public static Sizes defaults() {
            return new Sizes(64, 64, 4, 64, 512);
        }
    }

    /** One side of a connection: its domain, queues and events. */
    protected static final class Endpoint {
        public final ProtectionDomain pd;
        public final CompletionQueue sendCq;
        public final CompletionQueue recvCq;
        public final QueuePair qp;
        public final Events events = new Events();
        public ConnectionInfo info;

        Endpoint(ProtectionDomain pd, CompletionQueue sendCq, CompletionQueue recvCq, QueuePair qp) {
            this.pd = pd;
            this.sendCq = sendCq;
            this.recvCq = recvCq;
            this.qp = qp;
        }
    }

    /** A connected pair: the active side ({@code client}, on {@link #device}) and the passive side. */
    public record Connection(Endpoint client, Endpoint server) {
    }

    /** Records connection events. */
    protected static final class Events implements ConnectionListener {
        private final LinkedBlockingQueue<ConnectionEvent> queue = new LinkedBlockingQueue<>();
        private final List<ConnectionEvent> all = new ArrayList<>();

        @Override
        public void onEvent(ConnectionEvent event) {
            synchronized (all) {
                all.add(event);
            }
            queue.add(event);
        }

        /** Waits for the next event of this type (skipping others). */
        public ConnectionEvent await(ConnectionEventType type) throws InterruptedException {
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (true) {
                long left = deadline - System.nanoTime();
                ConnectionEvent e = queue.poll(Math.max(0, left), TimeUnit.NANOSECONDS);
                if (e == null) {
                    fail("no " + type + " event within " + WAIT + "; seen: " + seen());
                }
                if (e.type() == type) {
                    return e;
                }
            }
        }

        public List<ConnectionEventType> seen() {
            synchronized (all) {
                List<ConnectionEventType> types = new ArrayList<>();
                all.forEach(e -> types.add(e.type()));
                return types;
            }
        }

        public long count(ConnectionEventType type) {
            return seen().stream().filter(t -> t == type).count();
        }
    }

    protected Endpoint endpoint(RdmaDevice on, Sizes sizes) throws Exception {
        return endpoint(pd(on), sizes);
    }

    protected Endpoint endpoint(ProtectionDomain pd, Sizes sizes) throws Exception {
        RdmaDevice on = pd.device();
        CompletionQueue sendCq = cq(on, sizes.cqEntries());
        CompletionQueue recvCq = cq(on, sizes.cqEntries());
        QueuePair qp = own(pd.createQueuePair(new QueuePairConfig(sendCq, recvCq, sizes.sendWr(), sizes.recvWr(),
                sizes.sge(), sizes.sge(), sizes.inline())));
        return new Endpoint(pd, sendCq, recvCq, qp);
    }

    protected Connection connect() throws Exception {
        return connect(Sizes.defaults());
    }

    protected Connection connect(Sizes sizes) throws Exception {
        return connect(endpoint(device, sizes), endpoint(peerDevice, sizes), new ConnectParameters(new byte[0], 16, 16),
                new AcceptParameters(new byte[0], 16, 16));
    }

    /** Connects {@code client} to {@code server} through a listener on the peer device; waits until both are up. */
    protected Connection connect(Endpoint client, Endpoint server, ConnectParameters connect,
                                 AcceptParameters accept) throws Exception {
        CompletableFuture<ConnectionRequest> requested = new CompletableFuture<>();
        RdmaListener listener = own(server.pd.device().connectionManager().listen(listenAddress(),
                requested::complete));
        CompletableFuture<ConnectionInfo> future = device(client).connectionManager().connect(client.qp,
                listener.localAddress(), connect, client.events);
        ConnectionRequest request = requested.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        request.accept(server.qp, accept, server.events);
        client.info = future.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        server.events.await(ConnectionEventType.ESTABLISHED);
        server.info = server.qp.connectionInfo();
        return new Connection(client, server);
    }

    private static RdmaDevice device(Endpoint endpoint) {
        return endpoint.pd.device();
    }

    // ---------------------------------------------------------------- completions

    /** Completions polled from a queue but not yet handed to the test, per queue. */
    private final java.util.Map<CompletionQueue, Deque<WorkCompletion>> backlog = new java.util.IdentityHashMap<>();

    private Deque<WorkCompletion> backlog(CompletionQueue cq) {
        return backlog.computeIfAbsent(cq, q -> new ArrayDeque<>());
    }

    private void pollInto(CompletionQueue cq) {
        WorkCompletion[] batch = new WorkCompletion[16];
        for (int i = 0; i < batch.length; i++) {
            batch[i] = new WorkCompletion();
        }
        int got;
        while ((got = cq.poll(batch)) > 0) {
            for (int i = 0; i < got; i++) {
                backlog(cq).add(new WorkCompletion().copyFrom(batch[i]));
            }
        }
    }

    /** Waits for one completion (hang guard {@link #WAIT}) and returns a copy. */
    protected WorkCompletion await(CompletionQueue cq) {
        return awaitAll(cq, 1).get(0);
    }

    /** Waits for {@code n} completions and returns copies, oldest first. */
    protected List<WorkCompletion> awaitAll(CompletionQueue cq, int n) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        Deque<WorkCompletion> pending = backlog(cq);
        while (pending.size() < n) {
            pollInto(cq);
            if (pending.size() >= n) {
                break;
            }
            if (System.nanoTime() - deadline > 0) {
                fail("only " + pending.size() + " of " + n + " completions within " + WAIT + ": " + pending);
            }
            LockSupport.parkNanos(50_000);
        }
        List<WorkCompletion> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(pending.poll());
        }
        return out;
    }

    /** Waits for the completion of {@code wrId}; completions before it are dropped, later ones kept. */
    protected WorkCompletion awaitWrId(CompletionQueue cq, long wrId) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        Deque<WorkCompletion> pending = backlog(cq);
        List<WorkCompletion> skipped = new ArrayList<>();
        while (System.nanoTime() - deadline < 0) {
            pollInto(cq);
            while (!pending.isEmpty()) {
                WorkCompletion wc = pending.poll();
                if (wc.wrId == wrId) {
                    return wc;
                }
                skipped.add(wc);
            }
            LockSupport.parkNanos(50_000);
        }
        throw new AssertionError("no completion of wr " + wrId + " within " + WAIT + "; seen " + skipped);
    }

    /** Whatever completions are there now. */
    protected List<WorkCompletion> drain(CompletionQueue cq) {
        pollInto(cq);
        List<WorkCompletion> out = new ArrayList<>(backlog(cq));
        backlog(cq).clear();
        return out;
    }

    // ---------------------------------------------------------------- work requests

    protected static RecvWorkRequest recv(long wrId, RegisteredMemory mr, long offset, int length) {
        RecvWorkRequest wr = new RecvWorkRequest(4);
        wr.wrId = wrId;
        wr.addSge().set(mr, offset, length);
        return wr;
    }

    protected static SendWorkRequest send(long wrId, RegisteredMemory mr, long offset, int length) {
        SendWorkRequest wr = new SendWorkRequest(4);
        wr.wrId = wrId;
        wr.opcode = org.rpcrdma4j.verbs.Opcode.SEND;
        wr.flags = SendWorkRequest.SIGNALED;
        wr.addSge().set(mr, offset, length);
        return wr;
    }

    protected static SendWorkRequest write(long wrId, RegisteredMemory src, long offset, int length, int rkey,
                                           long remoteAddress) {
        SendWorkRequest wr = send(wrId, src, offset, length);
        wr.opcode = org.rpcrdma4j.verbs.Opcode.RDMA_WRITE;
        wr.rkey = rkey;
        wr.remoteAddress = remoteAddress;
        return wr;
    }

    protected static SendWorkRequest read(long wrId, RegisteredMemory sink, long offset, int length, int rkey,
                                          long remoteAddress) {
        SendWorkRequest wr = write(wrId, sink, offset, length, rkey, remoteAddress);
        wr.opcode = org.rpcrdma4j.verbs.Opcode.RDMA_READ;
        return wr;
    }

    /**
     * A page list over {@code length} bytes of {@code memory} starting at {@code offset}: 4 KiB page views of a
     * page-aligned direct buffer, mapped at {@code iova}.
     */
    protected static org.rpcrdma4j.verbs.PageList pageList(ByteBuffer alignedMemory, int offset, int length,
                                                           long iova) {
        int pageSize = org.rpcrdma4j.verbs.PageList.DEFAULT_PAGE_SIZE;
        int first = offset / pageSize;
        int last = (offset + Math.max(length, 1) - 1) / pageSize;
        org.rpcrdma4j.verbs.PageList list = new org.rpcrdma4j.verbs.PageList(last - first + 1);
        for (int p = first; p <= last; p++) {
            list.add(alignedMemory.slice(p * pageSize, pageSize));
        }
        return list.set(offset % pageSize, length, iova);
    }

    /**
     * Memory of {@code pages} 4 KiB pages for fast registrations made on {@code pd}. Plain page-aligned memory mapped
     * from {@code iova}; on a device that binds memory windows ({@link DeviceCapability#MEMORY_WINDOW}) memory
     * registered on {@code pd}, mapped at its own addresses (what a window can bind).
     */
    protected FastRegMemory fastRegMemory(ProtectionDomain pd, int pages, long iova) throws Exception {
        if (!device.attributes().has(DeviceCapability.MEMORY_WINDOW)) {
            return new FastRegMemory(pages(pages), null, iova);
        }
        RegisteredMemory backing = register(pd, pages * 4096, org.rpcrdma4j.verbs.Access.LOCAL_WRITE);
        return new FastRegMemory(backing.buffer(), org.rpcrdma4j.verbs.PageTable.of(backing, 4096), backing.iova());
    }

    /**
     * Memory a test maps with fast registration: byte {@code offset} is at IOVA {@link #iova(int)}.
     *
     * @param memory the pages
     * @param table  their table over registered memory (a window binds a run of it), or null for plain memory
     * @param base   the IOVA of byte 0
     */
    protected record FastRegMemory(ByteBuffer memory, org.rpcrdma4j.verbs.PageTable table, long base) {
        long iova(int offset) {
            return base + offset;
        }

        /** A page list over {@code length} bytes from {@code offset}, mapped at {@link #iova(int) iova(offset)}. */
        org.rpcrdma4j.verbs.PageList pageList(int offset, int length) {
            if (table == null) {
                return VerbsFixture.pageList(memory, offset, length, iova(offset));
            }
            int first = offset / 4096;
            int n = (offset + Math.max(length, 1) - 1) / 4096 - first + 1;
            return new org.rpcrdma4j.verbs.PageList(n).addRun(table, first, n).set(offset % 4096, length,
                    iova(offset));
        }
    }

    /** A page-aligned direct buffer of {@code pages} 4 KiB pages. */
    protected static ByteBuffer pages(int pages) {
        return ByteBuffer.allocateDirect((pages + 1) * 4096).alignedSlice(4096).limit(pages * 4096).slice();
    }

    /** A signaled REG_MR request mapping {@code list} on {@code mr} with the next key. */
    protected static SendWorkRequest fastRegister(long wrId, org.rpcrdma4j.verbs.FastRegMemoryRegion mr,
                                                  org.rpcrdma4j.verbs.PageList list, int access) {
        SendWorkRequest wr = new SendWorkRequest(1);
        wr.wrId = wrId;
        wr.opcode = org.rpcrdma4j.verbs.Opcode.REG_MR;
        wr.flags = SendWorkRequest.SIGNALED;
        wr.mr = mr;
        wr.pageList = list;
        wr.access = access;
        wr.key = org.rpcrdma4j.verbs.Stag.nextKey(mr.rkey());
        return wr;
    }

    protected static SendWorkRequest localInvalidate(long wrId, int stag) {
        SendWorkRequest wr = new SendWorkRequest(1);
        wr.wrId = wrId;
        wr.opcode = org.rpcrdma4j.verbs.Opcode.LOCAL_INV;
        wr.flags = SendWorkRequest.SIGNALED;
        wr.invalidateStag = stag;
        return wr;
    }

    /**
     * Asserts that a connection broke: both sides report DISCONNECTED, and a request posted now on either side is
     * flushed.
     */
    protected void assertBroken(Connection c) throws Exception {
        c.client().events.await(ConnectionEventType.DISCONNECTED);
        c.server().events.await(ConnectionEventType.DISCONNECTED);
        for (Endpoint e : new Endpoint[] {c.client(), c.server()}) {
            assertThat(e.qp.state()).isEqualTo(org.rpcrdma4j.verbs.QpState.ERROR);
            RegisteredMemory scratch = register(e.pd, 64, org.rpcrdma4j.verbs.Access.LOCAL_WRITE);
            e.qp.postRecv(recv(0xF1, scratch, 0, 64));
            e.qp.postSend(send(0xF2, scratch, 0, 64));
            assertThat(awaitWrId(e.recvCq, 0xF1).status).isEqualTo(org.rpcrdma4j.verbs.WcStatus.WR_FLUSH_ERR);
            assertThat(awaitWrId(e.sendCq, 0xF2).status).isEqualTo(org.rpcrdma4j.verbs.WcStatus.WR_FLUSH_ERR);
        }
        assertThat(c.client().events.count(ConnectionEventType.DISCONNECTED)).isEqualTo(1);
        assertThat(c.server().events.count(ConnectionEventType.DISCONNECTED)).isEqualTo(1);
    }

    /** Links work requests into a chain and returns its head. */
    protected static SendWorkRequest chain(SendWorkRequest... wrs) {
        for (int i = 0; i + 1 < wrs.length; i++) {
            wrs[i].next = wrs[i + 1];
        }
        return wrs[0];
    }

    /** Runs {@code task} on another thread and waits (hang guard) — for calls that must not block a test forever. */
    protected static <T> T within(java.util.concurrent.Callable<T> task) throws Exception {
        CompletableFuture<T> f = CompletableFuture.supplyAsync(() -> {
            try {
                return task.call();
            } catch (Exception e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        });
        try {
            return f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("did not finish within " + WAIT, e);
        }
    }
}
