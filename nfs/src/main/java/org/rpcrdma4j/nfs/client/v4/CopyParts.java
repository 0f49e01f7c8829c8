package org.rpcrdma4j.nfs.client.v4;

import java.io.IOException;

import org.rpcrdma4j.nfs.StableHow;

/**
 * A copy within the server as a client makes it (RFC 7862 section 15.2): COPYs until the count is done or the source
 * has no more, then, when a part came back UNSTABLE, one COMMIT whose verifier must be the parts'. A server that
 * restarted between two parts, or before the COMMIT, may have lost unstable bytes: the whole copy is made again, at
 * most {@value #ATTEMPTS} times in all.
 */
final class CopyParts {
    static final int ATTEMPTS = 3;

    /** One COPY of {@code left} bytes, {@code done} bytes past the copy's start. */
    @FunctionalInterface
    interface Part {
        CopyReply copy(long done, long left) throws IOException;
    }

    /** A COMMIT of the destination; returns the server's write verifier. */
    @FunctionalInterface
    interface Commit {
        long commit() throws IOException;
    }

    private CopyParts() {
    }

    /**
     * Copies {@code count} bytes (more than 0) in parts.
     *
     * @return bytes copied: {@code count}, or fewer when the source ended first
     * @throws IOException a part or the COMMIT failed, or the server lost unstable bytes {@value #ATTEMPTS} times
     */
    static long copy(long count, Part part, Commit commit, Object target) throws IOException {
        for (int attempt = 1; ; attempt++) {
            long done = 0;
            boolean unstable = false;
            long verifier = 0;
            while (done < count) {
                CopyReply r = part.copy(done, count - done);
                if (r.count() <= 0) {
                    break;
                }
                if (r.committed() == StableHow.UNSTABLE) {
                    if (unstable && r.verifier() != verifier) {
                        break; // the server restarted between two parts: the COMMIT's verifier will differ too
                    }
                    unstable = true;
                    verifier = r.verifier();
                }
                done += Math.min(r.count(), count - done);
            }
            if (!unstable || commit.commit() == verifier) {
                return done;
            }
            if (attempt == ATTEMPTS) {
                throw new IOException("copy to " + target + ": the server lost unstable copied bytes " + ATTEMPTS
                        + " times");
            }
        }
    }
}
