package org.rpcrdma4j.it.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.util.ResourceLeakDetector;
import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.codec.RpcRdmaDecoder;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.registration.RegisteredBufferPool;
import org.rpcrdma4j.verbs.RdmaProvider;
import org.rpcrdma4j.xprt.server.RdmaRpcServer;
import org.slf4j.LoggerFactory;

/**
 * The library modules whose dependencies all have stable module names ({@code rpc-rdma-codec}, {@code rdma-verbs},
 * {@code chunk-registration}) are real JPMS modules: they export every package but the {@code internal} ones, and
 * they resolve and run on the module path, the software device found through the module system's service binding.
 * {@code xprt-rdma} and {@code nfs} use Grizzly (through oncrpc4j's XDR), which has no stable module name, so they
 * stay automatic modules with a fixed {@code Automatic-Module-Name}.
 */
class ModuleDescriptorsTest {
    private static final List<String> NAMED = List.of("org.rpcrdma4j.codec", "org.rpcrdma4j.verbs",
            "org.rpcrdma4j.registration");

    private static Path locationOf(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Our three named modules and what they require: Netty's buffer and common jars, and the SLF4J API. */
    private static ModuleFinder finder() {
        return ModuleFinder.of(locationOf(RpcRdmaDecoder.class), locationOf(RdmaProvider.class),
                locationOf(RegisteredBufferPool.class), locationOf(ByteBuf.class),
                locationOf(ResourceLeakDetector.class), locationOf(LoggerFactory.class));
    }

    @Test
    void eachIsANamedModuleExportingEveryPackageButTheInternalOnes() {
        ModuleFinder finder = finder();
        int internal = 0;
        for (String name : NAMED) {
            ModuleDescriptor descriptor = finder.find(name).orElseThrow(
                    () -> new AssertionError("no module named " + name + " among the built jars")).descriptor();
            assertThat(descriptor.isAutomatic()).as(name + " has a module-info").isFalse();
            Set<String> exported = descriptor.exports().stream()
                    .peek(e -> assertThat(e.isQualified()).as(e.source() + " exported to everyone").isFalse())
                    .map(ModuleDescriptor.Exports::source).collect(Collectors.toCollection(TreeSet::new));
            Set<String> expected = new TreeSet<>();
            for (String pkg : descriptor.packages()) {
                if (pkg.endsWith(".internal") || pkg.contains(".internal.")) {
                    internal++;
                } else {
                    expected.add(pkg);
                }
            }
            assertThat(exported).as(name + "'s exports").isEqualTo(expected);
            assertThat(descriptor.opens()).as(name + " opens nothing").isEmpty();
        }
        assertThat(internal).as("the software device's internal package exists and is kept in").isPositive();
    }

    @Test
    void theyResolveOnTheModulePathAndTheSoftDeviceIsBoundAsAService() throws Exception {
        Configuration configuration = ModuleLayer.boot().configuration()
                .resolveAndBind(finder(), ModuleFinder.of(), Set.copyOf(NAMED));
        ModuleLayer layer = ModuleLayer.boot().defineModulesWithOneLoader(configuration,
                ClassLoader.getPlatformClassLoader());
        Module verbs = layer.findModule("org.rpcrdma4j.verbs").orElseThrow();
        assertThat(verbs.isExported("org.rpcrdma4j.verbs")).isTrue();
        assertThat(verbs.isExported("org.rpcrdma4j.verbs.soft.internal")).isFalse();
        assertThat(layer.findModule("org.rpcrdma4j.registration").orElseThrow().canRead(verbs)).isTrue();

        ClassLoader loader = layer.findLoader("org.rpcrdma4j.verbs");
        Class<?> providers = loader.loadClass("org.rpcrdma4j.verbs.RdmaProviders");
        assertThat(providers.getModule()).isSameAs(verbs);
        // without "uses" this throws ServiceConfigurationError; without "provides" it finds nothing
        Object soft = providers.getMethod("select", String.class).invoke(null, "soft");
        Method name = loader.loadClass("org.rpcrdma4j.verbs.RdmaProvider").getMethod("name");
        assertThat(name.invoke(soft)).isEqualTo("soft");
        assertThat(soft.getClass().getModule()).isSameAs(verbs);
    }

    @Test
    void theModulesThatUseGrizzlyCarryAStableAutomaticModuleName() throws Exception {
        for (Class<?> anchor : List.of(RdmaRpcServer.class, NfsServer.class)) {
            Path location = locationOf(anchor);
            String declared;
            if (location.toString().endsWith(".jar")) {
                try (JarFile jar = new JarFile(location.toFile())) {
                    declared = jar.getManifest().getMainAttributes().getValue(new Attributes.Name("Automatic-Module-Name"));
                }
                assertThat(declared).as(location + "'s Automatic-Module-Name").startsWith("org.rpcrdma4j.");
                assertThat(ModuleFinder.of(location).findAll()).singleElement()
                        .satisfies(m -> assertThat(m.descriptor().name()).isEqualTo(declared));
            } else {
                // run against target/classes (no jar yet): the name the jar will carry is in the module's POM
                String pom = Files.readString(location.getParent().getParent().resolve("pom.xml"));
                assertThat(pom).containsPattern("<automatic.module.name>org\\.rpcrdma4j\\.\\w+</automatic.module.name>");
            }
        }
    }
}
