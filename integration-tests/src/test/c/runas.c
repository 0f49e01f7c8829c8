/*
 * runas: runs a command as another user and group, for the Linux interop tests (built static on the host, run in the
 * guest, whose busybox has no su for users without a passwd entry):
 *
 *   runas UID GID COMMAND [ARG...]
 *
 * It drops every supplementary group, takes GID then UID, and executes COMMAND (searched in PATH). The Linux NFS
 * client then sends UID and GID as the AUTH_SYS identity of the calls COMMAND causes.
 *
 * A failure before the command runs: "runas: STEP: strerror" and exit status 126; wrong usage: exit status 2.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fail(const char *step) {
    fprintf(stderr, "runas: %s: %s\n", step, strerror(errno));
    return 126;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: runas UID GID COMMAND [ARG...]\n");
        return 2;
    }
    char *end;
    long uid = strtol(argv[1], &end, 10);
    if (*end != '\0' || uid < 0) {
        fprintf(stderr, "runas: bad uid %s\n", argv[1]);
        return 2;
    }
    long gid = strtol(argv[2], &end, 10);
    if (*end != '\0' || gid < 0) {
        fprintf(stderr, "runas: bad gid %s\n", argv[2]);
        return 2;
    }
    if (setgroups(0, NULL) != 0) {
        return fail("setgroups");
    }
    if (setgid((gid_t) gid) != 0) {
        return fail("setgid");
    }
    if (setuid((uid_t) uid) != 0) {
        return fail("setuid");
    }
    execvp(argv[3], argv + 3);
    return fail("exec");
}
