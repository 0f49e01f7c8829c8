package org.rpcrdma4j.mount.shell;

import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.rpcrdma4j.mount.CliException;
import org.rpcrdma4j.mount.ExitCode;
import org.rpcrdma4j.mount.Failures;
import org.rpcrdma4j.mount.client.Formats;
import org.rpcrdma4j.mount.client.Listing;
import org.rpcrdma4j.mount.client.RemotePaths;
import org.rpcrdma4j.mount.client.Session;
import org.rpcrdma4j.mount.client.Transfers;
import org.rpcrdma4j.mount.stats.StatsReport;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.client.NfsMount;

/**
 * An interactive session on one mount: a remote working directory and a local one, and the commands of
 * {@link #COMMANDS}. A failing command prints one line on the error stream and the session goes on; the session's
 * status is that of the last command that failed (0 when none did). Runs on one thread.
 */
public final class Shell {
    /** Command name to its synopsis, in the order {@code help} lists them. */
    static final Map<String, String> COMMANDS = new LinkedHashMap<>();

    static {
        COMMANDS.put("ls", "ls [-l] [PATH]          list a directory");
        COMMANDS.put("cd", "cd [PATH]               change the remote directory (default /)");
        COMMANDS.put("pwd", "pwd                     print the remote directory");
        COMMANDS.put("stat", "stat PATH               show attributes");
        COMMANDS.put("get", "get REMOTE [LOCAL]      download (to a temporary name, renamed when complete)");
        COMMANDS.put("put", "put LOCAL [REMOTE]      upload (to a temporary name, renamed when complete)");
        COMMANDS.put("cat", "cat PATH                print a file (as UTF-8 text)");
        COMMANDS.put("rm", "rm PATH...              remove files");
        COMMANDS.put("mkdir", "mkdir PATH...           make directories");
        COMMANDS.put("rmdir", "rmdir PATH...           remove empty directories");
        COMMANDS.put("mv", "mv FROM TO              rename or move");
        COMMANDS.put("cp", "cp FROM TO              copy within the server (NFSv4.2 COPY)");
        COMMANDS.put("df", "df                      space and file counts of the export");
        COMMANDS.put("stats", "stats [--json]          transport counters (mountstats layout)");
        COMMANDS.put("lcd", "lcd [DIR]               change the local directory (default: home)");
        COMMANDS.put("lpwd", "lpwd                    print the local directory");
        COMMANDS.put("help", "help                    this list");
        COMMANDS.put("quit", "quit                    end the session (also exit, Ctrl-D)");
    }

    private final Session session;
    private final NfsMount nfs;
    private final PrintWriter out;
    private final PrintWriter err;
    private String cwd = "/";
    private Path localCwd;
    private boolean quit;
    private int status;

    public Shell(Session session, PrintWriter out, PrintWriter err, Path localCwd) {
        this.session = session;
        this.nfs = session.nfs();
        this.out = out;
        this.err = err;
        this.localCwd = localCwd.toAbsolutePath().normalize();
    }

    /** The command names. */
    public static List<String> commandNames() {
        List<String> names = new ArrayList<>(COMMANDS.keySet());
        names.add("exit");
        return names;
    }

    /** Reads and runs lines until quit or end of input; returns the session's status. */
    public int run(LineSource lines, boolean interactive) {
        if (interactive) {
            out.println("Mounted " + session.url().scheme() + "://" + session.url().host() + ":" + session.url().port()
                    + session.url().export() + ". Type 'help' for the commands.");
            out.flush();
        }
        while (!quit) {
            String line;
            try {
                line = lines.readLine(prompt());
            } catch (LineSource.Interrupted e) {
                continue;
            } catch (IOException e) {
                err.println("rpcrdma shell: cannot read input: " + e.getMessage());
                err.flush();
                return ExitCode.LOCAL.code();
            }
            if (line == null) {
                break;
            }
            lines.runInterruptibly(() -> execute(line));
        }
        return status;
    }

    private String prompt() {
        return session.url().host() + ":" + session.url().export() + (cwd.equals("/") ? "" : cwd) + "> ";
    }

