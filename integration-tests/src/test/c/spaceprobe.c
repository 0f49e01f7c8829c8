/*
 * spaceprobe: NFSv4.2's space and copy operations as a process reaches them, for the Linux interop tests (built
 * static on the host, run in the guest). It runs these steps in order and prints one line for each:
 *
 *   spaceprobe FILE COPY CLONE
 *
 *   "written N"         FILE created with N = 4 MiB + 100 bytes, byte i being (i * 7 + i / 4096) & 0xff, and fsynced
 *   "punch ok"          fallocate(PUNCH_HOLE | KEEP_SIZE) of 1 MiB at 1 MiB: DEALLOCATE
 *   "hole N"            lseek(SEEK_HOLE) from 0: SEEK
 *   "data N"            lseek(SEEK_DATA) from 1 MiB + 5
 *   "end ENXIO"         lseek(SEEK_DATA) from the end of the file fails with ENXIO
 *   "allocate ok"       fallocate(mode 0) of 1 MiB at 4 MiB + 100: ALLOCATE
 *   "size N"            the size afterwards
 *   "copied N in K"     copy_file_range of all of FILE into COPY (created): 1 MiB first, then the rest; N bytes in
 *                       K calls: COPY
 *   "cloned ok"         ioctl(FICLONE) of all of FILE into CLONE (created), as cp --reflink does: CLONE
 *
 * Any failure: "error: STEP: strerror" and exit status 1; wrong usage: exit status 2.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#define MIB (1L << 20)

static int fail(const char *step) {
    printf("error: %s: %s\n", step, strerror(errno));
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: spaceprobe FILE COPY CLONE\n");
        return 2;
    }
    int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        return fail("open");
    }
    long size = 4 * MIB + 100;
    char *data = malloc(size);
    if (data == NULL) {
        return fail("malloc");
    }
    for (long i = 0; i < size; i++) {
        data[i] = (char) ((i * 7 + i / 4096) & 0xff);
    }
    for (long done = 0; done < size;) {
        ssize_t n = write(fd, data + done, size - done);
        if (n <= 0) {
            return fail("write");
        }
        done += n;
    }
    if (fsync(fd) != 0) {
        return fail("fsync");
    }
    printf("written %ld\n", size);

    if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, MIB, MIB) != 0) {
        return fail("punch");
    }
    printf("punch ok\n");
    off_t at = lseek(fd, 0, SEEK_HOLE);
    if (at < 0) {
        return fail("hole");
    }
    printf("hole %lld\n", (long long) at);
    at = lseek(fd, MIB + 5, SEEK_DATA);
    if (at < 0) {
        return fail("data");
    }
    printf("data %lld\n", (long long) at);
    if (lseek(fd, size, SEEK_DATA) >= 0 || errno != ENXIO) {
        printf("error: end: no ENXIO (%s)\n", strerror(errno));
        return 1;
    }
    printf("end ENXIO\n");

    if (fallocate(fd, 0, size, MIB) != 0) {
        return fail("allocate");
    }
    printf("allocate ok\n");
    struct stat st;
    if (fstat(fd, &st) != 0) {
        return fail("fstat");
    }
    printf("size %lld\n", (long long) st.st_size);

    int out = open(argv[2], O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (out < 0) {
        return fail("open copy");
    }
    loff_t in_at = 0;
    loff_t out_at = 0;
    long copied = 0;
    int calls = 0;
    while (copied < st.st_size) {
        size_t want = calls == 0 ? MIB : (size_t) (st.st_size - copied);
        ssize_t n = copy_file_range(fd, &in_at, out, &out_at, want, 0);
        if (n < 0) {
            return fail("copy");
        }
        if (n == 0) {
            break;
        }
        copied += n;
        calls++;
    }
    printf("copied %ld in %d\n", copied, calls);

    int cloned = open(argv[3], O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (cloned < 0) {
        return fail("open clone");
    }
    if (ioctl(cloned, FICLONE, fd) != 0) {
        return fail("clone");
    }
    printf("cloned ok\n");
    if (close(cloned) != 0 || close(out) != 0 || close(fd) != 0) {
        return fail("close");
    }
    return 0;
}
