package org.rpcrdma4j.mount;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command lines in the top-level README run, in-process, against the {@code serve} line's own server. What changes
 * from the text: {@code serve} listens on free ports ({@code --port 0 --tcp-port 0}), has no NFSv4 grace period
 * ({@code --grace-period 0s}: nobody holds state from an earlier run) and exports a temporary directory named
 * {@code export}; {@code bench} measures for one second a phase ({@code --time 1s}); the client URLs' host ({@code host}, {@code server}) becomes that server's address
 * and RDMA port, and their export path ({@code /export}, {@code /srv/nfs}) its export; NFSv3 URLs name the
 * server's TCP port as the mount port (it runs no portmapper); the {@code get} line's file is one in the export and
 * its {@code .} a temporary directory; {@code shell} reads a few commands from standard input. {@code demo} is
 * {@link DemoTest}'s.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ReadmeCommandsTest {
    private static final String JAR = "java -jar mount-tool/target/mount-tool.jar ";

    @TempDir
    Path temp;

    /** Every README line that runs the tool, as its arguments (comments cut, double quotes honoured). */
    static List<List<String>> commandLines() throws IOException {
        Path root = Path.of("").toAbsolutePath();
        Path readme = Files.isRegularFile(root.resolve("README.md")) && Files.isDirectory(root.resolve("mount-tool"))
                ? root.resolve("README.md") : root.getParent().resolve("README.md");
        Matcher block = Pattern.compile("```\\n(.*?)```", Pattern.DOTALL).matcher(Files.readString(readme));
        List<List<String>> lines = new ArrayList<>();
        while (block.find()) {
            for (String line : block.group(1).split("\n")) {
                int at = line.indexOf(JAR);
                if (at < 0) {
                    continue;
                }
                String rest = line.substring(at + JAR.length()).replaceFirst("\\s+#.*$", "");
                List<String> args = new ArrayList<>();
                Matcher token = Pattern.compile("\"([^\"]*)\"|(\\S+)").matcher(rest);
                while (token.find()) {
                    args.add(token.group(1) != null ? token.group(1) : token.group(2));
                }
                lines.add(args);
            }
        }
        return lines;
    }

    @Test
    void theReadmesCommandLinesRunAgainstItsServeLine() throws Exception {
        List<List<String>> lines = commandLines();
        List<String> commands = lines.stream().map(l -> l.get(0)).toList();
        assertThat(commands).as("the README's command lines").contains("demo", "serve", "shell", "get", "bench",
                "check", "stats", "ls");

        Path exported = Files.createDirectories(temp.resolve("export"));
        byte[] data = new byte[2 * 1024 * 1024 + 5];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 17 + 3);
        }
        Files.createDirectories(exported.resolve("dir"));
        Files.write(exported.resolve("dir/file"), data);

        List<String> serveLine = lines.stream().filter(l -> l.get(0).equals("serve")).findFirst().orElseThrow();
        List<String> serveArgs = new ArrayList<>();
        for (String arg : serveLine) {
            serveArgs.add(arg.startsWith("/") ? exported.toString() : arg);
        }
        serveArgs.addAll(List.of("--port", "0", "--tcp-port", "0", "--grace-period", "0s"));
        Cli.Running serve = Cli.start(serveArgs.toArray(String[]::new));
        String banner = serve.awaitOutput("Serving; press Ctrl-C to stop.", 60);
        Matcher urls = Pattern.compile("NFS over RDMA: rdma://([^:/]+):(\\d+)/export\\?mountport=(\\d+)").matcher(banner);
        assertThat(urls.find()).as(banner).isTrue();
        String address = urls.group(1) + ":" + urls.group(2);
        String mountPort = urls.group(3);

        Path downloads = Files.createDirectories(temp.resolve("downloads"));
        int ran = 1;
        try {
            for (List<String> line : lines) {
                String command = line.get(0);
                if (command.equals("serve") || command.equals("demo")) {
                    continue;
                }
                List<String> args = new ArrayList<>();
                for (String arg : line) {
                    Matcher url = Pattern.compile("^(rdma|tcp)://(host|server)(/export|/srv/nfs)(\\?.*)?$").matcher(arg);
                    if (url.matches()) {
                        String query = url.group(4) == null ? "" : url.group(4);
                        if (query.contains("vers=3")) {
                            query += "&mountport=" + mountPort;
                        }
                        arg = url.group(1) + "://" + address + "/export" + query;
                    } else if (command.equals("get") && arg.equals(".")) {
                        arg = downloads.toString();
                    }
                    args.add(arg);
                }
                if (command.equals("bench")) {
                    args.addAll(List.of("--time", "1s"));
                } else if (command.equals("check")) {
                    args.addAll(List.of("--ops", "200"));
                }
                Cli.Result r = command.equals("shell")
                        ? Cli.runWithInput("ls\ncd dir\nstat file\npwd\n", args.toArray(String[]::new))
                        : Cli.run(args.toArray(String[]::new));
                assertThat(r.code()).as(String.join(" ", args) + "\n" + r).isZero();
                switch (command) {
                    case "ls" -> assertThat(r.out().lines().toList()).as(r.toString()).contains("dir/");
                    case "shell" -> assertThat(r.out()).as(r.toString()).contains("dir").contains("/dir")
                            .contains(String.valueOf(data.length));
                    case "get" -> assertThat(Files.readAllBytes(downloads.resolve("file"))).isEqualTo(data);
                    case "bench" -> assertThat(r.out()).as(r.toString()).containsPattern("(?i)MiB/s|ops/s|IOPS");
                    case "stats" -> assertThat(r.out().strip()).as(r.toString()).startsWith("{").endsWith("}");
                    case "check" -> assertThat(r.out()).as(r.toString()).contains("ok: seed ")
                            .contains("200 operations");
                    default -> throw new AssertionError("a README command line this test does not check: " + args);
                }
                ran++;
            }
        } finally {
            Cli.Result stopped = serve.interrupt(30);
            assertThat(stopped.code()).as(stopped.toString()).isZero();
        }
        assertThat(ran).as("every README command line but demo ran").isEqualTo(lines.size() - 1);
    }
}
