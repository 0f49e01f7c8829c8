package org.rpcrdma4j.verbs.ffm.internal;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;

import org.junit.jupiter.api.Test;

/** The socket addresses handed to librdmacm and read back from its identifiers, IPv4 and IPv6. */
class SockaddrTest {

    @Test
    void anIpv4AddressIsASockaddrIn() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            InetSocketAddress a = new InetSocketAddress(InetAddress.getByName("10.0.2.15"), 20049);
            MemorySegment s = RdmaCm.sockaddr(arena, a);
            assertThat(s.byteSize()).isEqualTo(RdmaCm.SOCKADDR_IN_SIZE);
            assertThat(s.get(JAVA_SHORT, 0)).as("AF_INET").isEqualTo((short) 2);
            assertThat(s.asSlice(2, 6).toArray(JAVA_BYTE)).as("the port and the address, in network order")
                    .containsExactly(0x4e, 0x51, 10, 0, 2, 15);
            assertThat(RdmaCm.socketAddress(s)).isEqualTo(a);
        }
    }

    @Test
    void anIpv6AddressIsASockaddrIn6WithItsScope() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            InetSocketAddress global = new InetSocketAddress(InetAddress.getByName("fd00::2:15"), 20049);
            MemorySegment s = RdmaCm.sockaddr(arena, global);
            assertThat(s.byteSize()).isEqualTo(RdmaCm.SOCKADDR_IN6_SIZE);
            assertThat(s.get(JAVA_SHORT, 0)).as("AF_INET6").isEqualTo((short) 10);
            assertThat(s.asSlice(2, 2).toArray(JAVA_BYTE)).containsExactly(0x4e, 0x51);
            assertThat(s.asSlice(RdmaCm.SIN6_ADDR, 16).toArray(JAVA_BYTE))
                    .containsExactly(global.getAddress().getAddress());
            assertThat(RdmaCm.socketAddress(s)).isEqualTo(global);

            InetAddress linkLocal = Inet6Address.getByAddress(null,
                    InetAddress.getByName("fe80::1").getAddress(), 3);
            InetSocketAddress scoped = new InetSocketAddress(linkLocal, 7);
            InetSocketAddress back = RdmaCm.socketAddress(RdmaCm.sockaddr(arena, scoped));
            assertThat(back).isEqualTo(scoped);
            assertThat(((Inet6Address) back.getAddress()).getScopeId()).isEqualTo(3);
        }
    }

    @Test
    void anotherFamilyIsNoAddressAndAnUnresolvedOneIsRefused() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment unix = arena.allocate(RdmaCm.SOCKADDR_IN6_SIZE);
            unix.set(JAVA_SHORT, 0, (short) 1);
            assertThat(RdmaCm.socketAddress(unix)).isNull();
            assertThatThrownBy(() -> RdmaCm.sockaddr(arena, InetSocketAddress.createUnresolved("nfs", 20049)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unresolved");
        }
    }
}
