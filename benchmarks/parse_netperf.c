/*
 * netperf classic output: a "... TEST from ..." banner, column headings
 * ending in a units row ("bytes ... 10^6bits/sec" or "... per sec"), then
 * one result row (UDP_STREAM: a send row and a receive row).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "benchmarks/parse.h"
#include "common/xmalloc.h"

#define NETPERF_WORDS 32

enum netperf_kind {
	NETPERF_NONE,
	NETPERF_STREAM,
	NETPERF_UDP_STREAM,
	NETPERF_RR
};
enum netperf_want {
	NETPERF_BANNER,
	NETPERF_UNITS,
	NETPERF_ROW,
	NETPERF_UDP_RECV
};

struct netperf_state {
	enum netperf_kind kind;
	enum netperf_want want;
	size_t		  col; /* the result's word in a row */
	const char	 *unit;
};

static const struct {
	const char *label;
	const char *unit;
} netperf_units[] = {
	{ "10^0bits", "bit/s" },
	{ "10^3bits", "kbit/s" },
	{ "10^6bits", "Mbit/s" },
	{ "10^9bits", "Gbit/s" },
	{ "KBytes", "KiB/s" },
	{ "MBytes", "MiB/s" },
	{ "GBytes", "GiB/s" },
};

/* Recognises a test banner and the kind of result it announces. */
static enum netperf_kind
netperf_banner(const char *line)
{
	if (strstr(line, " TEST from ") == NULL)
		return (NETPERF_NONE);
	if (strcasestr(line, "REQUEST/RESPONSE") != NULL)
		return (NETPERF_RR);
	if (strstr(line, "UDP STREAM") != NULL)
		return (NETPERF_UDP_STREAM);
	if (strstr(line, "STREAM") != NULL || strstr(line, "MAERTS") != NULL)
		return (NETPERF_STREAM);
	return (NETPERF_NONE);
}

/* Finds the result column and its unit in the units row. */
static int
netperf_units_row(struct netperf_state *st, char *line)
{
	char  *w[NETPERF_WORDS];
	size_t n, i, u;

	n = parse_split(line, w, NETPERF_WORDS);
	if (n == 0 || strcasecmp(w[0], "bytes") != 0)
		return (0);
	for (i = 0; i < n; i++) {
		if (st->kind == NETPERF_RR && strcmp(w[i], "per") == 0) {
			st->col = i;
			st->unit = "trans/s";
			return (1);
		}
		for (u = 0; st->kind != NETPERF_RR &&
		     u < sizeof netperf_units / sizeof netperf_units[0];
		     u++) {
			if (strncmp(w[i], netperf_units[u].label,
				strlen(netperf_units[u].label)) == 0 &&
			    w[i][strlen(netperf_units[u].label)] == '/') {
				st->col = i;
				st->unit = netperf_units[u].unit;
				return (1);
			}
		}
	}
	return (-1);
}

/* Reads word col of an all-numeric row. */
static int
netperf_row(char *line, size_t col, double *v)
{
	char  *w[NETPERF_WORDS];
	size_t n, i;
	double d;

	n = parse_split(line, w, NETPERF_WORDS);
	if (n <= col)
		return (-1);
	for (i = 0; i < n; i++) {
		if (parse_word_number(w[i], &d) == NULL)
			return (-1);
		if (i == col)
			*v = d;
	}
	return (0);
}

/* Takes the result row that follows a units row. */
static void
netperf_result(struct netperf_state *st, char *line, struct parse_result *res)
{
	double v = 0;

	if (st->want == NETPERF_UDP_RECV) {
		/* receive row: socket, time, messages, throughput, ... */
		st->want = NETPERF_BANNER;
		if (st->col >= 2 && netperf_row(line, st->col - 2, &v) == 0)
			parse_result_add(res, "throughput", st->unit, v);
		return;
	}
	st->want = NETPERF_BANNER;
	if (netperf_row(line, st->col, &v) != 0)
		return;
	if (st->kind == NETPERF_RR)
		parse_result_add(res, "transactions", st->unit, v);
	else if (st->kind == NETPERF_STREAM)
		parse_result_add(res, "throughput", st->unit, v);
	else {
		parse_result_add(res, "send_throughput", st->unit, v);
		st->want = NETPERF_UDP_RECV;
	}
}

/* Handles one line: banner, headings, units row, result rows. */
static void
netperf_line(struct netperf_state *st, char *line, struct parse_result *res)
{
	enum netperf_kind kind;
	int		  rc;

	if ((kind = netperf_banner(line)) != NETPERF_NONE) {
		st->kind = kind;
		st->want = NETPERF_UNITS;
		return;
	}
	if (line[strspn(line, " \t")] == '\0')
		return;
	if (st->want == NETPERF_UNITS) {
		if ((rc = netperf_units_row(st, line)) == 1)
			st->want = NETPERF_ROW;
		else if (rc < 0)
			st->want = NETPERF_BANNER;
	} else if (st->want == NETPERF_ROW || st->want == NETPERF_UDP_RECV)
		netperf_result(st, line, res);
}

/* Parses netperf output: throughput for streams, transactions for RR. */
int
parse_netperf(const char *args, const char *output, size_t len,
    struct parse_result *res, char **cause)
{
	struct netperf_state st;
	struct parse_lines   pl;

	memset(&st, 0, sizeof st);
	parse_lines_init(&pl, output, len);
	while (parse_lines_next(&pl))
		netperf_line(&st, pl.line, res);
	parse_lines_free(&pl);
	return (0);
}
