package org.rpcrdma4j.nfs.v4.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rpcrdma4j.nfs.v4.Nfs4Status.*;
import static org.rpcrdma4j.nfs.v4.state.LockStates.*;
import static org.rpcrdma4j.nfs.v4.state.OpenStates.*;
import static org.rpcrdma4j.nfs.v4.state.StateFixture.assertStatus;
import static org.rpcrdma4j.nfs.v4.state.StateFixture.bytes;
import static org.rpcrdma4j.nfs.v4.state.StateFixture.file;

import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs.FileHandle;

/** Byte-range locks: conflicts, POSIX-style splits and joins, ranges, the lock stateid's rules and its end. */
class LockStatesTest {
    private static final FileHandle F = file("f");
    private static final FileHandle G = file("g");

    private final StateFixture f = new StateFixture();
    private final OpenStates opens = f.table.opens();
    private final LockStates locks = opens.locks();
    private StateFixture.Client a;
    private StateFixture.Client b;
    private Stateid openA;
    private Stateid openB;

    @BeforeEach
    void clients() throws Exception {
        a = f.client("host-a");
        b = f.client("host-b");
        f.pastGrace();
        openA = opens.open(a.id, bytes("oa"), F, SHARE_ACCESS_BOTH, SHARE_DENY_NONE);
        openB = opens.open(b.id, bytes("ob"), F, SHARE_ACCESS_BOTH, SHARE_DENY_NONE);
    }

    private static List<String> text(List<long[]> ranges) {
        return ranges.stream().map(r -> Long.toUnsignedString(r[0]) + "-" + Long.toUnsignedString(r[1]) + ":"
                + (r[2] == WRITE_LT ? "W" : "R")).toList();
    }

    @Test
    void aFirstLockMakesALockStateidOfItsOwnThatHoldsTheRange() throws Exception {
        Stateid l = locks.lockNew(a.id, openA, bytes("pid-1"), F, WRITE_LT, 0, 100);

        assertThat(l.seqid()).isEqualTo(1);
        assertThat(l.otherWord(0)).isEqualTo(StateFixture.BOOT);
        assertThat(l.otherWord(1)).isEqualTo((int) a.id);
        assertThat(l.otherWord(2) & NUMBER_BIT).isNotZero();
        assertThat(l.other()).isNotEqualTo(openA.other());
        assertThat(text(locks.heldRanges(a.id, l))).containsExactly("0-99:W");
        assertThat(locks.lockStateCount(a.id)).isEqualTo(1);
    }

    @Test
    void aWriteLockConflictsWithAnyOtherOwnersLockAndNamesIt() throws Exception {
        locks.lockNew(a.id, openA, bytes("pid-1"), F, READ_LT, 10, 10);

        assertStatus(NFS4ERR_DENIED, () -> locks.lockNew(b.id, openB, bytes("pid-2"), F, WRITE_LT, 15, 100))
                .isInstanceOfSatisfying(DeniedException.class, e -> {
                    Denied d = e.denied();
                    assertThat(d.offset()).isEqualTo(10);
                    assertThat(d.length()).isEqualTo(10);
                    assertThat(d.type()).isEqualTo(READ_LT);
                    assertThat(d.ownerClientId()).isEqualTo(a.id);
                    assertThat(d.owner()).isEqualTo(bytes("pid-1"));
                });
        // another owner of the same client is another owner
        Stateid openA2 = opens.open(a.id, bytes("oa2"), F, SHARE_ACCESS_BOTH, SHARE_DENY_NONE);
        assertStatus(NFS4ERR_DENIED, () -> locks.lockNew(a.id, openA2, bytes("pid-3"), F, WRITEW_LT, 0, 11));
        // and nothing was made for the denied requests
        assertThat(locks.lockStateCount(b.id)).isZero();
        assertThat(locks.lockStateCount(a.id)).isEqualTo(1);
    }

    @Test
    void readLocksShareAndDoNotConflictOutsideTheirRange() throws Exception {
        locks.lockNew(a.id, openA, bytes("pid-1"), F, READ_LT, 10, 10);

        Stateid lb = locks.lockNew(b.id, openB, bytes("pid-2"), F, READW_LT, 0, 100);
        Stateid lb2 = locks.lock(b.id, lb, F, WRITE_LT, 20, TO_END);

        assertThat(text(locks.heldRanges(b.id, lb2))).containsExactly("0-19:R", "20-18446744073709551615:W");
        assertStatus(NFS4ERR_DENIED, () -> locks.lock(b.id, lb2, F, WRITE_LT, 19, 1));
        // a lock on another file does not meet them
        Stateid openG = opens.open(a.id, bytes("oa"), G, SHARE_ACCESS_BOTH, SHARE_DENY_NONE);
        locks.lockNew(a.id, openG, bytes("pid-1"), G, WRITE_LT, 0, TO_END);
    }

