package org.rpcrdma4j.verbs.disni;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.verbs.VerbsException;

class DisniErrorsTest {

    @Test
    void anErrnoInTheMessageIsNamed() {
        VerbsException e = DisniErrors.failure("ibv_post_send", new IOException("post send failed, errno 12"));
        assertThat(e).hasMessage("ibv_post_send failed: post send failed, errno 12 (ENOMEM: out of memory or queue "
                + "full (or the locked-memory limit, ulimit -l))");
        assertThat(e.getCause()).isInstanceOf(IOException.class);
        assertThat(DisniErrors.errno("Memory registration failed with -22")).isEqualTo(22);
        assertThat(DisniErrors.errno("error: 110")).isEqualTo(110);
        assertThat(DisniErrors.errno("Polling CQ failed")).isEqualTo(-1);
        assertThat(DisniErrors.errno(null)).isEqualTo(-1);
    }

    @Test
    void messagesWithoutErrnoStayAsTheyAre() {
        assertThat(DisniErrors.failure("ibv_poll_cq", new IOException("Polling CQ failed")))
                .hasMessage("ibv_poll_cq failed: Polling CQ failed");
        assertThat(DisniErrors.failure("x", new IOException((String) null))).hasMessage("x failed: IOException");
        assertThat(DisniErrors.failure("x", new IOException("errno 250"))).hasMessage("x failed: errno 250");
    }

    @Test
    void aRefusedConnectionIsRecognisedInLibdisnisMessages() {
        assertThat(DisniErrors.connectionRefused(
                new IOException("j2c::connect: rdma_connect failed: Connection refused\n"))).isTrue();
        assertThat(DisniErrors.connectionRefused(new IOException("connect failed, errno 111"))).isTrue();
        assertThat(DisniErrors.connectionRefused(new RuntimeException(new IOException("ECONNREFUSED")))).isTrue();
        assertThat(DisniErrors.connectionRefused(
                new IOException("j2c::connect: rdma_connect failed: Connection timed out\n"))).isFalse();
        assertThat(DisniErrors.connectionRefused(new IOException((String) null))).isFalse();
    }

    @Test
    void theErrnosOfRdmaVerbsHaveNames() {
        assertThat(DisniErrors.errnoName(22)).startsWith("EINVAL");
        assertThat(DisniErrors.errnoName(111)).startsWith("ECONNREFUSED");
        assertThat(DisniErrors.errnoName(110)).startsWith("ETIMEDOUT");
        assertThat(DisniErrors.errnoName(19)).startsWith("ENODEV");
        assertThat(DisniErrors.errnoName(1000)).isNull();
    }

    @Test
    void aVerbsExceptionPassesThrough() {
        VerbsException original = new VerbsException("already clear");
        assertThat(DisniErrors.failure("x", original)).isSameAs(original);
    }

    @Test
    void theMissingLibraryBecomesTheInstallAdvice() {
        VerbsException first = DisniErrors.failure("rdma_create_event_channel",
                new UnsatisfiedLinkError("no disni in java.library.path: /usr/lib"));
        assertThat(first.getMessage())
                .startsWith("rdma_create_event_channel failed: libdisni.so is not installed")
                .contains("./autoprepare.sh", "--with-jdk", "make install", "LD_LIBRARY_PATH");

        VerbsException later = DisniErrors.failure("ibv_reg_mr",
                new NoClassDefFoundError("Could not initialize class com.ibm.disni.verbs.impl.NativeDispatcher"));
        assertThat(later.getMessage()).contains("failed to load earlier in this JVM", "java.library.path");
    }

    @Test
    void theMissingExportBecomesTheJvmOption() {
        IllegalAccessError iae = new IllegalAccessError("class com.ibm.disni.util.MemoryUtils (in unnamed module) "
                + "cannot access class sun.nio.ch.DirectBuffer (in module java.base) because module java.base does "
                + "not export sun.nio.ch to unnamed module");
        assertThat(DisniErrors.failure("ibv_reg_mr", new RuntimeException("wrapped", iae)).getMessage())
                .contains("--add-exports java.base/sun.nio.ch=ALL-UNNAMED");
        assertThat(DisniErrors.linkageProblem(new IOException("plain"))).isNull();
    }
}
