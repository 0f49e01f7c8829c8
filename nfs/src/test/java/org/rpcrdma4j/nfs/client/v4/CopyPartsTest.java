package org.rpcrdma4j.nfs.client.v4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs.StableHow;

/**
 * The client's copy loop against a scripted server: the parts it asks for, when it COMMITs, and when a restart of the
 * server (its write verifier changed) makes it copy again from the start.
 */
class CopyPartsTest {
    private static final long V1 = 0x1111L;
    private static final long V2 = 0x2222L;

    /** Answers COPYs from a script, at most {@code step} bytes each, and records what was asked. */
    private static final class Server {
        final long step;
        final Deque<StableHow> stabilities = new ArrayDeque<>();
        final Deque<Long> verifiers = new ArrayDeque<>();
        final Deque<Long> commits = new ArrayDeque<>();
        final List<long[]> asked = new ArrayList<>();
        long sourceLeft = Long.MAX_VALUE;
        int commitCalls;

        Server(long step) {
            this.step = step;
        }

        CopyReply copy(long done, long left) {
            asked.add(new long[] {done, left});
            long n = Math.min(Math.min(step, left), Math.max(0, sourceLeft - done));
            StableHow how = stabilities.isEmpty() ? StableHow.FILE_SYNC : stabilities.poll();
            long verifier = verifiers.isEmpty() ? V1 : verifiers.poll();
            return new CopyReply(n, how, verifier);
        }

        long commit() {
            commitCalls++;
            return commits.isEmpty() ? V1 : commits.poll();
        }
    }

    private static long run(Server s, long count) throws IOException {
        return CopyParts.copy(count, s::copy, s::commit, "/dst");
    }

    @Test
    void fileSyncPartsNeedNoCommit() throws IOException {
        Server s = new Server(4);
        assertThat(run(s, 10)).isEqualTo(10);
        assertThat(s.asked).extracting(a -> a[0]).containsExactly(0L, 4L, 8L);
        assertThat(s.asked).extracting(a -> a[1]).containsExactly(10L, 6L, 2L);
        assertThat(s.commitCalls).isZero();
    }

    @Test
    void unstablePartsAreCommittedOnceWhenTheVerifierHolds() throws IOException {
        Server s = new Server(4);
        s.stabilities.addAll(List.of(StableHow.UNSTABLE, StableHow.FILE_SYNC, StableHow.UNSTABLE));
        assertThat(run(s, 12)).isEqualTo(12);
        assertThat(s.commitCalls).isEqualTo(1);
        assertThat(s.asked).hasSize(3);
    }

    @Test
    void aRestartBetweenTwoUnstablePartsCopiesAgainFromTheStart() throws IOException {
        Server s = new Server(4);
        s.stabilities.addAll(List.of(StableHow.UNSTABLE, StableHow.UNSTABLE,            // first attempt
                StableHow.UNSTABLE, StableHow.UNSTABLE, StableHow.UNSTABLE));            // second attempt
        s.verifiers.addAll(List.of(V1, V2, V2, V2, V2));
        s.commits.addAll(List.of(V2, V2));
        assertThat(run(s, 12)).isEqualTo(12);
        assertThat(s.asked).extracting(a -> a[0]).containsExactly(0L, 4L, 0L, 4L, 8L);
        assertThat(s.commitCalls).as("the broken attempt's COMMIT shows the new verifier, the second holds")
                .isEqualTo(2);
    }

    @Test
    void aRestartBeforeTheCommitCopiesAgainFromTheStart() throws IOException {
        Server s = new Server(8);
        s.stabilities.addAll(List.of(StableHow.UNSTABLE, StableHow.UNSTABLE, StableHow.UNSTABLE,
                StableHow.UNSTABLE));
        s.verifiers.addAll(List.of(V1, V1, V2, V2));
        s.commits.addAll(List.of(V2, V2));
        assertThat(run(s, 16)).isEqualTo(16);
        assertThat(s.asked).extracting(a -> a[0]).containsExactly(0L, 8L, 0L, 8L);
        assertThat(s.commitCalls).isEqualTo(2);
    }

    @Test
    void aServerThatKeepsLosingUnstableBytesFailsTheCopyAfterThreeAttempts() {
        Server s = new Server(8);
        for (int i = 0; i < 3; i++) {
            s.stabilities.add(StableHow.UNSTABLE);
            s.verifiers.add(V1 + i);
            s.commits.add(V1 + i + 100);
        }
        assertThatThrownBy(() -> run(s, 8)).isInstanceOf(IOException.class)
                .hasMessageContaining("/dst").hasMessageContaining("lost unstable copied bytes 3 times");
        assertThat(s.asked).hasSize(CopyParts.ATTEMPTS);
        assertThat(s.commitCalls).isEqualTo(CopyParts.ATTEMPTS);
    }

    @Test
    void aSourceThatEndsFirstGivesAShortCopy() throws IOException {
        Server s = new Server(4);
        s.sourceLeft = 6;
        assertThat(run(s, 100)).isEqualTo(6);
        assertThat(s.asked).extracting(a -> a[0]).containsExactly(0L, 4L, 6L);
    }

    @Test
    void aServerClaimingMoreThanAskedIsCountedAsWhatWasAsked() throws IOException {
        assertThat(CopyParts.copy(10, (done, left) -> new CopyReply(left + 50, StableHow.FILE_SYNC, V1), () -> V1,
                "/dst")).isEqualTo(10);
    }
}
