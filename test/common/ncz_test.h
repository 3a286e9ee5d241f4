/* Minimal test harness: CHECK(cond, fmt, ...) records a failure with file:line and a
 * message and carries on; TEST_MAIN_END prints "N passed, M failed" and returns the
 * process exit code. One executable per concern; ctest runs each. */
#ifndef NCZ_TEST_H
#define NCZ_TEST_H
#include <stdio.h>
#include <stdlib.h>

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
#define TEST_MAIN_END()                                                                                      \
    do {                                                                                                     \
        printf("%d passed, %d failed\n", ncz_test_passed_, ncz_test_failed_);                                \
        return ncz_test_failed_ ? EXIT_FAILURE : EXIT_SUCCESS;                                               \
    } while (0)
#endif
