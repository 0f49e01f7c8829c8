/*
 * fsxprobe: random file I/O through the Linux NFS client, checked against a copy kept in memory, for the Linux
 * interop tests (built static on the host, run in the guest).
 *
 *   fsxprobe MODE FILE OPS SEED MAXSIZE MODEL [TRACE]
 *
 * FILE is made empty, then OPS operations chosen by SEED run on it: writes and reads of up to 256 KiB at any offset
 * (writes past the end of file that leave holes among them), truncations that shrink and grow the file, fsync,
 * fstat, and closing and opening the file again (which makes the client flush and revalidate). MODE "buffered" goes
 * through the client's page cache; MODE "direct" opens the file O_DIRECT, so that every read and write, at its
 * unaligned offset and length, goes to the server as it is. (The two are not mixed on one file: open(2) asks
 * applications not to, and Linux promises no coherence between them.) Every read is compared with the copy, and
 * every fstat with its size. At the end the file is fsynced and closed, the copy is written to MODEL, and the probe
 * prints
 *
 *   "done OPS size N"   followed by one line "OPNAME COUNT" per kind of operation
 *
 * With TRACE, each operation is written there as a line before it runs (to see where a stalled run stands).
 * A read that differs: "mismatch: ..." naming the operation, its offset and length and the first byte that differs,
 * then the last operations, and exit status 1. A call that fails: "error: OP: strerror", exit status 1. Wrong usage:
 * exit status 2.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_IO (256 * 1024)
#define HISTORY 24

enum { WRITE, READ, TRUNCATE, HOLE, FSYNC, STAT, REOPEN, KINDS };
static const char *NAMES[KINDS] = {"write", "read", "truncate", "hole-write", "fsync", "stat", "reopen"};
/* weights of the kinds above, out of 100 */
static const int WEIGHTS[KINDS] = {34, 32, 9, 5, 6, 7, 7};

static uint64_t state;
static const char *path;
static int fd = -1;
static unsigned char *model, *buf;
static long size, maxsize;
static long counts[KINDS];
static char history[HISTORY][96];
static long done;
static int trace = -1;
static int direct;

