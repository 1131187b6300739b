/* Helpers shared by the parser tests. */
#ifndef HILAB_PARSERS_TEST_H
#define HILAB_PARSERS_TEST_H

#include <stddef.h>

#include "benchmarks/parse.h"

/* The parser of each folder of real captures in bench-outputs. */
struct ptest_tool {
	const char *dir;
	const char *parser;
};
extern const struct ptest_tool ptest_tools[];
extern const size_t	       ptest_ntools;

/* Reads a whole file; NULL if it cannot. The caller frees. */
char *ptest_read_file(const char *path, size_t *len);
/* Runs a shell command, returns its stdout+stderr; NULL on failure. */
char *ptest_run(const char *cmd, size_t *len);
/* Value of the occurrence-th (0-based) metric called name, or NAN. */
double ptest_value(const struct parse_result *, const char *name,
    size_t occurrence);
/* Number of metrics called name. */
size_t ptest_count(const struct parse_result *, const char *name);
/* Whether part is a prefix of whole: same names, units and values. */
int ptest_is_prefix(const struct parse_result *part,
    const struct parse_result		      *whole);

#endif