    /** Runs one line; returns its status (0 for success, an {@link ExitCode} otherwise). */
    public int execute(String line) {
        List<String> words;
        try {
            words = Words.split(line);
        } catch (IllegalArgumentException e) {
            return fail("shell", ExitCode.USAGE, e.getMessage());
        }
        if (words.isEmpty()) {
            return 0;
        }
        String command = words.get(0);
        List<String> args = words.subList(1, words.size());
        try {
            dispatch(command.toLowerCase(Locale.ROOT), args);
            return 0;
        } catch (Exception t) { // every failure is one line; the session goes on
            Failures.Failure f = Failures.classify(t);
            if (f.exitCode() == ExitCode.INTERRUPTED) {
                Thread.interrupted();
            }
            return fail(command, f.exitCode(), f.message());
        } finally {
            out.flush();
        }
    }

    private int fail(String command, ExitCode code, String message) {
        err.println(command + ": " + message);
        err.flush();
        status = code.code();
        return status;
    }

    private void dispatch(String command, List<String> args) throws IOException {
        switch (command) {
            case "ls" -> ls(args);
            case "cd" -> cd(args);
            case "pwd" -> {
                arity(args, 0, 0, "pwd");
                out.println(cwd);
            }
            case "stat" -> {
                arity(args, 1, 1, "stat PATH");
                String p = path(args.get(0));
                out.print(Formats.stat(p, Transfers.stat(nfs, p)));
            }
            case "get" -> get(args);
            case "put" -> put(args);
            case "cat" -> cat(args);
            case "rm" -> remove(args, false);
            case "rmdir" -> remove(args, true);
            case "mkdir" -> mkdir(args);
            case "mv" -> mv(args);
            case "cp" -> {
                arity(args, 2, 2, "cp FROM TO");
                Transfers.Result r = Transfers.copyWithinServer(nfs, path(args.get(0)), path(args.get(1)), false);
                out.println(r.path() + ": " + r.bytes() + " bytes copied within the server");
            }
            case "df" -> {
                arity(args, 0, 0, "df");
                out.print(Formats.df(session.url().export(), nfs.fsstat(nfs.root())));
            }
            case "stats" -> {
                boolean json = args.contains("--json");
                out.print(json ? StatsReport.json(session.stats()) + "\n" : StatsReport.text(session.stats()));
            }
            case "lcd" -> lcd(args);
            case "lpwd" -> out.println(localCwd);
            case "help", "?" -> COMMANDS.values().forEach(out::println);
            case "quit", "exit", "bye" -> quit = true;
            default -> throw new CliException(ExitCode.USAGE, "unknown command (type 'help')");
        }
    }

    private static void arity(List<String> args, int min, int max, String usage) {
        if (args.size() < min || args.size() > max) {
            throw new CliException(ExitCode.USAGE, "usage: " + usage);
        }
    }

    private String path(String p) {
        return RemotePaths.resolve(cwd, p);
    }

    private Path local(String p) {
        String expanded = p.equals("~") || p.startsWith("~/") ? System.getProperty("user.home") + p.substring(1) : p;
        return localCwd.resolve(expanded).normalize();
    }

    private void ls(List<String> args) throws IOException {
        boolean longFormat = false;
        List<String> paths = new ArrayList<>();
        for (String a : args) {
            if (a.equals("-l")) {
                longFormat = true;
            } else if (a.startsWith("-") && a.length() > 1) {
                throw new CliException(ExitCode.USAGE, "unknown option " + a + " (usage: ls [-l] [PATH])");
            } else {
                paths.add(a);
            }
        }
        if (paths.isEmpty()) {
            paths.add(".");
        }
        for (String p : paths) {
            if (paths.size() > 1) {
                out.println(path(p) + ":");
            }
            List<Listing.Entry> entries = Listing.list(nfs, path(p));
            entries.sort(Comparator.comparing(Listing.Entry::name));
            for (Listing.Entry e : entries) {
                out.println(e.format(longFormat));
            }
        }
    }

    private void cd(List<String> args) throws IOException {
        arity(args, 0, 1, "cd [PATH]");
        String target = args.isEmpty() ? "/" : path(args.get(0));
        FileAttributes a = Transfers.stat(nfs, target);
        if (!a.isDirectory()) {
            throw new CliException(ExitCode.NFS, target + ": not a directory");
        }
        cwd = target;
    }

    private void get(List<String> args) throws IOException {
        arity(args, 1, 2, "get REMOTE [LOCAL]");
        Path target = args.size() == 2 ? local(args.get(1)) : localCwd;
        long start = System.nanoTime();
        Transfers.Result r = Transfers.download(nfs, path(args.get(0)), target);
        report(path(args.get(0)), r, System.nanoTime() - start);
    }

