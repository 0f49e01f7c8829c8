package org.rpcrdma4j.nfs.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.v4.state.StateConfig;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.nfs.vfs.Vfs;

/**
 * {@link NfsMount#createFile} sends a mode with the CREATE of a new file (a server may give a file created without
 * one mode 0000, as Linux's does), and leaves the mode of a file it truncates alone, over NFSv3 and NFSv4.2. The
 * VFS's calls are recorded: its CREATEs, and the SETATTR with which the server truncates an existing file.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CreateFileModeTest {
    private final MemoryVfs memory = new MemoryVfs();
    /** The CREATEs the server's VFS was asked for: mode, and the mode of the attributes. */
    private final List<String> creates = new CopyOnWriteArrayList<>();
    private NfsServer server;

    /** The VFS, recording each create's mode and attributes' mode. */
    private Vfs recording() {
        return (Vfs) Proxy.newProxyInstance(Vfs.class.getClassLoader(), new Class<?>[] {Vfs.class}, (p, m, args) -> {
            if (m.getName().equals("create")) {
                SetAttributes a = (SetAttributes) args[3];
                creates.add(args[2] + " " + (a == null || a.mode() == null ? "no mode"
                        : Integer.toOctalString(a.mode())));
            } else if (m.getName().equals("setattr")) {
                SetAttributes a = (SetAttributes) args[1];
                creates.add("SETATTR " + (a.mode() == null ? "no mode" : Integer.toOctalString(a.mode()))
                        + (a.size() == null ? "" : " size " + a.size()));
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
    }

    @Test
    void aNewFileGetsMode0644AndATruncatedOneKeepsItsMode() throws Exception {
        StateConfig d = StateConfig.defaults();
        server = NfsServer.builder().export("/export", recording()).bindAddress("127.0.0.1").port(0)
                .nfs4(new StateConfig(Duration.ofSeconds(60), Duration.ZERO, d.foreLimits(), d.backLimits(),
                        d.maxSessionsPerClient())).build();
        server.start();
        for (String version : new String[] {"3", "4.2"}) {
            creates.clear();
            try (NfsMount nfs = NfsMounts.mount("tcp://127.0.0.1:" + server.port() + "/export?vers=" + version)) {
                String path = "/made-" + version;
                FileHandle fh = nfs.createFile(path);
                assertThat(creates).as("NFS %s", version).containsExactly("GUARDED 644");
                assertThat(nfs.getattr(fh).mode()).isEqualTo(0644);

                nfs.write(fh, 0, Unpooled.wrappedBuffer(new byte[] {1, 2, 3}), StableHow.FILE_SYNC);
                nfs.setattr(fh, SetAttributes.NONE.withMode(0600));
                creates.clear();
                FileHandle again = nfs.createFile(path);
                // the truncating UNCHECKED (NFSv3 CREATE, NFSv4 OPEN) carries no mode: the server sets the size alone
                assertThat(creates).as("NFS %s", version).first().isEqualTo("GUARDED 644");
                assertThat(creates.subList(1, creates.size())).as("NFS %s", version).isNotEmpty()
                        .allMatch(c -> c.contains("no mode")).contains("SETATTR no mode size 0");
                assertThat(nfs.getattr(again).size()).isZero();
                assertThat(nfs.getattr(again).mode()).as("kept").isEqualTo(0600);
            }
        }
    }
}
