/* Linux system calls that Glibc 2.36 (Debian 12) does not wrap, and Swift cannot reach through the
 * variadic syscall(2). */
#ifdef __linux__
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>
#include <sys/vfs.h>

/* openat2(2) with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS: `path` is resolved
 * under `dirfd` in one call, failing (ELOOP, EXDEV) rather than following any symbolic link or
 * climbing above `dirfd`. -1 with errno ENOSYS where the kernel predates it (Linux < 5.6). */
static inline int corpus_openat_beneath(int dirfd, const char *path, int flags) {
#ifdef SYS_openat2
    struct open_how how = { .flags = (uint64_t)(unsigned int)flags, .mode = 0,
                            .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
    return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
#else
    (void)dirfd; (void)path; (void)flags;
    errno = ENOSYS;
    return -1;
#endif
}

/* O_PATH (Linux 2.6.39), which Glibc's <fcntl.h> shows only under _GNU_SOURCE: a descriptor that
 * names a file without opening it for reading (fstat works on it). */
#ifndef O_PATH
#define O_PATH 010000000
#endif
static inline int corpus_o_path(void) { return O_PATH; }

/* The file system type of `path` (statfs(2)'s f_type, e.g. 0xEF53 for ext4), or -1 with errno set.
 * Swift's Glibc module does not show `struct statfs`. */
static inline long long corpus_file_system_type(const char *path) {
    struct statfs s;
    if (statfs(path, &s) != 0) return -1;
    return (long long)(unsigned long)s.f_type;
}

/* sync_file_range(2) with SYNC_FILE_RANGE_WRITE: starts writeback of a byte range of a file being
 * written and returns without waiting, so the final fsync finds most of the file on disk already.
 * Glibc declares it only under _GNU_SOURCE, which Swift's Glibc module does not set. */
static inline int corpus_start_writeback(int fd, int64_t offset, int64_t length) {
#ifdef SYS_sync_file_range
    return (int)syscall(SYS_sync_file_range, fd, (long)offset, (long)length, 2 /* SYNC_FILE_RANGE_WRITE */);
#else
    (void)fd; (void)offset; (void)length;
    errno = ENOSYS;
    return -1;
#endif
}
#endif
