/*
 * lockprobe: byte-range locks from a process, for the Linux interop tests (built static on the host, run in the
 * guest). One line of output, and the exit status:
 *
 *   lockprobe FILE set  r|w START LEN         F_SETLK: "ok" (0), "denied" (3)
 *   lockprobe FILE test r|w START LEN         F_GETLK: "free" (0), or "conflict r|w START LEN" (3)
 *   lockprobe FILE hold r|w START LEN SECS    F_SETLK, "held" (flushed), then holds it SECS seconds (0)
 *
 * LEN 0 is "to the end of the file", as fcntl has it. Any other failure: "error: ..." (1); wrong usage (2).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fail(const char *what) {
    printf("error: %s: %s\n", what, strerror(errno));
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 6 || (argv[3][0] != 'r' && argv[3][0] != 'w')) {
        fprintf(stderr, "usage: lockprobe FILE set|test|hold r|w START LEN [SECS]\n");
        return 2;
    }
    const char *op = argv[2];
    int write = argv[3][0] == 'w';
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = write ? F_WRLCK : F_RDLCK;
    fl.l_whence = SEEK_SET;
    fl.l_start = strtoll(argv[4], NULL, 10);
    fl.l_len = strtoll(argv[5], NULL, 10);
    int fd = open(argv[1], write ? O_RDWR : O_RDONLY);
    if (fd < 0) {
        return fail("open");
    }
    if (strcmp(op, "test") == 0) {
        if (fcntl(fd, F_GETLK, &fl) < 0) {
            return fail("F_GETLK");
        }
        if (fl.l_type == F_UNLCK) {
            printf("free\n");
            return 0;
        }
        printf("conflict %c %lld %lld\n", fl.l_type == F_WRLCK ? 'w' : 'r', (long long) fl.l_start,
               (long long) fl.l_len);
        return 3;
    }
    if (strcmp(op, "set") != 0 && strcmp(op, "hold") != 0) {
        fprintf(stderr, "unknown operation %s\n", op);
        return 2;
    }
    if (fcntl(fd, F_SETLK, &fl) < 0) {
        if (errno == EAGAIN || errno == EACCES) {
            printf("denied\n");
            return 3;
        }
        return fail("F_SETLK");
    }
    if (strcmp(op, "set") == 0) {
        printf("ok\n");
        return 0;
    }
    printf("held\n");
    fflush(stdout);
    sleep(argc > 6 ? (unsigned) atoi(argv[6]) : 30);
    return 0;
}
