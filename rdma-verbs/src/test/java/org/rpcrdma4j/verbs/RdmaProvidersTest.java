package org.rpcrdma4j.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ServiceConfigurationError;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Providers on the class path that this Java cannot load (the ffm provider's classes need Java 22) are passed over
 * with their reason instead of breaking the search for the others.
 */
class RdmaProvidersTest {
    @TempDir
    Path dir;

    @Test
    void aProviderThatCannotBeLoadedIsPassedOverWithItsReason() throws Exception {
        Path services = dir.resolve("META-INF/services");
        Files.createDirectories(services);
        Files.writeString(services.resolve(RdmaProvider.class.getName()), "org.example.NotThere\n");
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()},
                RdmaProvidersTest.class.getClassLoader())) {
            RdmaProviders.Scan scan = RdmaProviders.scan(loader);
            assertThat(scan.providers()).extracting(RdmaProvider::name).contains("soft");
            assertThat(scan.unloadable()).singleElement().asString().contains("org.example.NotThere");
            assertThat(scan.unloadableNote()).startsWith("; not loadable here: ");
        }
    }

    @Test
    void aClassForANewerJavaIsNamedWithTheJavaItNeeds() {
        ServiceConfigurationError e = new ServiceConfigurationError("provider could not be instantiated",
                new UnsupportedClassVersionError("org/rpcrdma4j/verbs/ffm/FfmProvider has been compiled by a more "
                        + "recent version of the Java Runtime (class file version 66.0), this version of the Java "
                        + "Runtime only recognizes class file versions up to 61.0"));
        assertThat(RdmaProviders.unloadable(e)).isEqualTo("org/rpcrdma4j/verbs/ffm/FfmProvider needs Java 22 or "
                + "later (this is Java " + Runtime.version().feature() + ")");
    }

    @Test
    void theBareErrorOfAClassForANewerJavaIsNamedToo() {
        assertThat(RdmaProviders.unloadable(new UnsupportedClassVersionError("org/example/New has been compiled by "
                + "a more recent version of the Java Runtime (class file version 70.0), this version ...")))
                .startsWith("org/example/New needs Java 26 or later");
    }

    @Test
    void anUnknownNameListsWhatIsThere() {
        assertThatThrownBy(() -> RdmaProviders.select("nosuch")).isInstanceOf(VerbsException.class)
                .hasMessageContaining("no RDMA provider named 'nosuch'").hasMessageContaining("soft");
    }
}
