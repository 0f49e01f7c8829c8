package org.rpcrdma4j.mount;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** serve: prints working URLs and the Linux mount line, serves over RDMA and TCP, stops cleanly when interrupted. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ServeTest {
    @TempDir
    Path temp;

    @Test
    void servesUntilInterruptedAndClosesItsPorts() throws Exception {
        Path dir = Files.createDirectories(temp.resolve("shared"));
        Files.writeString(dir.resolve("a.txt"), "served\n");
        Cli.Running serve = Cli.start("serve", dir.toString(), "--port", "0", "--tcp-port", "0", "--bind",
                "127.0.0.1", "--provider", "soft");
        String banner = serve.awaitOutput("Serving; press Ctrl-C to stop.", 60);
        Matcher rdma = Pattern.compile("NFS over RDMA: (rdma://127\\.0\\.0\\.1:(\\d+)/shared\\?mountport=(\\d+))")
                .matcher(banner);
        assertThat(rdma.find()).as(banner).isTrue();
        int rdmaPort = Integer.parseInt(rdma.group(2));
        int tcpPort = Integer.parseInt(rdma.group(3));
        assertThat(banner).contains("NFS over TCP:  tcp://127.0.0.1:" + tcpPort + "/shared")
                .contains("mount -o proto=rdma,port=" + rdmaPort + ",vers=3,mountport=" + tcpPort
                        + ",mountproto=tcp,nolock 127.0.0.1:/shared /mnt")
                .contains("Open to:       *(rw,no_root_squash)   (every host that reaches 127.0.0.1; --clients to "
                        + "restrict)");

        Cli.Result overRdma = Cli.run("ls", rdma.group(1));
        assertThat(overRdma.out()).as(overRdma.toString()).isEqualTo("a.txt\n");
        Path src = Files.writeString(temp.resolve("up.txt"), "uploaded over tcp\n");
        Cli.Result overTcp = Cli.run("put", "tcp://127.0.0.1:" + tcpPort + "/shared?vers=3", src.toString(),
                "/up.txt"); // NFSv3: the reply cache is for NFSv3
        assertThat(overTcp.code()).as(overTcp.toString()).isZero();
        assertThat(Files.readString(dir.resolve("up.txt"))).isEqualTo("uploaded over tcp\n");

        Cli.Result stopped = serve.interrupt(30);
        assertThat(stopped.code()).as(stopped.toString()).isZero();
        assertThat(stopped.out()).contains("Stopping: 1 RDMA connections").endsWith("Stopped.\n");
        Matcher cache = Pattern.compile("Reply cache: (\\d+) changes recorded, 0 retransmissions answered from it")
                .matcher(stopped.out());
        assertThat(cache.find()).as(stopped.out()).isTrue();
        assertThat(Long.parseLong(cache.group(1))).as("CREATE, WRITE and RENAME of the put").isGreaterThanOrEqualTo(3);
        assertThat(accepts(rdmaPort)).as("RDMA port closed").isFalse();
        assertThat(accepts(tcpPort)).as("TCP port closed").isFalse();
    }

    @Test
    void sameThreadServesWithoutADispatchPool() throws Exception {
        Path dir = Files.createDirectories(temp.resolve("fast"));
        byte[] data = new byte[3 << 20];
        new java.util.Random(5).nextBytes(data);
        Cli.Running serve = Cli.start("serve", dir.toString(), "--port", "0", "--tcp-port", "0", "--bind",
                "127.0.0.1", "--provider", "soft", "--same-thread");
        String banner = serve.awaitOutput("Serving; press Ctrl-C to stop.", 60);
        Matcher rdma = Pattern.compile("NFS over RDMA: (rdma://\\S+)").matcher(banner);
        assertThat(rdma.find()).as(banner).isTrue();
        Path src = Files.write(temp.resolve("up.bin"), data);
        Cli.Result put = Cli.run("put", rdma.group(1), src.toString(), "/up.bin");
        assertThat(put.code()).as(put.toString()).isZero();
        Path back = temp.resolve("back.bin");
        Cli.Result get = Cli.run("get", rdma.group(1), "/up.bin", back.toString());
        assertThat(get.code()).as(get.toString()).isZero();
        assertThat(Files.readAllBytes(back)).isEqualTo(data);
        assertThat(Files.readAllBytes(dir.resolve("up.bin"))).isEqualTo(data);
        assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
                .as("the RDMA server's threads").noneMatch(name -> name.startsWith("nfs-rdma-")
                        && name.contains("-dispatch-"));
        Cli.Result stopped = serve.interrupt(30);
        assertThat(stopped.code()).as(stopped.toString()).isZero();
        assertThat(stopped.out()).contains("Stopping: 2 RDMA connections");
    }

    @Test
    void anInMemoryExportKeepsFilesHolesAndCopiesWhileItRuns() throws Exception {
        Cli.Running serve = Cli.start("serve", "--memory", "64M", "--port", "0", "--tcp-port", "0", "--bind",
                "127.0.0.1", "--provider", "soft", "--grace-period", "0s");
        String banner = serve.awaitOutput("Serving; press Ctrl-C to stop.", 60);
        assertThat(banner).contains("Exporting an in-memory file system of 64.0 MiB as /memory");
        Matcher rdma = Pattern.compile("NFS over RDMA: (rdma://\\S+)").matcher(banner);
        assertThat(rdma.find()).as(banner).isTrue();
        String url = rdma.group(1); // NFSv4.2, the default
        Matcher tcp = Pattern.compile("NFS over TCP:  (tcp://\\S+)").matcher(banner);
        assertThat(tcp.find()).as(banner).isTrue();
        // its root is open to every user, as /tmp: a user makes a file there, and it is theirs
        try (org.rpcrdma4j.nfs.client.NfsClient user = org.rpcrdma4j.nfs.client.NfsClient.mount(tcp.group(1)
                + "?vers=3", org.rpcrdma4j.nfs.client.NfsClientConfig.defaults().withIdentity(1000, 1000))) {
            assertThat(user.getattr(user.root()).mode()).isEqualTo(01777);
            org.rpcrdma4j.nfs.FileHandle mine = user.create(user.root(), "mine", org.rpcrdma4j.nfs.CreateMode.GUARDED,
                    org.rpcrdma4j.nfs.SetAttributes.NONE.withMode(0644)).handle();
            assertThat(user.getattr(mine).uid()).isEqualTo(1000);
            user.remove(user.root(), "mine");
        }
        byte[] data = new byte[(3 << 20) + 5];
        new java.util.Random(7).nextBytes(data);
        Path src = Files.write(temp.resolve("up.bin"), data);
        Cli.Result put = Cli.run("put", url, src.toString(), "/up.bin");
        assertThat(put.code()).as(put.toString()).isZero();
        Cli.Result cp = Cli.run("cp", url, "/up.bin", "/copy.bin");
        assertThat(cp.code()).as(cp.toString()).isZero();
        Cli.Result clone = Cli.run("cp", "--clone", url, "/copy.bin", "/clone.bin");
        assertThat(clone.code()).as(clone.toString()).isZero();
        assertThat(clone.out()).contains("/clone.bin: " + data.length + " bytes cloned within the server");
        Path back = temp.resolve("back.bin");
        Cli.Result get = Cli.run("get", url, "/clone.bin", back.toString());
        assertThat(get.code()).as(get.toString()).isZero();
        assertThat(Files.readAllBytes(back)).isEqualTo(data);
        Cli.Result df = Cli.run("df", url);
        assertThat(df.out()).as(df.toString()).contains("/memory");

        Cli.Result stopped = serve.interrupt(30);
        assertThat(stopped.code()).as(stopped.toString()).isZero();
        assertThat(stopped.out()).containsPattern("\\(([1-9][0-9]*) without a copy\\)")
                .containsPattern("NFSv4 operations: .*\\bCOPY 1\\b.*\\bCLONE 1\\b");
    }

    /**
     * --clients opens the export to the hosts it names, as /etc/exports does: here this host (127.0.0.1) gets the
     * subnet's read-only access, while the read-write spec names another address; every change is refused over RDMA
     * and TCP, and the file is unchanged.
     */
    @Test
    void clientsOpenTheExportToTheHostsTheyName() throws Exception {
        Path dir = Files.createDirectories(temp.resolve("partly"));
        Files.writeString(dir.resolve("a.txt"), "kept\n");
        Cli.Running serve = Cli.start("serve", dir.toString(), "--port", "0", "--tcp-port", "0", "--bind",
                "127.0.0.1", "--provider", "soft", "--clients", "127.0.0.2(rw)", "--clients", "127.0.0.0/8(ro)");
        String banner = serve.awaitOutput("Serving; press Ctrl-C to stop.", 60);
        assertThat(banner).contains("Open to:       127.0.0.2(rw) 127.0.0.0/8(ro)\n");
        Matcher rdma = Pattern.compile("NFS over RDMA: (rdma://\\S+)").matcher(banner);
        Matcher tcp = Pattern.compile("NFS over TCP:  (tcp://\\S+)").matcher(banner);
        assertThat(rdma.find() && tcp.find()).as(banner).isTrue();
        Path src = Files.writeString(temp.resolve("new.txt"), "changed\n");
        for (String url : new String[] {rdma.group(1), tcp.group(1), tcp.group(1) + "?vers=3"}) {
            Cli.Result ls = Cli.run("ls", url);
            assertThat(ls.out()).as(ls.toString()).isEqualTo("a.txt\n");
            Cli.Result put = Cli.run("put", url, src.toString(), "/a.txt");
            assertThat(put.code()).as(put.toString()).isEqualTo(ExitCode.NFS.code());
            assertThat(put.err()).as(put.toString()).contains("read-only");
        }
        assertThat(Files.readString(dir.resolve("a.txt"))).isEqualTo("kept\n");
        assertThat(serve.interrupt(30).code()).isZero();
    }

    @Test
    void clientSpecsThisServerCannotHonourAreRefused() {
        Cli.Result async = Cli.run("serve", temp.toString(), "--port", "0", "--tcp-port", "0", "--clients",
                "*(rw,async)");
        assertThat(async.code()).as(async.toString()).isEqualTo(ExitCode.USAGE.code());
        assertThat(async.err()).contains("--clients").contains("option async is not supported");
        Cli.Result bad = Cli.run("serve", temp.toString(), "--port", "0", "--tcp-port", "0", "--clients",
                "10.0.0.0/40(rw)");
        assertThat(bad.code()).as(bad.toString()).isEqualTo(ExitCode.USAGE.code());
        assertThat(bad.err()).contains("prefix length 40");
    }

    @Test
    void aDirectoryOrMemoryButNotBothNorNeither() {
        Cli.Result neither = Cli.run("serve", "--port", "0", "--tcp-port", "0");
        assertThat(neither.code()).as(neither.toString()).isEqualTo(ExitCode.USAGE.code());
        assertThat(neither.err()).contains("name a directory to export, or give --memory SIZE");
        Cli.Result both = Cli.run("serve", temp.toString(), "--memory", "1G", "--port", "0", "--tcp-port", "0");
        assertThat(both.code()).as(both.toString()).isEqualTo(ExitCode.USAGE.code());
        assertThat(both.err()).contains("a directory or --memory, not both");
        Cli.Result huge = Cli.run("serve", "--memory", "20G", "--port", "0", "--tcp-port", "0");
        assertThat(huge.code()).as(huge.toString()).isEqualTo(ExitCode.USAGE.code());
        assertThat(huge.err()).contains("at most 15.0 GiB");
        long tooMuch = Runtime.getRuntime().maxMemory() + (1L << 30); // the direct memory of this JVM, by default
        Cli.Result over = Cli.run("serve", "--memory", String.valueOf(Math.min(tooMuch, 15L << 30)), "--port", "0",
                "--tcp-port", "0");
        assertThat(over.code()).as(over.toString()).isEqualTo(ExitCode.USAGE.code());
        assertThat(over.err()).contains("-XX:MaxDirectMemorySize");
    }

    @Test
    void withoutTheReplyCacheNothingIsRecorded() throws Exception {
        Path dir = Files.createDirectories(temp.resolve("plain"));
        Cli.Running serve = Cli.start("serve", dir.toString(), "--port", "0", "--tcp-port", "0", "--bind",
                "127.0.0.1", "--provider", "soft", "--no-reply-cache");
        serve.awaitOutput("Serving; press Ctrl-C to stop.", 60);
        Cli.Result stopped = serve.interrupt(30);
        assertThat(stopped.code()).as(stopped.toString()).isZero();
        assertThat(stopped.out()).contains("Stopping: 0 RDMA connections").doesNotContain("Reply cache");
    }

    @Test
    void aPortInUseIsOneClearLine() throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1,
                java.net.InetAddress.getLoopbackAddress())) {
            Cli.Result r = Cli.run("serve", temp.toString(), "--port", "0", "--tcp-port",
                    String.valueOf(taken.getLocalPort()), "--bind", "127.0.0.1", "--provider", "soft");
            assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.TRANSPORT.code());
            assertThat(r.err().lines().toList()).as(r.toString()).hasSize(1);
            assertThat(r.err()).contains("cannot listen on 127.0.0.1").contains("--tcp-port");
        }
    }

    @Test
    void aMissingDirectoryIsALocalError() {
        Cli.Result r = Cli.run("serve", temp.resolve("none").toString(), "--port", "0", "--tcp-port", "0");
        assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.LOCAL.code());
        assertThat(r.err()).contains("no such local directory");
    }

    private static boolean accepts(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