    @Test
    void anOwnerChangesTheTypeOfWhatItHoldsSplittingAndJoiningRanges() throws Exception {
        Stateid l = locks.lockNew(a.id, openA, bytes("pid-1"), F, READ_LT, 0, 100);

        l = locks.lock(a.id, l, F, WRITE_LT, 40, 20);
        assertThat(text(locks.heldRanges(a.id, l))).containsExactly("0-39:R", "40-59:W", "60-99:R");
        assertThat(l.seqid()).isEqualTo(2);

        l = locks.lock(a.id, l, F, READ_LT, 40, 20);
        assertThat(text(locks.heldRanges(a.id, l))).containsExactly("0-99:R");

        l = locks.lock(a.id, l, F, READ_LT, 100, 50);
        assertThat(text(locks.heldRanges(a.id, l))).containsExactly("0-149:R");
        // the same owner's second "new owner" LOCK on the file goes to the same stateid
        Stateid again = locks.lockNew(a.id, openA, bytes("pid-1"), F, WRITE_LT, 500, 1);
        assertThat(again.other()).isEqualTo(l.other());
        assertThat(again.seqid()).isEqualTo(5);
        assertThat(text(locks.heldRanges(a.id, again))).containsExactly("0-149:R", "500-500:W");
    }

    @Test
    void unlockCutsWhatItCoversAndAdvancesTheSeqid() throws Exception {
        Stateid l = locks.lockNew(a.id, openA, bytes("pid-1"), F, WRITE_LT, 0, TO_END);

        Stateid u = locks.unlock(a.id, l, F, READ_LT, 100, 100);

        assertThat(u.seqid()).isEqualTo(2);
        assertThat(text(locks.heldRanges(a.id, u))).containsExactly("0-99:W", "200-18446744073709551615:W");
        // another owner gets the hole, and no more
        Stateid lb = locks.lockNew(b.id, openB, bytes("pid-2"), F, WRITE_LT, 100, 100);
        assertStatus(NFS4ERR_DENIED, () -> locks.lock(b.id, lb, F, READ_LT, 150, 51));
        // the old seqid is old, a newer one bad, 0 the current
        assertStatus(NFS4ERR_OLD_STATEID, () -> locks.unlock(a.id, l, F, WRITE_LT, 0, 1));
        Stateid ahead = new Stateid(3, u.other());
        assertStatus(NFS4ERR_BAD_STATEID, () -> locks.unlock(a.id, ahead, F, WRITE_LT, 0, 1));
        Stateid u2 = locks.unlock(a.id, new Stateid(0, u.other()), F, WRITE_LT, 0, TO_END);
        assertThat(locks.heldRanges(a.id, u2)).isEmpty();
    }

    @Test
    void rangesAreUnsignedAndMustFitInSixtyFourBits() throws Exception {
        long top = -1L; // 2^64 - 1
        long half = 1L << 63;
        Stateid l = locks.lockNew(a.id, openA, bytes("pid-1"), F, WRITE_LT, half, TO_END);
        assertThat(text(locks.heldRanges(a.id, l))).containsExactly("9223372036854775808-18446744073709551615:W");
        Stateid lb = locks.lockNew(b.id, openB, bytes("pid-2"), F, READ_LT, 0, half);
        assertThat(text(locks.heldRanges(b.id, lb))).containsExactly("0-9223372036854775807:R");
        assertStatus(NFS4ERR_DENIED, () -> locks.lock(b.id, lb, F, READ_LT, half - 1, 2))
                .isInstanceOfSatisfying(DeniedException.class, e -> {
                    assertThat(e.denied().offset()).isEqualTo(half);
                    assertThat(e.denied().length()).isEqualTo(TO_END);
                });
        // up to the byte before the last: offset + length may not pass 2^64 - 1 (the last byte goes only to the end)
        Stateid lb2 = locks.lockNew(b.id, openB, bytes("pid-3"), F, READ_LT, 0, 1);
        assertStatus(NFS4ERR_INVAL, () -> locks.lock(b.id, lb2, F, READ_LT, top, 1));
        assertStatus(NFS4ERR_INVAL, () -> locks.lock(b.id, lb2, F, READ_LT, 2, top - 1));
        assertStatus(NFS4ERR_INVAL, () -> locks.lock(b.id, lb2, F, READ_LT, half, half));
        assertStatus(NFS4ERR_DENIED, () -> locks.lock(b.id, lb2, F, READ_LT, half, half - 1)); // fits; a's
        assertStatus(NFS4ERR_INVAL, () -> locks.lock(b.id, lb2, F, READ_LT, 5, 0));
        assertStatus(NFS4ERR_INVAL, () -> locks.lock(b.id, lb2, F, 5, 0, 1));
        assertStatus(NFS4ERR_INVAL, () -> locks.test(b.id, bytes("x"), F, 0, 0, 1));
        assertStatus(NFS4ERR_INVAL, () -> locks.unlock(b.id, lb2, F, READ_LT, top, 1));
    }

