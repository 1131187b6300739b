/*
 * libFuzzer target for the benchmark output parsers: the first byte picks
 * the parser (and its arguments), the rest is the output.  Whatever the
 * output, a parser returns metrics that all have a name and a unit, or an
 * error with its cause, never a crash or a leak.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "benchmarks/parse.h"

int    LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t fuzz_selectors(void);

/* The regex parser's arguments, and json's when it picks paths. */
#define FUZZ_REGEX_ARGS "t[s]=^Time: ([0-9.]+)$\nx=([0-9]+)"
#define FUZZ_JSON_PATHS "a.b, c.0 d"

/* The number of parsers in the table. */
static size_t
fuzz_nparsers(void)
{
	const struct parse_parser *pp;
	size_t			   n = 0;

	for (pp = parse_parsers; pp->name != NULL; pp++)
		n++;
	return (n);
}

/* The number of first bytes that differ: each parser, then json's paths. */
size_t
fuzz_selectors(void)
{
	return (fuzz_nparsers() + 1);
}

/* Runs one parser over one input; any result is fine, a crash is not. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct parse_result res;
	const char	   *parser = "json", *args = FUZZ_JSON_PATHS;
	char		   *cause = NULL;
	size_t		    sel, i;

	if (size == 0)
		return (0);
	sel = data[0] % fuzz_selectors();
	if (sel < fuzz_nparsers()) {
		parser = parse_parsers[sel].name;
		args = parse_parsers[sel].fn == parse_regex ? FUZZ_REGEX_ARGS
							    : NULL;
	}
	if (parse_output(parser, args, (const char *)data + 1, size - 1, &res,
		&cause) > 0) {
		for (i = 0; i < res.n; i++) {
			if (res.v[i].name == NULL || res.v[i].unit == NULL)
				abort();
		}
	} else if (cause == NULL)
		abort();
	parse_result_clear(&res);
	free(cause);
	return (0);
}
