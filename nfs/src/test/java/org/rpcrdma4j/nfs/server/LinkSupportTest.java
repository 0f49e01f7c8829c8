package org.rpcrdma4j.nfs.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.FsInfo;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.client.NfsMount;
import org.rpcrdma4j.nfs.client.NfsMounts;
import org.rpcrdma4j.nfs.v4.state.StateConfig;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.nfs.vfs.Vfs;

/**
 * What the server says of hard links follows the export's VFS, over NFSv3 and NFSv4.2: one that keeps the defaults
 * of {@link Vfs#link} and {@link Vfs#linkMax} gets no FSF3_LINK, {@code link_support} false and a {@code linkmax}
 * of 1, and its LINKs are NOTSUPP; one that makes links gets them claimed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LinkSupportTest {
    private final MemoryVfs memory = new MemoryVfs();
    private NfsServer server;

    /** {@link #memory} with {@link Vfs}'s own {@code link} and {@code linkMax}. */
    private Vfs withoutLinks() {
        return (Vfs) Proxy.newProxyInstance(Vfs.class.getClassLoader(), new Class<?>[] {Vfs.class}, (p, m, args) -> {
            if (m.getName().equals("link") || m.getName().equals("linkMax")) {
                return java.lang.reflect.InvocationHandler.invokeDefault(p, m, args);
            }
            try {
                return m.invoke(memory, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        });
    }

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
        memory.close();
    }

    @Test
    void aVfsThatMakesNoLinksHasNoneClaimed() throws Exception {
        StateConfig d = StateConfig.defaults();
        server = NfsServer.builder().export("/plain", withoutLinks()).export("/links", new MemoryVfs(1 << 20))
                .bindAddress("127.0.0.1").port(0).nfs4(new StateConfig(Duration.ofSeconds(60), Duration.ZERO,
                        d.foreLimits(), d.backLimits(), d.maxSessionsPerClient())).build();
        server.start();
        for (String version : new String[] {"3", "4.2"}) {
            String base = "tcp://127.0.0.1:" + server.port();
            try (NfsMount plain = NfsMounts.mount(base + "/plain?vers=" + version);
                 NfsMount links = NfsMounts.mount(base + "/links?vers=" + version)) {
                assertThat(plain.fsinfo(plain.root()).properties() & FsInfo.FSF3_LINK).as("NFS %s", version)
                        .isZero();
                assertThat(plain.pathconf(plain.root()).linkMax()).isEqualTo(1);
                FileHandle f = plain.createFile("/f-" + version);
                assertThatThrownBy(() -> plain.link(f, plain.root(), "g-" + version))
                        .isInstanceOfSatisfying(NfsException.class,
                                e -> assertThat(e.status()).isEqualTo(Nfs3Status.NFS3ERR_NOTSUPP));

                assertThat(links.fsinfo(links.root()).properties() & FsInfo.FSF3_LINK).isNotZero();
                assertThat(links.pathconf(links.root()).linkMax()).isEqualTo(MemoryVfs.MAX_LINKS);
            }
        }
    }
}