    private void put(List<String> args) throws IOException {
        arity(args, 1, 2, "put LOCAL [REMOTE]");
        String remote = args.size() == 2 ? path(args.get(1)) : cwd;
        long start = System.nanoTime();
        Transfers.Result r = Transfers.upload(nfs, local(args.get(0)), remote);
        report(local(args.get(0)).toString(), r, System.nanoTime() - start);
    }

    private void report(String from, Transfers.Result r, long nanos) {
        out.println(String.format(Locale.ROOT, "%s -> %s: %d bytes in %.3f s (%.1f MB/s)", from, r.path(), r.bytes(),
                nanos / 1e9, Formats.mbPerSecond(r.bytes(), nanos)));
    }

    private void cat(List<String> args) throws IOException {
        if (args.isEmpty()) {
            throw new CliException(ExitCode.USAGE, "usage: cat PATH...");
        }
        for (String a : args) {
            String p = path(a);
            FileAttributes attrs = Transfers.stat(nfs, p);
            if (attrs.isDirectory()) {
                throw new CliException(ExitCode.NFS, p + ": is a directory");
            }
            try (InputStreamReader reader = new InputStreamReader(new RemoteInputStream(nfs, nfs.resolve(p)),
                    StandardCharsets.UTF_8)) {
                reader.transferTo(out);
            }
        }
    }

    private void remove(List<String> args, boolean directories) throws IOException {
        if (args.isEmpty()) {
            throw new CliException(ExitCode.USAGE, directories ? "usage: rmdir PATH..." : "usage: rm PATH...");
        }
        for (String a : args) {
            String p = path(a);
            FileAttributes attrs = Transfers.stat(nfs, p);
            if (attrs.isDirectory() != directories) {
                throw new CliException(ExitCode.NFS, p + (directories ? ": not a directory"
                        : ": is a directory (use rmdir)"));
            }
            if (p.equals("/")) {
                throw new CliException(ExitCode.NFS, "/: the export's root cannot be removed");
            }
            try {
                if (directories) {
                    nfs.rmdir(nfs.resolve(RemotePaths.parent(p)), RemotePaths.name(p));
                } else {
                    nfs.remove(nfs.resolve(RemotePaths.parent(p)), RemotePaths.name(p));
                }
            } catch (NfsException e) {
                throw Transfers.remote(p, e);
            }
        }
    }

    private void mkdir(List<String> args) throws IOException {
        if (args.isEmpty()) {
            throw new CliException(ExitCode.USAGE, "usage: mkdir PATH...");
        }
        for (String a : args) {
            String p = path(a);
            try {
                nfs.mkdir(p);
            } catch (NfsException e) {
                throw Transfers.remote(p, e);
            }
        }
    }

    private void mv(List<String> args) throws IOException {
        arity(args, 2, 2, "mv FROM TO");
        String from = path(args.get(0));
        String to = path(args.get(1));
        try {
            FileAttributes target = nfs.stat(to);
            if (target.isDirectory()) {
                to = RemotePaths.child(to, RemotePaths.name(from));
            }
        } catch (NfsException e) {
            // no such target: a plain rename
        }
        try {
            nfs.rename(from, to);
        } catch (NfsException e) {
            throw Transfers.remote(from, e);
        }
    }

    private void lcd(List<String> args) {
        arity(args, 0, 1, "lcd [DIR]");
        Path target = args.isEmpty() ? Path.of(System.getProperty("user.home")) : local(args.get(0));
        if (!Files.isDirectory(target)) {
            throw new CliException(ExitCode.LOCAL, target + ": no such local directory");
        }
        localCwd = target.toAbsolutePath().normalize();
    }

    /** Remote names completing {@code word} (for the terminal's completion); empty on any failure. */
    public List<String> complete(String word) {
        int slash = word.lastIndexOf('/');
        String dirPart = slash < 0 ? "" : word.substring(0, slash + 1);
        String prefix = word.substring(slash + 1);
        List<String> names = new ArrayList<>();
        try {
            for (Listing.Entry e : Listing.list(nfs, path(dirPart.isEmpty() ? "." : dirPart))) {
                if (e.name().startsWith(prefix)) {
                    boolean dir = e.attributes() != null && e.attributes().isDirectory();
                    names.add(dirPart + e.name() + (dir ? "/" : ""));
                }
            }
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
        return names;
    }

    /** The remote working directory. */
    public String cwd() {
        return cwd;
    }
}
