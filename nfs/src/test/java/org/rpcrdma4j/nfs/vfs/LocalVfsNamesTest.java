package org.rpcrdma4j.nfs.vfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.DirEntry;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.SetAttributes;

/**
 * Names {@link LocalVfs} cannot convert between NFS's strings and the local file system's bytes (the JVM's file name
 * encoding comes from its locale): an entry that does not convert is left out of a listing, which lists the others,
 * and a client's name that does not convert is not found or refused, never a server fault. The files are made by
 * the shell, byte by byte, and the VFS runs in a JVM started under the C locale (ASCII file names), so the test is
 * the same whatever locale it runs in.
 */
class LocalVfsNamesTest {
    @TempDir
    Path export;

    @Test
    void underTheCLocaleAListingLeavesOutWhatItCannotNameAndListsTheRest() throws Exception {
        // plain; café and déjà/inner in UTF-8; été in ISO 8859-1 (not UTF-8)
        shell("touch plain other && touch \"$(printf 'caf\\303\\251')\" \"$(printf '\\351t\\351')\""
                + " && mkdir sub \"$(printf 'd\\303\\251j\\303\\240')\""
                + " && touch \"$(printf 'd\\303\\251j\\303\\240')/inner\"");
        List<String> out = underCLocale(UnderCLocale.class, export.toString());
        assertThat(out).contains("encoding ANSI_X3.4-1968", "done");
        assertThat(out).filteredOn(l -> l.startsWith("listed ")).containsExactlyInAnyOrder(
                "listed .", "listed ..", "listed plain", "listed other", "listed sub");
        assertThat(out).contains("lookup caf\\u{e9} NFS3ERR_NOENT", "create na\\u{ef}ve NFS3ERR_INVAL",
                "mkdir na\\u{ef}ve NFS3ERR_INVAL", "symlink na\\u{ef}ve NFS3ERR_INVAL", "rename plain NFS3ERR_INVAL",
                "rename caf\\u{e9} NFS3ERR_NOENT", "remove caf\\u{e9} NFS3ERR_NOENT",
                "rmdir d\\u{e9}j\\u{e0} NFS3ERR_NOENT",
                "handle of plain after a restart ok");
    }

    /** The VFS's side of the test above, in a JVM whose file name encoding is ASCII. */
    static final class UnderCLocale {
        public static void main(String[] args) throws Exception {
            Path dir = Path.of(args[0]);
            System.out.println("encoding " + System.getProperty("sun.jnu.encoding"));
            byte[] key = "a secret handle key of 32 bytes!".getBytes(StandardCharsets.US_ASCII);
            FileHandle plain;
            try (LocalVfs vfs = LocalVfs.open(dir, key)) {
                FileHandle root = vfs.root();
                long cookie = 0;
                DirectoryPage page;
                do {
                    page = vfs.readdir(root, cookie, 0, 2);
                    for (DirEntry e : page.entries()) {
                        System.out.println("listed " + escaped(e.name()));
                        cookie = e.cookie();
                    }
                } while (!page.eof());
                plain = vfs.lookup(root, "plain").handle();
                status("lookup caf\u00e9", () -> vfs.lookup(root, "caf\u00e9"));
                status("create na\u00efve", () -> vfs.create(root, "na\u00efve", CreateMode.GUARDED,
                        SetAttributes.NONE, 0));
                status("mkdir na\u00efve", () -> vfs.mkdir(root, "na\u00efve", SetAttributes.NONE));
                status("symlink na\u00efve", () -> vfs.symlink(root, "na\u00efve", "plain", SetAttributes.NONE));
                status("rename caf\u00e9", () -> {
                    vfs.rename(root, "caf\u00e9", root, "cafe");
                    return null;
                });
                status("rmdir d\u00e9j\u00e0", () -> {
                    vfs.rmdir(root, "d\u00e9j\u00e0");
                    return null;
                });
                status("rename plain", () -> {
                    vfs.rename(root, "plain", root, "na\u00efve");
                    return null;
                });
                status("remove caf\u00e9", () -> {
                    vfs.remove(root, "caf\u00e9");
                    return null;
                });
            }
            try (LocalVfs restarted = LocalVfs.open(dir, key)) {
                // the walk that places the handle passes the names it cannot use
                status("handle of plain after a restart", () -> restarted.getattr(plain));
            }
            System.out.println("done");
        }

        interface Call {
            Object run() throws NfsException;
        }

        private static void status(String what, Call call) {
            try {
                call.run();
                System.out.println(escaped(what) + " ok");
            } catch (NfsException e) {
                System.out.println(escaped(what) + " " + e.status());
            } catch (RuntimeException e) {
                System.out.println(escaped(what) + " " + e);
            }
        }
    }

    /** The name in ASCII: other characters as {@code \\u{hex}}. */
    static String escaped(String name) {
        StringBuilder b = new StringBuilder();
        name.codePoints().forEach(c -> b.append(c >= 0x20 && c < 0x7f ? Character.toString(c)
                : "\\u{" + Integer.toHexString(c) + "}"));
        return b.toString();
    }

    private void shell(String command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("sh", "-c", command).directory(export.toFile()).inheritIO().start();
        assertThat(p.waitFor()).as(command).isZero();
    }

    /** Runs {@code main}'s class in a JVM of this one's class path under the C locale; its output's lines. */
    private static List<String> underCLocale(Class<?> main, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().keySet().removeIf(k -> k.startsWith("LC_") || k.equals("LANG") || k.equals("LANGUAGE"));
        pb.environment().put("LC_ALL", "C");
        Process p = pb.start();
        List<String> lines = new ArrayList<>();
        try (var in = p.inputReader(StandardCharsets.US_ASCII)) {
            in.lines().forEach(lines::add);
        }
        assertThat(p.waitFor()).as("%s", lines).isZero();
        return lines;
    }
}
