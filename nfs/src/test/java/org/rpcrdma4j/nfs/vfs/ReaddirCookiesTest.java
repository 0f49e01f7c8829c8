package org.rpcrdma4j.nfs.vfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.DirEntry;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.SetAttributes;

/**
 * READDIR of MemoryVfs (and of LocalVfs, once) resumed from a cookie while other clients create and remove entries: every entry that was there all along
 * is listed exactly once, whatever changed before or after the resume point, whether the client sends the cookie
 * verifier of the page it had (as clients do) or none (as Linux's client does after it dropped a directory's cache).
 */
class ReaddirCookiesTest {
    private final MemoryVfs vfs = new MemoryVfs();

    private void create(String name) throws NfsException {
        vfs.create(vfs.root(), name, CreateMode.UNCHECKED, SetAttributes.NONE, 0);
    }

    @Test
    void aListingResumedAfterCreatesAndRemovesSkipsAndRepeatsNothingThatStayed() throws Exception {
        List<String> stay = new ArrayList<>();
        for (char c = 'b'; c <= 'k'; c++) {
            create(String.valueOf(c));
            stay.add(String.valueOf(c));
        }
        create("a-goes");
        DirectoryPage first = vfs.readdir(vfs.root(), 0, 0, 5); // ".", "..", b, c, d
        List<String> seen = new ArrayList<>();
        first.entries().forEach(e -> seen.add(e.name()));
        assertThat(seen).containsExactly(".", "..", "b", "c", "d");
        vfs.remove(vfs.root(), "b"); // listed already
        vfs.remove(vfs.root(), "a-goes"); // not yet listed
        create("0-new"); // sorts first
        stay.remove("b");

        long cookie = first.entries().get(first.entries().size() - 1).cookie();
        long verifier = first.verifier(); // from before the changes
        DirectoryPage rest;
        do {
            rest = vfs.readdir(vfs.root(), cookie, verifier, 3);
            verifier = rest.verifier();
            for (DirEntry e : rest.entries()) {
                seen.add(e.name());
                cookie = e.cookie();
            }
        } while (!rest.eof());
        List<String> after = seen.subList(5, seen.size());
        assertThat(after).doesNotHaveDuplicates().contains("e", "f", "g", "h", "i", "j", "k")
                .doesNotContain("a-goes", "b", "c", "d");
        Set<String> all = new HashSet<>(seen);
        assertThat(all).containsAll(stay);
    }

    @Test
    void aRandomRunOfChangesBetweenPagesNeverLosesOrRepeatsAnEntryThatStayed() throws Exception {
        randomRunBetweenPages(vfs, 200, 5, true);
        randomRunBetweenPages(new MemoryVfs(), 200, 6, false);
    }

    @Test
    void aLocalDirectoryListingResumedAfterCreatesAndRemovesSkipsAndRepeatsNothingThatStayed(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        try (LocalVfs local = LocalVfs.open(dir)) {
            randomRunBetweenPages(local, 120, 9, true);
        }
    }

    @Test
    void aLocalDirectoryListingResumedWithoutAVerifierSkipsAndRepeatsNothingThatStayed(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        try (LocalVfs local = LocalVfs.open(dir)) {
            randomRunBetweenPages(local, 120, 10, false);
        }
    }

    /**
     * Lists {@code v}'s root 7 entries a page, while another client creates and removes 3 entries between pages; every
     * entry present from the start to the end is listed exactly once, and none twice. Each page is asked for with
     * the verifier of the page before ({@code withVerifier}) or with none.
     */
    private static void randomRunBetweenPages(Vfs v, int files, long seed, boolean withVerifier) throws Exception {
        Random rnd = new Random(seed);
        Set<String> present = new HashSet<>();
        int made = 0;
        for (int i = 0; i < files; i++) {
            v.create(v.root(), "f" + made, CreateMode.UNCHECKED, SetAttributes.NONE, 0);
            present.add("f" + made++);
        }
        Set<String> stayed = new HashSet<>(present);
        List<String> seen = new ArrayList<>();
        long cookie = 0;
        long verifier = 0;
        DirectoryPage page;
        do {
            page = v.readdir(v.root(), cookie, verifier, 7);
            verifier = withVerifier ? page.verifier() : 0;
            for (DirEntry e : page.entries()) {
                seen.add(e.name());
                cookie = e.cookie();
            }
            for (int k = 0; k < 3; k++) {
                if (rnd.nextBoolean()) {
                    v.create(v.root(), "f" + made, CreateMode.UNCHECKED, SetAttributes.NONE, 0);
                    present.add("f" + made++);
                } else {
                    String victim = new ArrayList<>(present).get(rnd.nextInt(present.size()));
                    v.remove(v.root(), victim);
                    present.remove(victim);
                    stayed.remove(victim);
                }
            }
        } while (!page.eof());
        assertThat(seen).doesNotHaveDuplicates();
        assertThat(seen).containsAll(stayed);
    }

    @Test
    void aCookieNeverGivenIsABadCookie() throws Exception {
        create("x");
        assertThatThrownBy(() -> vfs.readdir(vfs.root(), 1000, 0, 10)).isInstanceOfSatisfying(NfsException.class,
                e -> assertThat(e.status()).isEqualTo(Nfs3Status.NFS3ERR_BAD_COOKIE));
        DirectoryPage all = vfs.readdir(vfs.root(), 0, 0, 10);
        assertThat(all.eof()).isTrue();
        assertThat(all.entries()).extracting(DirEntry::name).containsExactly(".", "..", "x");
    }

    @Test
    void aLocalCookieNoNameCanHaveIsABadCookie(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        try (LocalVfs local = LocalVfs.open(dir)) {
            local.create(local.root(), "x", CreateMode.UNCHECKED, SetAttributes.NONE, 0);
            long x = LocalVfs.nameCookie("x");
            assertThat(local.readdir(local.root(), x, 12345, 10).entries()).isEmpty();
            for (long never : new long[] {LocalVfs.MAX_COOKIE + 1, -1}) {
                assertThatThrownBy(() -> local.readdir(local.root(), never, 0, 10))
                        .isInstanceOfSatisfying(NfsException.class,
                                e -> assertThat(e.status()).isEqualTo(Nfs3Status.NFS3ERR_BAD_COOKIE));
            }
            assertThat(local.readdir(local.root(), LocalVfs.MAX_COOKIE, 0, 10).eof()).isTrue();
        }
    }
}
