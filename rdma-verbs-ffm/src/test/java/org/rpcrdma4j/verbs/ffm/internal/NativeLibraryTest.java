package org.rpcrdma4j.verbs.ffm.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.ValueLayout;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.testsupport.RequiredPeer;
import org.rpcrdma4j.verbs.VerbsException;

/** Opening rdma-core's libraries: what a missing library or function says, and that the real ones load. */
class NativeLibraryTest {

    @Test
    void aMissingLibraryIsOneLineNamingItAndTheSoftDevice() {
        assertThatThrownBy(() -> NativeLibrary.open("libibverbs-missing.so.9"))
                .isInstanceOf(VerbsException.class)
                .hasMessageContaining("libibverbs-missing.so.9")
                .hasMessageContaining("--provider soft")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void rdmaCoresLibrariesLoadAndAMissingFunctionIsNamed() throws Exception {
        NativeLibrary ibverbs = openOrSkip(NativeLibrary.IBVERBS);
        NativeLibrary rdmacm = openOrSkip(NativeLibrary.RDMACM);
        assertThat(ibverbs.name()).isEqualTo("libibverbs.so.1");
        assertThat(ibverbs.function("ibv_get_device_name",
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS))).isNotNull();
        assertThat(rdmacm.function("rdma_create_event_channel", FunctionDescriptor.of(ValueLayout.ADDRESS)))
                .isNotNull();
        assertThatThrownBy(() -> ibverbs.function("ibv_no_such_verb", FunctionDescriptor.ofVoid()))
                .isInstanceOf(VerbsException.class).hasMessageContaining("ibv_no_such_verb")
                .hasMessageContaining("libibverbs.so.1");
    }

    @Test
    void errnoIsNamedAsTheCLibraryNamesIt() {
        assertThat(Errno.describe(2)).isEqualTo("No such file or directory");
        assertThat(Errno.failure("ibv_reg_mr", 12, "4096 bytes at 0x1000"))
                .hasMessage("ibv_reg_mr failed: errno 12 (Cannot allocate memory): 4096 bytes at 0x1000")
                .satisfies(e -> {
                    assertThat(e.verb()).isEqualTo("ibv_reg_mr");
                    assertThat(e.errno()).isEqualTo(12);
                });
    }

    private static NativeLibrary openOrSkip(String soname) {
        try {
            return NativeLibrary.open(soname);
        } catch (VerbsException e) {
            RequiredPeer.require("rdma-core's " + soname, e.getMessage());
            throw new AssertionError(e);
        }
    }
}
