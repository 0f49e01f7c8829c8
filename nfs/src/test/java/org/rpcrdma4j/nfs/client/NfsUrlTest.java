package org.rpcrdma4j.nfs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class NfsUrlTest {
    @Test
    void tcpDefaultsToPort2049WithMountOnTheSamePort() {
        NfsUrl u = NfsUrl.parse("tcp://server/export/data");
        assertThat(u).isEqualTo(new NfsUrl("tcp", "server", 2049, "/export/data", 2049, "", false, false));
        assertThat(u.portGiven()).as("the port is the default: a portmapper may be asked").isFalse();
        assertThat(NfsUrl.parse("nfs://server:3049/x").mountPort()).isEqualTo(3049);
        assertThat(NfsUrl.parse("tcp://server:3049/x?mountport=635").mountPort()).isEqualTo(635);
    }

    @Test
    void rdmaDefaultsToPort20049WithMountOverTcp2049() {
        assertThat(NfsUrl.parse("rdma://10.0.0.1/export"))
                .isEqualTo(new NfsUrl("rdma", "10.0.0.1", 20049, "/export", 2049, "", false, false));
        assertThat(NfsUrl.parse("RDMA://h:1234/e?mountport=20048"))
                .isEqualTo(new NfsUrl("rdma", "h", 1234, "/e", 20048));
        for (String u : new String[] {"rdma://h/e", "rdma://h:1/e", "rdma://h/e?mountport=5&vers=3", "tcp://h/e?vers=4.1"}) {
            assertThat(NfsUrl.parse(NfsUrl.parse(u).toString())).as(u).isEqualTo(NfsUrl.parse(u));
            assertThat(NfsUrl.parse(u).toString()).isEqualTo(u);
        }
    }

    @Test
    void ipv6AndEscapes() {
        NfsUrl u = NfsUrl.parse("tcp://[::1]:2050/with%20space+plus");
        assertThat(u.host()).isEqualTo("::1");
        assertThat(u.export()).isEqualTo("/with space+plus");
        assertThat(u.toString()).startsWith("tcp://[::1]:2050/");
        assertThat(NfsUrl.parse("tcp://h").export()).isEqualTo("/");
    }

    @Test
    void badUrls() {
        for (String bad : new String[] {"server/export", "tcp:///export", "tcp://h:0/x", "tcp://h/x?mountport=x",
            "tcp://h/x?timeo=3", "foo://h/x", "tcp://user@h/x", "tcp://h:70000/x"}) {
            assertThatThrownBy(() -> NfsUrl.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
