package org.rpcrdma4j.verbs.disni;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.verbs.RdmaProvider.Availability;
import org.rpcrdma4j.verbs.disni.DisniAvailability.Findings;
import org.rpcrdma4j.verbs.disni.DisniAvailability.LibraryState;

class DisniAvailabilityTest {
    private static final String PATH = "/usr/java/packages/lib:/usr/lib64:/lib64:/lib:/usr/lib";

    static Findings findings(LibraryState lib, boolean exports, List<String> devices, boolean rdmaCm) {
        return new Findings(lib, lib == LibraryState.LOADED ? null : "java.lang.UnsatisfiedLinkError: detail", PATH,
                exports, devices, rdmaCm);
    }

    @Test
    void everythingPresentIsAvailable() {
        Availability a = DisniAvailability.evaluate(findings(LibraryState.LOADED, true, List.of("mlx5_0"), true));
        assertThat(a.available()).isTrue();
        assertThat(a.reason()).contains("mlx5_0");
    }

    @Test
    void aMissingLibraryIsOneLineThatSaysWhatAndHowAndOffersSoft() {
        Availability a = DisniAvailability.evaluate(findings(LibraryState.NOT_FOUND, true, List.of("rxe0"), true));
        assertThat(a.available()).isFalse();
        assertThat(a.reason())
                .doesNotContain("\n")
                .startsWith("DiSNI provider unavailable: libdisni.so is not installed")
                .contains("java.library.path [" + PATH + "]")
                .contains("libibverbs-dev", "librdmacm-dev", "./autoprepare.sh", "./configure --with-jdk=$JAVA_HOME",
                        "make install", "-Djava.library.path", "LD_LIBRARY_PATH")
                .endsWith("use --provider soft");
        assertThat(a.reason()).doesNotContain("Exception\tat", "at com.ibm");
    }

    @Test
    void everyProblemIsNamedInTheSameLine() {
        Availability a = DisniAvailability.evaluate(findings(LibraryState.NOT_FOUND, false, List.of(), false));
        assertThat(a.reason()).doesNotContain("\n")
                .contains("libdisni.so is not installed")
                .contains("--add-exports java.base/sun.nio.ch=ALL-UNNAMED")
                .contains("no RDMA device", "rdma link add rxe0 type rxe netdev", "rdma link add siw0 type siw")
                .endsWith("-- or use --provider soft");
        assertThat(DisniAvailability.problems(findings(LibraryState.NOT_FOUND, false, List.of(), false))).hasSize(3);
    }

    @Test
    void theJvmOptionAloneIsReported() {
        Availability a = DisniAvailability.evaluate(findings(LibraryState.LOADED, false, List.of("siw0"), true));
        assertThat(a.available()).isFalse();
        assertThat(a.reason()).isEqualTo("DiSNI provider unavailable: " + DisniAvailability.MISSING_EXPORTS
                + " -- or use --provider soft");
    }

    @Test
    void aMissingRdmaCmNodeAsksForRdmaUcm() {
        Availability a = DisniAvailability.evaluate(findings(LibraryState.LOADED, true, List.of("siw0"), false));
        assertThat(a.reason()).contains("modprobe rdma_ucm");
    }

    @Test
    void whatLoadingThrewIsClassified() {
        assertThat(DisniAvailability.classify(null)).isEqualTo(LibraryState.LOADED);
        assertThat(DisniAvailability.classify(new UnsatisfiedLinkError("no disni in java.library.path: /usr/lib")))
                .isEqualTo(LibraryState.NOT_FOUND);
        assertThat(DisniAvailability.classify(new UnsatisfiedLinkError(
                "/usr/local/lib/libdisni.so.0.0.0: libibverbs.so.1: cannot open shared object file")))
                .isEqualTo(LibraryState.DEPENDENCY_MISSING);
        assertThat(DisniAvailability.classify(new NoClassDefFoundError(
                "Could not initialize class com.ibm.disni.verbs.impl.NativeDispatcher")))
                .isEqualTo(LibraryState.FAILED_EARLIER);
        assertThat(DisniAvailability.classify(new IOException("jverbs outdated, version found 31, version required 32")))
                .isEqualTo(LibraryState.VERSION_MISMATCH);
        assertThat(DisniAvailability.classify(new IllegalStateException("odd"))).isEqualTo(LibraryState.FAILED);
    }

    @Test
    void eachLibraryStateHasItsAdvice() {
        assertThat(DisniAvailability.describe(LibraryState.DEPENDENCY_MISSING, "libibverbs.so.1 missing", PATH))
                .contains("libibverbs1", "librdmacm1");
        assertThat(DisniAvailability.describe(LibraryState.VERSION_MISMATCH, "jverbs outdated", PATH))
                .contains("rebuild it from DiSNI 2.1");
        assertThat(DisniAvailability.describe(LibraryState.FAILED_EARLIER, "x", PATH)).contains(PATH);
        assertThat(DisniAvailability.describe(LibraryState.FAILED, "x", PATH)).contains("./autoprepare.sh");
    }
}
