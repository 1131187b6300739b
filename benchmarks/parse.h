/*
 * Benchmark output parsers: raw stdout+stderr text of one benchmark
 * iteration in, named metrics out.
 *
 * Metrics come in output order. A name may repeat when the output holds
 * several measurements of it (a capture of several runs): each is one
 * sample. Only complete lines are read: a last line without a newline is
 * taken as cut off and ignored, and a run whose end is not in the output
 * yields nothing, so a truncated capture gives fewer metrics or an error,
 * never a made-up value.
 */
#ifndef HILAB_PARSE_H
#define HILAB_PARSE_H

#include <stdbool.h>
#include <stddef.h>

struct parse_metric {
	char  *name;
	char  *unit; /* "s", "MB/s", "usec"...; never NULL */
	double value;
};

/* Owns v and every string in it; parse_result_clear() frees them. */
struct parse_result {
	struct parse_metric *v;
	size_t		     n;
};

/*
 * A parser: adds metrics to res and returns 0, or returns -1 with an
 * allocated *cause. args are parser options and may be NULL.
 */
typedef int parse_fn(const char *args, const char *output, size_t len,
    struct parse_result *res, char **cause);

struct parse_parser {
	const char *name;
	parse_fn   *fn;
};

/* The parser table, ended by an entry with a NULL name. */
extern const struct parse_parser parse_parsers[];

/* Returns the parser called name, or NULL. */
const struct parse_parser *parse_find(const char *name);

/*
 * Parses output with the parser called parser into res (cleared first).
 * Returns the number of metrics (> 0), or -1 with an allocated *cause
 * naming the parser and, when nothing was found, quoting the first line
 * it could not understand. res is empty after an error.
 */
int parse_output(const char *parser, const char *args, const char *output,
    size_t len, struct parse_result *res, char **cause);

/* Frees the metrics of res and leaves it empty; res may be NULL. */
void parse_result_clear(struct parse_result *res);
/* Whether res (which may be NULL) holds a value of the metric name. */
bool parse_result_has(const struct parse_result *res, const char *name);

/* Helpers shared by the parser implementations (benchmarks/parse_*.c). */

/* Walks the complete ('\n'-terminated) lines of an output. */
struct parse_lines {
	const char *p;
	const char *end;
	char	   *line;     /* current line, no '\n' or '\r' */
	size_t	    lineno;   /* 1-based number of the current line */
	int	    complete; /* output ends with a newline */
};

void parse_lines_init(struct parse_lines *, const char *, size_t);
/* Moves to the next complete line; returns 0 at the end. */
int  parse_lines_next(struct parse_lines *);
void parse_lines_free(struct parse_lines *);

void parse_result_add(struct parse_result *, const char *name, const char *unit,
    double value);
/* Reads a decimal number at s (after blanks); NULL if there is none. */
const char *parse_number(const char *s, double *v);
/* Like parse_number() but the number must be the whole word. */
const char *parse_word_number(const char *s, double *v);
/* Reads s, which must be one number with optional blanks; 0 or -1. */
int parse_whole_number(const char *s, double *v);
/* Splits a copy of line into blank-separated words; returns the count. */
size_t parse_split(char *line, char **words, size_t max);
/* Lowercase name with runs of other characters made one '_'. */
char *parse_slug(const char *s, size_t len);
/* The error for an output with no metric: names parser, quotes a line. */
char *parse_cause_nothing(const char *parser, const char *output, size_t len);
/* An error about one line: `parser "x": line N: "text": why`. */
char *parse_cause_line(const char *parser, size_t lineno, const char *line,
    const char *why);

parse_fn parse_hackbench;
parse_fn parse_tbench;
parse_fn parse_schbench;
parse_fn parse_stream;
parse_fn parse_netperf;
parse_fn parse_unixbench;
parse_fn parse_kernbench;
parse_fn parse_sysbench;
parse_fn parse_stressng;
parse_fn parse_llama;
parse_fn parse_ycsb;
parse_fn parse_regex;
parse_fn parse_keyvalue;
parse_fn parse_json;

#endif
