/* Minimal test harness: CHECK(cond, fmt, ...) records a failure with file:line and a
 * message and carries on; TEST_MAIN_END prints "N passed, M failed" and returns the
 * process exit code. One executable per concern; ctest runs each. */
#ifndef NCZ_TEST_H
#define NCZ_TEST_H
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static int ncz_test_passed_ = 0, ncz_test_failed_ = 0;

/* The condition is evaluated exactly once (it may have side effects). */
#define CHECK_VAL_(ok, text, ...)                                                                            \
    do {                                                                                                     \
        if (ok) {                                                                                            \
            ncz_test_passed_++;                                                                              \
        } else {                                                                                             \
            ncz_test_failed_++;                                                                              \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, text);                                   \
            fprintf(stderr, __VA_ARGS__);                                                                    \
            fputc('\n', stderr);                                                                             \
        }                                                                                                    \
    } while (0)
#define CHECK(cond, ...)                                                                                     \
    do {                                                                                                     \
        int ncz_ok_ = !!(cond);                                                                              \
        CHECK_VAL_(ncz_ok_, #cond, __VA_ARGS__);                                                             \
    } while (0)
/* Stops the current test function when a precondition fails. */
#define REQUIRE(cond, ...)                                                                                   \
    do {                                                                                                     \
        int ncz_req_ = !!(cond);                                                                             \
        CHECK_VAL_(ncz_req_, #cond, __VA_ARGS__);                                                            \
        if (!ncz_req_)                                                                                       \
            return;                                                                                          \
    } while (0)
/* A new scratch directory $TMPDIR/<name>.XXXXXX (/tmp without TMPDIR) into buf; 0, or -1
 * after saying why. */
static inline int ncz_test_scratch(char *buf, size_t size, const char *name)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(buf, size, "%s/%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
    if (mkdtemp(buf))
        return 0;
    perror("mkdtemp");
    return -1;
}
/* "dir/name" in one of eight buffers used in turn (a call's few paths stay valid together). */
static inline char *ncz_test_path(const char *dir, const char *name)
{
    static char buf[8][4200];
    static int next;
    char *b = buf[next++ % 8];
    snprintf(b, sizeof buf[0], "%s/%s", dir, name);
    return b;
}
/* Runs fn(arg) as a user without privileges: checks of what a user may not do (write a
 * read-only directory) pass for root, who may write anywhere, and CI runs as root. As root,
 * fn runs in a child process as nobody (uid/gid 65534; the paths it uses must be reachable
 * by others), and a child with failed checks, or one that could not drop root, counts as a
 * failure here; as any other user, fn runs in this process. */
static inline void ncz_run_unprivileged(const char *what, void (*fn)(void *), void *arg)
{
    if (geteuid() != 0) {
        fn(arg);
        return;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        if (setgid(65534) != 0 || setuid(65534) != 0 || geteuid() == 0)
            _exit(3);
        int before = ncz_test_failed_;
        fn(arg);
        fflush(stdout);
        fflush(stderr);
        _exit(ncz_test_failed_ > before ? 1 : 0);
    }
    int st = 0;
    int ok = pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    CHECK_VAL_(ok, what, "as an unprivileged user: %s (child status %d)",
               pid < 0                                 ? "fork failed"
               : WIFEXITED(st) && WEXITSTATUS(st) == 3 ? "could not drop root"
                                                       : "failed",
               st);
}

#define TEST_MAIN_END()                                                                                      \
    do {                                                                                                     \
        printf("%d passed, %d failed\n", ncz_test_passed_, ncz_test_failed_);                                \
        return ncz_test_failed_ ? EXIT_FAILURE : EXIT_SUCCESS;                                               \
    } while (0)
#endif
