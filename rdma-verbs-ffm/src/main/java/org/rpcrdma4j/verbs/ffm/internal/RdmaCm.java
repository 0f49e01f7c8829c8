package org.rpcrdma4j.verbs.ffm.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import org.rpcrdma4j.verbs.VerbsException;

/**
 * librdmacm's connection manager as downcalls: event channels, identifiers, address and route resolution, listening,
 * connecting and accepting (with RFC 8797 private data and IRD/ORD in {@code rdma_conn_param}), events. Its functions
 * return -1 and set {@code errno}; each failure is an {@link org.rpcrdma4j.verbs.ffm.FfmVerbsException} naming the
 * function.
 */
public final class RdmaCm {
    /** {@code struct sockaddr_in}. */
    public static final long SOCKADDR_IN_SIZE = 16;
    /** {@code struct sockaddr_in6}: family, port, flow information, the address, its scope. */
    public static final long SOCKADDR_IN6_SIZE = 28;
    /** Where {@code sockaddr_in6} has {@code sin6_addr} and {@code sin6_scope_id}. */
    static final long SIN6_ADDR = 8;
    static final long SIN6_SCOPE_ID = 24;
    private static final short AF_INET = 2;
    private static final short AF_INET6 = 10;

    private final MethodHandle createEventChannel;
    private final MethodHandle destroyEventChannel;
    private final MethodHandle createId;
    private final MethodHandle destroyId;
    private final MethodHandle bindAddr;
    private final MethodHandle listen;
    private final MethodHandle resolveAddr;
    private final MethodHandle resolveRoute;
    private final MethodHandle createQp;
    private final MethodHandle destroyQp;
    private final MethodHandle connect;
    private final MethodHandle accept;
    private final MethodHandle disconnect;
    private final MethodHandle getCmEvent;
    private final MethodHandle ackCmEvent;
    private final MethodHandle reject;
    private final MethodHandle getDevices;
    private final MethodHandle freeDevices;