    @Test
    void aLockNeedsTheOpenModeItsTypeNeeds() throws Exception {
        Stateid readOnly = opens.open(a.id, bytes("ro"), G, SHARE_ACCESS_READ, SHARE_DENY_NONE);
        Stateid writeOnly = opens.open(b.id, bytes("wo"), G, SHARE_ACCESS_WRITE, SHARE_DENY_NONE);

        assertStatus(NFS4ERR_OPENMODE, () -> locks.lockNew(a.id, readOnly, bytes("p"), G, WRITE_LT, 0, 1));
        assertStatus(NFS4ERR_OPENMODE, () -> locks.lockNew(b.id, writeOnly, bytes("p"), G, READ_LT, 0, 1));
        Stateid r = locks.lockNew(a.id, readOnly, bytes("p"), G, READ_LT, 0, 1);
        assertStatus(NFS4ERR_OPENMODE, () -> locks.lock(a.id, r, G, WRITEW_LT, 0, 1));
        // and for I/O the lock stateid is its open
        opens.checkIo(a.id, r, G, false);
        assertStatus(NFS4ERR_OPENMODE, () -> opens.checkIo(a.id, r, G, true));
        assertStatus(NFS4ERR_BAD_STATEID, () -> opens.checkIo(a.id, r, F, false));
        assertStatus(NFS4ERR_BAD_STATEID, () -> opens.checkIo(b.id, r, G, false));
        // the owner's LOCK through another open of the file: its lock stateid now stands for that open
        Stateid rw = opens.open(a.id, bytes("rw"), G, SHARE_ACCESS_BOTH, SHARE_DENY_NONE);
        Stateid again = locks.lockNew(a.id, rw, bytes("p"), G, WRITE_LT, 10, 1);
        assertThat(again.other()).isEqualTo(r.other());
        Stateid latest = locks.lock(a.id, again, G, WRITE_LT, 20, 1);
        opens.checkIo(a.id, latest, G, true);
    }

    @Test
    void theOpenStateidMustBeAnOpenOfTheFileAndALockStateidIsNoOpen() throws Exception {
        assertStatus(NFS4ERR_BAD_STATEID, () -> locks.lockNew(a.id, openA, bytes("p"), G, READ_LT, 0, 1));
        assertStatus(NFS4ERR_BAD_STATEID, () -> locks.lockNew(a.id, openB, bytes("p"), F, READ_LT, 0, 1));
        assertStatus(NFS4ERR_BAD_STATEID, () -> locks.lockNew(a.id, Stateid.ANONYMOUS, bytes("p"), F, READ_LT, 0,
                1));
        Stateid l = locks.lockNew(a.id, openA, bytes("p"), F, READ_LT, 0, 1);
        assertStatus(NFS4ERR_BAD_STATEID, () -> locks.lockNew(a.id, l, bytes("q"), F, READ_LT, 0, 1));
        assertStatus(NFS4ERR_BAD_STATEID, () -> opens.close(a.id, l, F));
        assertStatus(NFS4ERR_BAD_STATEID, () -> locks.lock(a.id, openA, F, READ_LT, 0, 1));
        assertStatus(NFS4ERR_BAD_STATEID, () -> locks.lock(b.id, l, F, READ_LT, 0, 1));
        assertStatus(NFS4ERR_INVAL, () -> locks.lockNew(a.id, openA, new byte[1025], F, READ_LT, 0, 1))
                .hasMessageContaining("1024");
    }

