/*
 * The two ways a C test may not run (see tests/lib/skip.sh): a missing
 * program, package, file or privilege fails the test in CI (CI=true) and
 * skips it elsewhere; what a machine cannot have always skips.
 * Include after <cmocka.h> for the subtest forms.
 */
#ifndef HILAB_TESTS_SKIP_H
#define HILAB_TESTS_SKIP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether a missing install step must fail rather than skip. */
static inline int
skip_strict(void)
{
	const char *ci = getenv("CI");

	return ci != NULL && strcmp(ci, "true") == 0;
}

/* The exit status of a whole test that lacks an install step: 1 or 77. */
#define SKIP_MISSING_EXIT(...)                                        \
	(fprintf(stderr,                                              \
	     "%s: ", skip_strict() ? "FAIL: missing in CI" : "SKIP"), \
	    fprintf(stderr, __VA_ARGS__), fputc('\n', stderr),        \
	    skip_strict() ? 1 : 77)

#ifdef cmocka_unit_test
/* Ends a subtest that lacks an install step: failed in CI, else skipped. */
#define skip_missing(...)                                        \
	do {                                                     \
		if (skip_strict())                               \
			fail_msg("missing in CI: " __VA_ARGS__); \
		print_message("skip: " __VA_ARGS__);             \
		print_message("\n");                             \
		skip();                                          \
	} while (0)

/* Ends a subtest for what this machine cannot have. */
#define skip_machine(...)                            \
	do {                                         \
		print_message("skip: " __VA_ARGS__); \
		print_message("\n");                 \
		skip();                              \
	} while (0)
#endif

#endif