    public RdmaCm(NativeLibrary rdmacm) throws VerbsException {
        createEventChannel = rdmacm.function("rdma_create_event_channel", FunctionDescriptor.of(ADDRESS),
                Errno.CAPTURE);
        destroyEventChannel = rdmacm.function("rdma_destroy_event_channel", FunctionDescriptor.ofVoid(ADDRESS));
        createId = rdmacm.function("rdma_create_id",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT), Errno.CAPTURE);
        destroyId = rdmacm.function("rdma_destroy_id", FunctionDescriptor.of(JAVA_INT, ADDRESS), Errno.CAPTURE);
        bindAddr = rdmacm.function("rdma_bind_addr", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS),
                Errno.CAPTURE);
        listen = rdmacm.function("rdma_listen", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), Errno.CAPTURE);
        resolveAddr = rdmacm.function("rdma_resolve_addr",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT), Errno.CAPTURE);
        resolveRoute = rdmacm.function("rdma_resolve_route", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT),
                Errno.CAPTURE);
        createQp = rdmacm.function("rdma_create_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS),
                Errno.CAPTURE);
        destroyQp = rdmacm.function("rdma_destroy_qp", FunctionDescriptor.ofVoid(ADDRESS));
        connect = rdmacm.function("rdma_connect", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), Errno.CAPTURE);
        accept = rdmacm.function("rdma_accept", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), Errno.CAPTURE);
        disconnect = rdmacm.function("rdma_disconnect", FunctionDescriptor.of(JAVA_INT, ADDRESS), Errno.CAPTURE);
        getCmEvent = rdmacm.function("rdma_get_cm_event", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS),
                Errno.CAPTURE);
        ackCmEvent = rdmacm.function("rdma_ack_cm_event", FunctionDescriptor.of(JAVA_INT, ADDRESS), Errno.CAPTURE);
        reject = rdmacm.function("rdma_reject", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_BYTE),
                Errno.CAPTURE);
        getDevices = rdmacm.function("rdma_get_devices", FunctionDescriptor.of(ADDRESS, ADDRESS), Errno.CAPTURE);
        freeDevices = rdmacm.function("rdma_free_devices", FunctionDescriptor.ofVoid(ADDRESS));
    }

    /** {@code rdma_create_event_channel}. */
    public MemorySegment createEventChannel(MemorySegment errno) throws VerbsException {
        return Ibv.nonNull(Ibv.call(() -> (MemorySegment) createEventChannel.invokeExact(errno)),
                "rdma_create_event_channel", errno, null);
    }

    /** {@code rdma_destroy_event_channel}. */
    public void destroyEventChannel(MemorySegment channel) throws VerbsException {
        Ibv.call(() -> {
            destroyEventChannel.invokeExact(channel);
            return null;
        });
    }

    /** {@code rdma_create_id} for a reliable connection ({@code RDMA_PS_TCP}). */
    public MemorySegment createId(Arena arena, MemorySegment channel, MemorySegment errno) throws VerbsException {
        MemorySegment out = arena.allocate(ADDRESS);
        check("rdma_create_id", Ibv.call(() -> (int) createId.invokeExact(errno, channel, out, MemorySegment.NULL,
                RdmaCmAbi.PS_TCP)), errno, null);
        return out.get(ADDRESS, 0);
    }

    /** {@code rdma_destroy_id}. */
    public void destroyId(MemorySegment id, MemorySegment errno) throws VerbsException {
        check("rdma_destroy_id", Ibv.call(() -> (int) destroyId.invokeExact(errno, id)), errno, null);
    }

    /** {@code rdma_bind_addr}. */
    public void bindAddr(MemorySegment id, MemorySegment sockaddr, MemorySegment errno) throws VerbsException {
        check("rdma_bind_addr", Ibv.call(() -> (int) bindAddr.invokeExact(errno, id, sockaddr)), errno, null);
    }

    /** {@code rdma_listen}. */
    public void listen(MemorySegment id, int backlog, MemorySegment errno) throws VerbsException {
        check("rdma_listen", Ibv.call(() -> (int) listen.invokeExact(errno, id, backlog)), errno, null);
    }

    /** {@code rdma_resolve_addr} to {@code destination}, from any source address. */
    public void resolveAddr(MemorySegment id, MemorySegment destination, int timeoutMs, MemorySegment errno)
            throws VerbsException {
        check("rdma_resolve_addr", Ibv.call(() -> (int) resolveAddr.invokeExact(errno, id, MemorySegment.NULL,
                destination, timeoutMs)), errno, null);
    }

    /** {@code rdma_resolve_route}. */
    public void resolveRoute(MemorySegment id, int timeoutMs, MemorySegment errno) throws VerbsException {
        check("rdma_resolve_route", Ibv.call(() -> (int) resolveRoute.invokeExact(errno, id, timeoutMs)), errno,
                null);
    }

    /** {@code rdma_create_qp}: the identifier's queue pair, in {@code id->qp}. */
    public void createQp(MemorySegment id, MemorySegment pd, MemorySegment initAttr, MemorySegment errno)
            throws VerbsException {
        check("rdma_create_qp", Ibv.call(() -> (int) createQp.invokeExact(errno, id, pd, initAttr)), errno, null);
    }

    /** {@code rdma_destroy_qp}. */
    public void destroyQp(MemorySegment id) throws VerbsException {
        Ibv.call(() -> {
            destroyQp.invokeExact(id);
            return null;
        });
    }

    /** {@code rdma_connect} with {@code param} ({@link RdmaCmAbi#CONN_PARAM_SIZE} bytes). */
    public void connect(MemorySegment id, MemorySegment param, MemorySegment errno) throws VerbsException {
        check("rdma_connect", Ibv.call(() -> (int) connect.invokeExact(errno, id, param)), errno, null);
    }

    /** {@code rdma_accept} with {@code param}. */
    public void accept(MemorySegment id, MemorySegment param, MemorySegment errno) throws VerbsException {
        check("rdma_accept", Ibv.call(() -> (int) accept.invokeExact(errno, id, param)), errno, null);
    }

    /** {@code rdma_disconnect}. */
    public void disconnect(MemorySegment id, MemorySegment errno) throws VerbsException {
        check("rdma_disconnect", Ibv.call(() -> (int) disconnect.invokeExact(errno, id)), errno, null);
    }

    /**
     * {@code rdma_get_cm_event}: the channel's next event, to acknowledge with {@link #ackCmEvent}; null when a
     * non-blocking channel has none (blocking, it waits for one).
     */
    public MemorySegment getCmEvent(Arena arena, MemorySegment channel, MemorySegment errno) throws VerbsException {
        MemorySegment out = arena.allocate(ADDRESS);
        int rc = Ibv.call(() -> (int) getCmEvent.invokeExact(errno, channel, out));
        if (rc != 0 && Errno.of(errno) == Libc.EAGAIN) {
            return null;
        }
        check("rdma_get_cm_event", rc, errno, null);
        return out.get(ADDRESS, 0).reinterpret(RdmaCmAbi.CM_EVENT_SIZE);
    }

    /** {@code rdma_ack_cm_event}. */
    public void ackCmEvent(MemorySegment event, MemorySegment errno) throws VerbsException {
        check("rdma_ack_cm_event", Ibv.call(() -> (int) ackCmEvent.invokeExact(errno, event)), errno, null);
    }

    /** {@code rdma_reject} with {@code privateData} (at most 255 bytes). */
    public void reject(MemorySegment id, MemorySegment privateData, int length, MemorySegment errno)
            throws VerbsException {
        check("rdma_reject", Ibv.call(() -> (int) reject.invokeExact(errno, id, privateData, (byte) length)), errno,
                null);
    }

    /**
     * {@code rdma_get_devices}: the verbs contexts librdmacm opened, one per device; identifiers bound to a device
     * carry one of these in {@code verbs}. Release the list with {@link #freeDevices}.
     */
    public Devices getDevices(MemorySegment errno) throws VerbsException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment count = arena.allocate(JAVA_INT);
            MemorySegment list = Ibv.nonNull(Ibv.call(() -> (MemorySegment) getDevices.invokeExact(errno, count)),
                    "rdma_get_devices", errno, "librdmacm finds no RDMA device here (the modules ib_uverbs, rdma_ucm "
                    + "and a device driver such as rdma_rxe or siw must be loaded); --provider soft runs without "
                    + "RDMA hardware");
            int n = count.get(JAVA_INT, 0);
            MemorySegment all = list.reinterpret(ADDRESS.byteSize() * (n + 1L));
            List<MemorySegment> contexts = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                contexts.add(all.getAtIndex(ADDRESS, i));
            }
            return new Devices(list, List.copyOf(contexts));
        }
    }

    /** {@code rdma_free_devices}. */
    public void freeDevices(Devices devices) throws VerbsException {
        Ibv.call(() -> {
            freeDevices.invokeExact(devices.list());
            return null;
        });
    }

    /** What {@link #getDevices} returned: the list to free, and its verbs contexts. */
    public record Devices(MemorySegment list, List<MemorySegment> contexts) {
    }

    /** The verbs context an identifier is bound to ({@code id->verbs}), as an address; 0 while it is bound to none. */
    public static long verbs(MemorySegment id) {
        return fields(id).get(ADDRESS, RdmaCmAbi.CM_ID_VERBS).address();
    }

    /** The queue pair {@code rdma_create_qp} made on an identifier ({@code id->qp}). */
    public static MemorySegment qp(MemorySegment id) {
        return fields(id).get(ADDRESS, RdmaCmAbi.CM_ID_QP);
    }

    private static MemorySegment fields(MemorySegment id) {
        return id.reinterpret(RdmaCmAbi.CM_ID_PD + ADDRESS.byteSize());
    }

    /** The identifier's local address ({@code rdma_get_local_addr}), or null while it is not bound. */
    public static InetSocketAddress localAddress(MemorySegment id) {
        return address(id, RdmaCmAbi.CM_ID_SRC_ADDR);
    }

    /** The identifier's peer address ({@code rdma_get_peer_addr}), or null while it has none. */
    public static InetSocketAddress peerAddress(MemorySegment id) {
        return address(id, RdmaCmAbi.CM_ID_DST_ADDR);
    }

    private static InetSocketAddress address(MemorySegment id, long offset) {
        return socketAddress(fields(id).asSlice(offset, SOCKADDR_IN6_SIZE));
    }

    /** The address a {@code sockaddr_in} or {@code sockaddr_in6} holds; null for another family. */
    static InetSocketAddress socketAddress(MemorySegment s) {
        short family = s.get(JAVA_SHORT, 0);
        int port = Short.toUnsignedInt(s.get(JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), 2));
        try {
            if (family == AF_INET) {
                return new InetSocketAddress(InetAddress.getByAddress(s.asSlice(4, 4).toArray(JAVA_BYTE)), port);
            }
            if (family == AF_INET6) {
                byte[] ip = s.asSlice(SIN6_ADDR, 16).toArray(JAVA_BYTE);
                int scope = s.get(JAVA_INT, SIN6_SCOPE_ID);
                return new InetSocketAddress(scope == 0 ? InetAddress.getByAddress(ip)
                        : Inet6Address.getByAddress(null, ip, scope), port);
            }
            return null;
        } catch (UnknownHostException e) {
            throw new IllegalStateException("an address of 4 or 16 bytes", e);
        }
    }

    /** A {@code struct sockaddr_in} or {@code sockaddr_in6} for {@code address}, from {@code arena}. */
    public static MemorySegment sockaddr(Arena arena, InetSocketAddress address) {
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("an unresolved address: " + address);
        }
        byte[] ip = address.getAddress().getAddress();
        boolean v6 = address.getAddress() instanceof Inet6Address;
        MemorySegment s = arena.allocate(v6 ? SOCKADDR_IN6_SIZE : SOCKADDR_IN_SIZE, 4);
        s.set(JAVA_SHORT, 0, v6 ? AF_INET6 : AF_INET);
        s.set(JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), 2, (short) address.getPort());
        MemorySegment.copy(ip, 0, s, JAVA_BYTE, v6 ? SIN6_ADDR : 4, ip.length);
        if (v6) {
            s.set(JAVA_INT, SIN6_SCOPE_ID, ((Inet6Address) address.getAddress()).getScopeId());
        }
        return s;
    }

    private static void check(String function, int rc, MemorySegment errno, String context) throws VerbsException {
        if (rc != 0) {
            throw Errno.failure(function, Errno.of(errno), context);
        }
    }
}