    /**
     * A lock of a client kept past its lease as a courtesy gives way to another client's LOCKT and LOCK over it, as
     * Linux's server's does; while a request of that client executes, it does not.
     */
    @Test
    void aCourtesyClientsLockGivesWayToAnotherClientsLockTestButNotWhileARequestOfItRuns() throws Exception {
        locks.lockNew(a.id, openA, bytes("pid-1"), F, WRITE_LT, 0, 10);
        SequenceResult running = f.table.sequence(a.session, ++a.slot0, 0, 0, false);
        f.advance(StateFixture.LEASE_NANOS + 1);
        f.ping(b);
        assertStatus(NFS4ERR_DENIED, () -> locks.test(b.id, bytes("pid-1"), F, READ_LT, 0, 10));
        assertThat(f.table.courtesyYielded()).as("a request of it executes: its lease does not run out").isZero();

        f.table.completeSequence(running.session(), 0, new byte[0]);
        f.advance(StateFixture.LEASE_NANOS + 1);
        f.ping(b);
        locks.test(b.id, bytes("pid-1"), F, READ_LT, 0, 10);
        assertThat(f.table.courtesyYielded()).isEqualTo(1);
        assertThat(locks.lockStateCount(a.id)).isZero();
        Stateid mine = locks.lockNew(b.id, openB, bytes("pid-b"), F, WRITE_LT, 0, 10);
        assertThat(text(locks.heldRanges(b.id, mine))).containsExactly("0-9:W");
    }

    @Test
    void lockTestNamesAConflictAndIgnoresTheOwnersOwnLocks() throws Exception {
        locks.lockNew(a.id, openA, bytes("pid-1"), F, WRITE_LT, 0, 10);

        locks.test(a.id, bytes("pid-1"), F, WRITE_LT, 0, TO_END);
        locks.test(b.id, bytes("pid-1"), F, READ_LT, 10, 10);
        assertStatus(NFS4ERR_DENIED, () -> locks.test(b.id, bytes("pid-1"), F, READ_LT, 9, 10))
                .isInstanceOfSatisfying(DeniedException.class, e -> {
                    assertThat(e.denied().type()).isEqualTo(WRITE_LT);
                    assertThat(e.denied().ownerClientId()).isEqualTo(a.id);
                });
    }

    @Test
    void testAndFreeStateidKnowLockStateidsAndFreeOnlyOneThatHoldsNothing() throws Exception {
        Stateid l = locks.lockNew(a.id, openA, bytes("pid-1"), F, WRITE_LT, 0, 10);

        assertThat(opens.testStateid(a.id, l)).isEqualTo(NFS4_OK);
        assertThat(opens.testStateid(b.id, l)).isEqualTo(NFS4ERR_BAD_STATEID);
        assertThat(opens.freeStateid(a.id, l)).isEqualTo(NFS4ERR_LOCKS_HELD);
        Stateid u = locks.unlock(a.id, l, F, WRITE_LT, 0, 10);
        assertThat(opens.testStateid(a.id, l)).isEqualTo(NFS4ERR_OLD_STATEID);
        assertThat(opens.freeStateid(b.id, u)).isEqualTo(NFS4ERR_BAD_STATEID);

        assertThat(opens.freeStateid(a.id, u)).isEqualTo(NFS4_OK);

        assertThat(opens.testStateid(a.id, u)).isEqualTo(NFS4ERR_BAD_STATEID);
        assertThat(locks.lockStateCount(a.id)).isZero();
        assertThat(opens.freeStateid(a.id, openA)).isEqualTo(NFS4ERR_LOCKS_HELD); // the open itself
        // a new LOCK of the owner makes a new stateid
        Stateid again = locks.lockNew(a.id, openA, bytes("pid-1"), F, WRITE_LT, 0, 10);
        assertThat(again.other()).isNotEqualTo(l.other());
    }

    @Test
    void closeEndsTheOpensLockStateidsAndTheirLocks() throws Exception {
        Stateid l = locks.lockNew(a.id, openA, bytes("pid-1"), F, WRITE_LT, 0, TO_END);
        Stateid openA2 = opens.open(a.id, bytes("oa2"), G, SHARE_ACCESS_BOTH, SHARE_DENY_NONE);
        Stateid lg = locks.lockNew(a.id, openA2, bytes("pid-1"), G, WRITE_LT, 0, TO_END);
        assertStatus(NFS4ERR_DENIED, () -> locks.lockNew(b.id, openB, bytes("pid-2"), F, READ_LT, 0, 1));

        opens.close(a.id, openA, F);

        locks.lockNew(b.id, openB, bytes("pid-2"), F, WRITE_LT, 0, TO_END);
        assertStatus(NFS4ERR_BAD_STATEID, () -> locks.lock(a.id, l, F, READ_LT, 0, 1));
        assertThat(opens.testStateid(a.id, l)).isEqualTo(NFS4ERR_BAD_STATEID);
        // the lock on the other open's file stays
        assertThat(opens.testStateid(a.id, lg)).isEqualTo(NFS4_OK);
        assertThat(locks.lockStateCount(a.id)).isEqualTo(1);
    }

