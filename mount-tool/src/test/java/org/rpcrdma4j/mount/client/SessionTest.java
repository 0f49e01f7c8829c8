package org.rpcrdma4j.mount.client;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Which connection failed when an {@code rdma://} mount cannot connect. */
class SessionTest {
    @Test
    void aTcpFailureToTheMountPortIsRecognisedByThePortAlone() {
        assertThat(Session.isTcpFailureTo("cannot connect to /127.0.0.1:2004: Connection refused", 2004)).isTrue();
        assertThat(Session.isTcpFailureTo("connection to localhost/127.0.0.1:2004 failed: x", 2004)).isTrue();
        // a longer port that starts with the same digits is another port
        assertThat(Session.isTcpFailureTo("cannot connect to /127.0.0.1:20049: Connection refused", 2004)).isFalse();
        // the RDMA connection's failure is not the MOUNT connection's, even on the same port number
        assertThat(Session.isTcpFailureTo("cannot connect to rdma://127.0.0.1:2004: refused", 2004)).isFalse();
        assertThat(Session.isTcpFailureTo(null, 2004)).isFalse();
    }
}
