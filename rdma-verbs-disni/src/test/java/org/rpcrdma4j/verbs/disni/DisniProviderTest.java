package org.rpcrdma4j.verbs.disni;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.verbs.RdmaProvider;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.verbs.VerbsException;

class DisniProviderTest {

    /** A machine as a test wants it. */
    static class FakeRuntime implements DisniRuntime {
        Throwable load;
        boolean exports = true;
        List<String> devices = List.of("rxe0");
        boolean rdmaCm = true;
        int loads;

        @Override
        public Throwable loadLibrary() {
            loads++;
            return load;
        }

        @Override
        public boolean exportsOpen() {
            return exports;
        }

        @Override
        public List<String> deviceNames() {
            return devices;
        }

        @Override
        public boolean rdmaCmPresent() {
            return rdmaCm;
        }

        @Override
        public String libraryPath() {
            return "/opt/lib";
        }
    }

    @Test
    void theProviderIsFoundByServiceLoaderUnderItsName() {
        assertThat(RdmaProviders.all()).anySatisfy(p -> {
            assertThat(p).isInstanceOf(DisniProvider.class);
            assertThat(p.name()).isEqualTo("disni");
        });
    }

    @Test
    void aMissingLibrarySaysNoWithTheMessageAndOpenThrowsExactlyThat() {
        FakeRuntime rt = new FakeRuntime();
        rt.load = new UnsatisfiedLinkError("no disni in java.library.path: /opt/lib");
        DisniProvider provider = new DisniProvider(rt);

        RdmaProvider.Availability a = provider.availability();
        assertThat(a.available()).isFalse();
        assertThat(a.reason()).startsWith("DiSNI provider unavailable: libdisni.so is not installed")
                .contains("[/opt/lib]").endsWith("use --provider soft").doesNotContain("\n");
        assertThatThrownBy(() -> provider.open(Map.of("address", "127.0.0.1")))
                .isExactlyInstanceOf(VerbsException.class)
                .hasMessage(a.reason())
                .hasNoCause();
    }

    @Test
    void theSecondFailureModeOfAMissingLibraryGivesTheSameKindOfAnswer() {
        FakeRuntime rt = new FakeRuntime();
        rt.load = new NoClassDefFoundError("Could not initialize class com.ibm.disni.verbs.impl.NativeDispatcher");
        DisniProvider provider = new DisniProvider(rt);
        assertThat(provider.availability().reason()).contains("failed to load earlier in this JVM", "[/opt/lib]",
                "use --provider soft");
        assertThatThrownBy(() -> provider.open(Map.of())).isExactlyInstanceOf(VerbsException.class)
                .hasMessageContaining("failed to load earlier");
    }

    @Test
    void availabilityNeverThrowsEvenWhenProbingDoes() {
        DisniRuntime broken = new FakeRuntime() {
            @Override
            public List<String> deviceNames() {
                throw new NoClassDefFoundError("Could not initialize class com.ibm.disni.verbs.impl.NativeDispatcher");
            }
        };
        DisniProvider provider = new DisniProvider(broken);
        assertThatCode(provider::availability).doesNotThrowAnyException();
        assertThat(provider.availability().available()).isFalse();
        assertThat(provider.availability().reason()).contains("failed to load earlier", "use --provider soft");

        DisniProvider odd = new DisniProvider(new FakeRuntime() {
            @Override
            public boolean exportsOpen() {
                throw new IllegalStateException("surprise");
            }
        });
        assertThat(odd.availability().reason()).contains("probing DiSNI failed", "surprise");
    }

    @Test
    void optionsAreCheckedOnceDisniIsAvailable() {
        DisniProvider provider = new DisniProvider(new FakeRuntime());
        assertThat(provider.availability().available()).isTrue();
        assertThatThrownBy(() -> provider.open(Map.of("colour", "blue")))
                .isExactlyInstanceOf(VerbsException.class).hasMessageContaining("unknown option 'colour'");
        assertThatThrownBy(() -> provider.open(Map.of()))
                .isExactlyInstanceOf(VerbsException.class).hasMessageContaining("needs the option address=");
    }

    private static boolean libdisniOnLibraryPath() {
        for (String dir : System.getProperty("java.library.path", "").split(File.pathSeparator)) {
            if (new File(dir, System.mapLibraryName("disni")).exists()) {
                return true;
            }
        }
        return false;
    }

    /** The real provider on this machine, where the build runs without libdisni. */
    @Test
    void withoutLibdisniTheRealProviderSaysSoAndOpenThrowsNothingElse() {
        Assumptions.assumeFalse(libdisniOnLibraryPath(), "libdisni is installed here; the missing-library path "
                + "cannot be observed");
        DisniProvider provider = new DisniProvider();
        RdmaProvider.Availability first = provider.availability();
        assertThat(first.available()).isFalse();
        assertThat(first.reason()).contains("libdisni.so is not installed", "./autoprepare.sh",
                "use --provider soft").doesNotContain("\n");
        // the second probe meets DiSNI's broken class state and must say the same
        assertThat(provider.availability()).isEqualTo(first);
        assertThatThrownBy(() -> provider.open(Map.of("address", "127.0.0.1")))
                .isExactlyInstanceOf(VerbsException.class)
                .hasMessage(first.reason());
    }

    @Test
    void autoSelectionPassesOverAnUnavailableDisniWithItsReason() throws VerbsException {
        Assumptions.assumeFalse(libdisniOnLibraryPath(), "libdisni is installed here");
        String reason = new DisniProvider().availability().reason();
        boolean softPresent = RdmaProviders.all().stream().anyMatch(p -> p.name().equals("soft"));
        if (softPresent) {
            assertThat(RdmaProviders.select("auto").name()).isEqualTo("soft");
        } else {
            assertThatThrownBy(() -> RdmaProviders.select("auto"))
                    .isInstanceOf(VerbsException.class)
                    .hasMessageContaining("'disni' passed over: " + reason);
        }
        assertThatThrownBy(() -> RdmaProviders.select("disni"))
                .isInstanceOf(VerbsException.class)
                .hasMessageContaining("RDMA provider 'disni' is not available: " + reason);
    }

    @Test
    void theExportCheckReadsTheModuleGraph() {
        Module base = Object.class.getModule();
        assertThat(DisniRuntime.SystemRuntime.exported(base, java.util.logging.Logger.class.getModule())).isFalse();
        boolean flagGiven = ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .anyMatch(a -> a.contains("java.base/sun.nio.ch=ALL-UNNAMED"));
        assertThat(DisniRuntime.SYSTEM.exportsOpen()).isEqualTo(flagGiven);
    }
}