    @Test
    void anExpiredClientsLocksGoAndItsLockStateidsAreExpired() throws Exception {
        Stateid l = locks.lockNew(a.id, openA, bytes("pid-1"), F, WRITE_LT, 0, TO_END);
        f.advance(StateFixture.LEASE_NANOS / 2);
        f.ping(b);
        f.advance(StateFixture.LEASE_NANOS / 2 + 1);
        f.table.expire();

        locks.lockNew(b.id, openB, bytes("pid-2"), F, WRITE_LT, 0, TO_END);
        assertStatus(NFS4ERR_EXPIRED, () -> locks.lock(a.id, l, F, READ_LT, 0, 1));
        assertStatus(NFS4ERR_EXPIRED, () -> opens.checkIo(a.id, l, F, false));
        assertThat(locks.lockStateCount(a.id)).isZero();
    }

    @Test
    void aClientHoldsABoundedNumberOfSeparateRangesInAll() throws Exception {
        int files = 16;
        int each = CLIENT_RANGES / files;
        Stateid last = null;
        for (int f = 0; f < files; f++) {
            FileHandle file = file("many-" + f);
            Stateid open = opens.open(a.id, bytes("oa"), file, SHARE_ACCESS_BOTH, SHARE_DENY_NONE);
            Stateid l = locks.lockNew(a.id, open, bytes("pid-1"), file, READ_LT, 0, 10);
            for (int i = 1; i < each; i++) {
                l = locks.lock(a.id, l, file, READ_LT, 10 + 2L * i, 1);
            }
            last = l;
        }
        Stateid full = last;
        FileHandle lastFile = file("many-" + (files - 1));
        assertThat(locks.heldRanges(a.id, full)).hasSize(each);

        assertStatus(NFS4ERR_SERVERFAULT, () -> locks.lock(a.id, full, lastFile, READ_LT, 1L << 40, 1))
                .hasMessageContaining(String.valueOf(CLIENT_RANGES));
        // a change of type that would cut a range in three is refused whole: what was held is held still
        assertStatus(NFS4ERR_SERVERFAULT, () -> locks.lock(a.id, full, lastFile, WRITE_LT, 5, 1));
        assertThat(text(locks.heldRanges(a.id, full)).get(0)).isEqualTo("0-9:R");
        // and so is an unlock that would cut one in two
        assertStatus(NFS4ERR_LOCK_RANGE, () -> locks.unlock(a.id, full, lastFile, READ_LT, 5, 1));
        assertThat(locks.heldRanges(a.id, full)).hasSize(each);
        // one that joins two neighbours goes through, and leaves room for one more
        Stateid joined = locks.lock(a.id, full, lastFile, READ_LT, 10, 2);
        assertThat(locks.heldRanges(a.id, joined)).hasSize(each - 1);
        locks.lock(a.id, joined, lastFile, READ_LT, 1L << 40, 1);
        // another client has its own budget
        locks.lockNew(b.id, openB, bytes("pid-2"), F, READ_LT, 0, 1);
        // closing an open gives its ranges back
        opens.close(a.id, opens.open(a.id, bytes("oa"), lastFile, SHARE_ACCESS_BOTH, SHARE_DENY_NONE), lastFile);
        Stateid openAgain = opens.open(a.id, bytes("oa"), lastFile, SHARE_ACCESS_BOTH, SHARE_DENY_NONE);
        Stateid fresh = locks.lockNew(a.id, openAgain, bytes("pid-1"), lastFile, READ_LT, 1L << 40, 1);
        locks.lock(a.id, fresh, lastFile, READ_LT, 1L << 41, 1);
    }

    @Test
    void aClientHoldsABoundedNumberOfLockStateids() throws Exception {
        for (int i = 0; i < CLIENT_LOCK_STATES; i++) {
            locks.lockNew(a.id, openA, bytes("pid-" + i), F, READ_LT, 0, 1);
        }
        assertThat(locks.lockStateCount(a.id)).isEqualTo(CLIENT_LOCK_STATES);

        assertStatus(NFS4ERR_SERVERFAULT, () -> locks.lockNew(a.id, openA, bytes("one-more"), F, READ_LT, 0, 1))
                .hasMessageContaining(String.valueOf(CLIENT_LOCK_STATES));
        locks.lockNew(a.id, openA, bytes("pid-7"), F, READ_LT, 5, 1); // an owner it has already
        opens.close(a.id, openA, F);
        assertThat(locks.lockStateCount(a.id)).isZero();
    }
}
