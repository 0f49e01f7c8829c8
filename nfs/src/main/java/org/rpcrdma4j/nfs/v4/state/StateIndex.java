package org.rpcrdma4j.nfs.v4.state;

import org.rpcrdma4j.nfs.v4.Nfs4Exception;
import org.rpcrdma4j.nfs.v4.Nfs4Status;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.v4.Nfs4Exception;
import org.rpcrdma4j.nfs.v4.Nfs4Status;

/**
 * The states of one kind (opens, lock states) of a table, found by number, by client, owner and file, by file, and
 * by client; and the numbers they are given. Guarded by the table's lock.
 */
final class StateIndex<S extends OwnedState> {
    private record OwnerFile(long clientId, Bytes owner, FileHandle file) {
    }

    private final int numberBit;
    private final int largest;
    private final Map<Integer, S> byNumber = new HashMap<>();
    private final Map<OwnerFile, S> byOwnerFile = new HashMap<>();
    private final Map<FileHandle, List<S>> byFile = new HashMap<>();
    private final Map<Long, Set<S>> byClient = new HashMap<>();
    private int next = 1;

    /**
     * @param numberBit a bit every number of this kind has (0: none), so kinds never share a number
     * @param largest   the largest number below that bit this kind uses (the bits above it belong to other kinds)
     */
    StateIndex(int numberBit, int largest) {
        this.numberBit = numberBit;
        this.largest = largest;
    }

    /** A number no state of this kind has: {@code numberBit} and 1 to {@code largest}, in turn. */
    int newNumber() {
        int n;
        do {
            n = numberBit | next;
            next = next == largest ? 1 : next + 1;
        } while (byNumber.containsKey(n));
        return n;
    }

    /** A copy of the states of this kind, of every client. */
    List<S> all() {
        return new ArrayList<>(byNumber.values());
    }

    /** States of this kind, of every client. */
    int size() {
        return byNumber.size();
    }

    void add(S s) {
        byNumber.put(s.number, s);
        byOwnerFile.put(new OwnerFile(s.clientId, s.owner, s.file), s);
        byFile.computeIfAbsent(s.file, f -> new ArrayList<>()).add(s);
        byClient.computeIfAbsent(s.clientId, id -> new LinkedHashSet<>()).add(s);
    }

    void remove(S s) {
        byNumber.remove(s.number);
        byOwnerFile.remove(new OwnerFile(s.clientId, s.owner, s.file));
        List<S> onFile = byFile.get(s.file);
        onFile.remove(s);
        if (onFile.isEmpty()) {
            byFile.remove(s.file);
        }
        Set<S> own = byClient.get(s.clientId);
        own.remove(s);
        if (own.isEmpty()) {
            byClient.remove(s.clientId);
        }
    }

    S byNumber(int number) {
        return byNumber.get(number);
    }

    /**
     * The state of {@code clientId} that {@code stateid} names, on {@code file} unless that is null: NFS4ERR_BAD_STATEID
     * for none, another client's or another file's, and the seqid rules of {@link OpenStates#checkSeqid} ({@code what}
     * names the kind in the messages).
     */
    S resolve(long clientId, Stateid stateid, FileHandle file, String what) throws Nfs4Exception {
        S s = byNumber.get(stateid.otherWord(2));
        if (s == null || s.clientId != clientId) {
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_BAD_STATEID, "no " + what + " " + stateid);
        }
        OpenStates.checkSeqid(stateid, s.seqid, what);
        if (file != null && !s.file.equals(file)) {
            throw new Nfs4Exception(Nfs4Status.NFS4ERR_BAD_STATEID, stateid + " names no " + what + " of " + file);
        }
        return s;
    }

    S byOwnerFile(long clientId, Bytes owner, FileHandle file) {
        return byOwnerFile.get(new OwnerFile(clientId, owner, file));
    }

    /** The states on {@code file} (a view: do not change the index while going through it). */
    List<S> onFile(FileHandle file) {
        return byFile.getOrDefault(file, List.of());
    }

    /** A copy of the client's states. */
    List<S> ofClient(long clientId) {
        Set<S> own = byClient.get(clientId);
        return own == null ? List.of() : new ArrayList<>(own);
    }

    int count(long clientId) {
        Set<S> own = byClient.get(clientId);
        return own == null ? 0 : own.size();
    }
}
