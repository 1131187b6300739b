/*
 * Fuzz target for the benchmark output parsers: the first byte picks the
 * parser, the rest is the output. Build with clang -fsanitize=fuzzer, or
 * with -DFUZZ_STANDALONE to replay files given on the command line.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "benchmarks/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Runs one parser over one input; any result is fine, a crash is not. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char	  *regex_args = "t[s]=^Time: ([0-9.]+)$\n"
						"x=([0-9]+)";
	const struct parse_parser *pp;
	struct parse_result	   res;
	char			  *cause = NULL;
	size_t			   n = 0, i;

	if (size == 0)
		return (0);
	for (pp = parse_parsers; pp->name != NULL; pp++)
		n++;
	pp = &parse_parsers[data[0] % n];
	if (parse_output(pp->name, pp->fn == parse_regex ? regex_args : NULL,
		(const char *)data + 1, size - 1, &res, &cause) > 0) {
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

#ifdef FUZZ_STANDALONE
/* Replays each file given, under every parser. */
int
main(int argc, char **argv)
{
	static uint8_t buf[1 << 20];
	size_t	       n;
	int	       i, p;
	FILE	      *f;

	for (i = 1; i < argc; i++) {
		if ((f = fopen(argv[i], "rb")) == NULL) {
			perror(argv[i]);
			return (1);
		}
		n = fread(buf + 1, 1, sizeof buf - 1, f);
		fclose(f);
		for (p = 0; p < 256; p++) {
			buf[0] = (uint8_t)p;
			LLVMFuzzerTestOneInput(buf, n + 1);
		}
	}
	return (0);
}
#endif
