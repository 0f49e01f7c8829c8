package org.rpcrdma4j.nfs.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.UnknownHostException;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs.server.ExportClients.Access;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;

/** Client specs as {@code /etc/exports} writes them: hosts, subnets, options, and which spec wins. */
class ExportClientsTest {
    private static InetAddress ip(String literal) throws UnknownHostException {
        return InetAddress.getByName(literal);
    }

    @Test
    void aHostBeatsASubnetWhichBeatsEveryHostWhateverTheOrder() throws Exception {
        ExportClients c = ExportClients.parse("*(ro) 10.0.0.0/8(rw) 10.1.2.3(ro) 10.1.0.0/16(ro) 10.1.2.4/32(ro)");
        assertThat(c.access(ip("10.1.2.3"))).isEqualTo(Access.READ_ONLY); // the host
        assertThat(c.access(ip("10.1.9.9"))).as("among subnets the first written, as with Linux's mountd")
                .isEqualTo(Access.READ_WRITE);
        assertThat(c.access(ip("10.1.2.4"))).as("a /32 is a subnet").isEqualTo(Access.READ_WRITE);
        assertThat(c.access(ip("10.2.0.1"))).isEqualTo(Access.READ_WRITE); // /8
        assertThat(c.access(ip("192.168.0.1"))).isEqualTo(Access.READ_ONLY); // *
        assertThat(c.access(null)).isEqualTo(Access.READ_ONLY);
        assertThat(c.isEveryHost()).isFalse();
    }

    @Test
    void aHostNoSpecMatchesGetsNothing() throws Exception {
        ExportClients c = ExportClients.parse("192.168.1.0/255.255.255.0(rw)  fd00::/8(rw)");
        assertThat(c.access(ip("192.168.1.200"))).isEqualTo(Access.READ_WRITE);
        assertThat(c.access(ip("192.168.2.1"))).isEqualTo(Access.NONE);
        assertThat(c.access(ip("fd12::1"))).isEqualTo(Access.READ_WRITE);
        assertThat(c.access(ip("fe80::1"))).isEqualTo(Access.NONE);
        assertThat(c.access(null)).as("an unknown host matches only *").isEqualTo(Access.NONE);
    }

    @Test
    void ipv4ClientsMatchOverIpv6AndTheOtherWayRound() throws Exception {
        ExportClients v4 = ExportClients.parse("10.0.0.0/8(rw)");
        assertThat(v4.access(InetAddress.getByAddress(new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1, 10, 0, 0, 7})))
                .as("an IPv4-mapped IPv6 address").isEqualTo(Access.READ_WRITE);
        ExportClients mapped = ExportClients.parse("::ffff:10.0.0.0/104(rw)");
        assertThat(mapped.access(ip("10.9.9.9"))).isEqualTo(Access.READ_WRITE);
        assertThat(mapped.access(ip("11.0.0.1"))).isEqualTo(Access.NONE);
    }

    @Test
    void optionsAreReadOnlyByDefaultAndOnlyHonestOnesAreTaken() throws Exception {
        assertThat(ExportClients.parse("10.0.0.1").access(ip("10.0.0.1"))).isEqualTo(Access.READ_ONLY);
        assertThat(ExportClients.parse("10.0.0.1()").access(ip("10.0.0.1"))).isEqualTo(Access.READ_ONLY);
        assertThat(ExportClients.parse("10.0.0.1(rw,sync,no_subtree_check,insecure,no_root_squash)")
                .access(ip("10.0.0.1"))).isEqualTo(Access.READ_WRITE);
        assertThat(ExportClients.parse("10.0.0.1(rw,ro)").access(ip("10.0.0.1"))).isEqualTo(Access.READ_ONLY);
        assertThatThrownBy(() -> ExportClients.parse("*(rw,async)"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("async");
        assertThat(ExportClients.parse("*(rw,secure)").grant(null).secure()).isTrue();
        assertThat(ExportClients.parse("*(rw,secure,insecure)").grant(null).secure()).isFalse();
        assertThat(ExportClients.parse("*(rw)").grant(null).secure()).as("this server's default: insecure").isFalse();
        assertThat(ExportClients.parse("*(ro,secure)").grant(null).readOnlyToo().secure()).isTrue();
        assertThatThrownBy(() -> ExportClients.parse("*(rw,anonuid=x)"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("anonuid=x");
    }

    @Test
    void rootIsSquashedByDefaultAsInLinux() throws Exception {
        ExportClients.Grant plain = ExportClients.parse("10.0.0.1(rw)").grant(ip("10.0.0.1"));
        assertThat(plain).isEqualTo(new ExportClients.Grant(false, true, false, 65534, 65534));
        assertThat(ExportClients.parse("*(rw,no_root_squash)").grant(null).rootSquash()).isFalse();
        ExportClients.Grant all = ExportClients.parse("*(all_squash,anonuid=1000,anongid=100)").grant(null);
        assertThat(all).isEqualTo(new ExportClients.Grant(true, true, true, 1000, 100));
        assertThat(ExportClients.everyHost().grant(ip("10.9.9.9"))).isEqualTo(ExportClients.Grant.EVERYTHING);
    }

    @Test
    void malformedSpecsAreRefusedByName() {
        for (String bad : new String[] {"", "  ", "(rw)", "10.0.0.0/33(rw)", "10.0.0.0/x", "10.0.0.0/255.0.255.0",
                "10.0.0.0/ffff::", "10.0.0.1(rw", "10.0.0.1(rw)(ro)", "no-such-host.invalid(rw)", "abc/8"}) {
            assertThatThrownBy(() -> ExportClients.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void theSpecsReadBackAsWritten() {
        ExportClients c = ExportClients.parse("10.0.0.0/8(rw,sync) * 10.1.2.3(no_root_squash,anonuid=7)");
        assertThat(c.toString()).isEqualTo("10.0.0.0/8(rw) *(ro) 10.1.2.3(ro,no_root_squash,anonuid=7)");
        assertThat(c.specs()).extracting(ExportClients.Spec::host).containsExactly("10.0.0.0/8", "*", "10.1.2.3");
        assertThat(ExportClients.everyHost().toString()).isEqualTo("*(rw,no_root_squash)");
        assertThat(ExportClients.everyHost().isEveryHost()).isTrue();
    }

    @Test
    void aReadOnlyExportStaysReadOnlyForEveryHost() throws Exception {
        try (MemoryVfs vfs = new MemoryVfs()) {
            Export e = Export.of("/e", vfs, true, ExportClients.parse("10.0.0.1(rw)"));
            assertThat(e.access(ip("10.0.0.1"))).isEqualTo(Access.READ_ONLY);
            assertThat(e.access(ip("10.0.0.2"))).isEqualTo(Access.NONE);
            assertThat(Export.of("/e", vfs, true).access(null)).isEqualTo(Access.READ_ONLY);
            assertThat(Export.of("/e", vfs, false).access(ip("10.0.0.2"))).isEqualTo(Access.READ_WRITE);
        }
    }
}