static uint64_t next(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

static long below(long n) {
    return n <= 0 ? 0 : (long) (next() % (uint64_t) n);
}

static void note(int kind, long off, long len) {
    snprintf(history[done % HISTORY], sizeof history[0], "#%ld %s off %ld len %ld (size %ld)", done, NAMES[kind], off,
             len, size);
    if (trace >= 0) {
        dprintf(trace, "%s\n", history[done % HISTORY]);
    }
}

static void show_history(void) {
    long first = done >= HISTORY - 1 ? done - (HISTORY - 1) : 0;
    printf("last operations:\n");
    for (long i = first; i <= done; i++) {
        printf("  %s\n", history[i % HISTORY]);
    }
}

static int fail(const char *what) {
    printf("error: %s: %s\n", what, strerror(errno));
    show_history();
    exit(1);
}

static void open_file(int flags) {
    fd = open(path, O_RDWR | flags | (direct ? O_DIRECT : 0), 0644);
    if (fd < 0) {
        fail("open");
    }
}

static void close_file(void) {
    if (close(fd) != 0) {
        fail("close");
    }
}

static void fill(unsigned char *p, long len) {
    for (long i = 0; i < len; i++) {
        p[i] = (unsigned char) (next() >> 24);
    }
}

static void write_at(int kind, long off, long len) {
    fill(buf, len);
    note(kind, off, len);
    ssize_t n = pwrite(fd, buf, (size_t) len, off);
    if (n < 0) {
        fail(NAMES[kind]);
    }
    if (n != len) {
        printf("error: %s: %zd of %ld bytes written\n", NAMES[kind], n, len);
        show_history();
        exit(1);
    }
    memcpy(model + off, buf, (size_t) len);
    if (off + len > size) {
        size = off + len;
    }
}

static void read_at(int kind, long off, long len) {
    note(kind, off, len);
    long expect = off >= size ? 0 : (off + len > size ? size - off : len);
    long got = 0;
    while (got < expect) {
        ssize_t n = pread(fd, buf + got, (size_t) (len - got), off + got);
        if (n < 0) {
            fail(NAMES[kind]);
        }
        if (n == 0) {
            break;
        }
        got += n;
    }
    if (got != expect) {
        printf("mismatch: %s at %ld of %ld bytes returned %ld bytes, expected %ld (size %ld)\n", NAMES[kind], off,
               len, got, expect, size);
        show_history();
        exit(1);
    }
    for (long i = 0; i < got; i++) {
        if (buf[i] != model[off + i]) {
            printf("mismatch: %s at %ld of %ld bytes: byte %ld (file offset %ld) is 0x%02x, expected 0x%02x\n",
                   NAMES[kind], off, len, i, off + i, buf[i], model[off + i]);
            show_history();
            exit(1);
        }
    }
}

static void one(int kind) {
    long off, len;
    struct stat st;
    switch (kind) {
    case WRITE:
        off = below(maxsize);
        len = 1 + below(MAX_IO < maxsize - off ? MAX_IO : maxsize - off);
        write_at(kind, off, len);
        break;
    case HOLE:
        off = size + 1 + below(maxsize / 8);
        if (off >= maxsize) {
            off = below(maxsize);
        }
        len = 1 + below(4096 < maxsize - off ? 4096 : maxsize - off);
        write_at(kind, off, len);
        break;
    case READ:
        off = below(size + 8192 < maxsize ? size + 8192 : maxsize);
        len = 1 + below(MAX_IO);
        read_at(kind, off, len);
        break;
    case TRUNCATE:
        off = below(maxsize + 1);
        note(kind, off, 0);
        if (ftruncate(fd, off) != 0) {
            fail("ftruncate");
        }
        if (off < size) {
            memset(model + off, 0, (size_t) (size - off));
        }
        size = off;
        break;
    case FSYNC:
        note(kind, 0, 0);
        if (fsync(fd) != 0) {
            fail("fsync");
        }
        break;
    case STAT:
        note(kind, 0, 0);
        if (fstat(fd, &st) != 0) {
            fail("fstat");
        }
        if (st.st_size != size) {
            printf("mismatch: fstat says %lld bytes, expected %ld\n", (long long) st.st_size, size);
            show_history();
            exit(1);
        }
        break;
    case REOPEN:
        note(kind, 0, 0);
        close_file();
        open_file(0);
        break;
    }
    counts[kind]++;
}

int main(int argc, char **argv) {
    if ((argc != 7 && argc != 8) || (strcmp(argv[1], "buffered") != 0 && strcmp(argv[1], "direct") != 0)) {
        fprintf(stderr, "usage: fsxprobe buffered|direct FILE OPS SEED MAXSIZE MODEL [TRACE]\n");
        return 2;
    }
    direct = strcmp(argv[1], "direct") == 0;
    argv++;
    argc--;
    path = argv[1];
    long ops = atol(argv[2]);
    state = strtoull(argv[3], NULL, 10) * 2654435761ULL + 0x9e3779b97f4a7c15ULL;
    maxsize = atol(argv[4]);
    if (ops <= 0 || maxsize <= 0 || state == 0) {
        fprintf(stderr, "fsxprobe: OPS and MAXSIZE must be positive\n");
        return 2;
    }
    model = calloc(1, (size_t) maxsize);
    buf = NULL;
    if (model == NULL || posix_memalign((void **) &buf, 4096, MAX_IO + 8192) != 0) {
        fprintf(stderr, "fsxprobe: out of memory\n");
        return 2;
    }
    if (argc == 7 && (trace = open(argv[6], O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644)) < 0) {
        fail("open TRACE");
    }
    open_file(O_CREAT | O_TRUNC);
    for (done = 0; done < ops; done++) {
        long pick = below(100);
        int kind = 0;
        while (pick >= WEIGHTS[kind]) {
            pick -= WEIGHTS[kind];
            kind++;
        }
        one(kind);
    }
    done = ops - 1;
    if (trace >= 0) {
        dprintf(trace, "final fsync and close\n");
    }
    if (fsync(fd) != 0) {
        fail("final fsync");
    }
    close_file();
    FILE *m = fopen(argv[5], "w");
    if (m == NULL || (size > 0 && fwrite(model, 1, (size_t) size, m) != (size_t) size) || fclose(m) != 0) {
        fail("writing MODEL");
    }
    printf("done %ld size %ld\n", ops, size);
    for (int k = 0; k < KINDS; k++) {
        printf("%s %ld\n", NAMES[k], counts[k]);
    }
    return 0;
}
