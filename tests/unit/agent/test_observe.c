/*
 * The parsers of the agent's monitors and probe on what this machine's
 * kernel prints now: /proc/vmstat, /proc/stat, /proc/interrupts,
 * /proc/softirqs, /proc/schedstat and function_graph output, each read
 * at test time.  A file the kernel does not offer skips its test.  The
 * expected values are read from the same capture in another way (each
 * line split on blanks), never written down.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "agents/observe.h"
#include "common/xmalloc.h"
#include "tests/lib/skip.h"

/* The whole file at path, or NULL. */
static char *
capture(const char *path)
{
	char  *buf = NULL;
	size_t len = 0;
	FILE  *f, *m;
	int    c;

	if ((f = fopen(path, "r")) == NULL)
		return NULL;
	m = open_memstream(&buf, &len);
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(m);
	fclose(f);
	return buf;
}

/* The capture of path, or a skip of the test without it. */
static char *
capture_or_skip(const char *path)
{
	char *s = capture(path);

	if (s == NULL) {
		skip_machine("no %s on this kernel", path);
	}
	return s;
}

/* The sum of the numbers after "label:" on the row of that label. */
static long long
row_sum(const char *text, const char *label, size_t maxcols)
{
	char	 *copy = xstrdup(text), *line, *save = NULL, *tok, *s2;
	long long sum = -1;
	size_t	  n;

	for (line = strtok_r(copy, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		tok = strtok_r(line, " \t", &s2);
		if (tok == NULL || strlen(tok) != strlen(label) + 1 ||
		    strncmp(tok, label, strlen(label)) != 0)
			continue;
		for (sum = 0, n = 0; n < maxcols &&
		     (tok = strtok_r(NULL, " \t", &s2)) != NULL &&
		     tok[0] >= '0' && tok[0] <= '9';
		     n++)
			sum += atoll(tok);
		break;
	}
	free(copy);
	return sum;
}

/* /proc/vmstat: every line's counter, pgfault as its line says. */
static void
test_vmstat(void **state)
{
	struct obs_counters c = { 0 };
	char		   *text = capture_or_skip("/proc/vmstat"), *why = NULL;
	const char	   *p = strstr(text, "\npgfault ");
	size_t		    lines = 0, i;

	(void)state;
	assert_int_equal(obs_parse_keyvalue(text, &c, &why), 0);
	for (i = 0; text[i] != '\0'; i++)
		lines += text[i] == '\n';
	assert_int_equal(c.n, lines);
	assert_non_null(p);
	assert_int_equal(obs_counter_get(&c, "pgfault"), atoll(p + 9));
	obs_counters_clear(&c);
	free(text);
}

/* /proc/stat: context switches and forks, the first number of a line. */
static void
test_stat(void **state)
{
	struct obs_counters c = { 0 };
	char		   *text = capture_or_skip("/proc/stat"), *why = NULL;

	(void)state;
	assert_int_equal(obs_parse_keyvalue(text, &c, &why), 0);
	assert_int_equal(obs_counter_get(&c, "ctxt"),
	    atoll(strstr(text, "\nctxt ") + 6));
	assert_int_equal(obs_counter_get(&c, "processes"),
	    atoll(strstr(text, "\nprocesses ") + 11));
	obs_counters_clear(&c);
	free(text);
}

/* Checks the rows of an interrupts capture, and its per-CPU sums. */
static void
check_interrupts(const char *path, const char *const *labels)
{
	struct obs_counters c = { 0 };
	char		   *text = capture_or_skip(path), *why = NULL, cpu[32];
	size_t		    ncpu = (size_t)sysconf(_SC_NPROCESSORS_ONLN), i;
	long long	    percpu = 0;

	assert_true(ncpu > 0);
	assert_int_equal(obs_parse_interrupts(text, &c, &why), 0);
	for (i = 0; labels[i] != NULL; i++)
		if (row_sum(text, labels[i], ncpu) >= 0)
			assert_int_equal(obs_counter_get(&c, labels[i]),
			    row_sum(text, labels[i], ncpu));
	for (i = 0; i < ncpu; i++) {
		snprintf(cpu, sizeof cpu, "cpu%zu", i);
		assert_true(obs_counter_get(&c, cpu) >= 0);
		percpu += obs_counter_get(&c, cpu);
	}
	assert_true(percpu <= obs_counter_get(&c, "total"));
	assert_true(obs_counter_get(&c, "total") > 0);
	obs_counters_clear(&c);
	free(text);
}

/* /proc/interrupts: the named rows and the first numbered one. */
static void
test_interrupts(void **state)
{
	static const char *const labels[] = { "LOC", "RES", "CAL", "TLB", "NMI",
		"0", "1", NULL };

	(void)state;
	check_interrupts("/proc/interrupts", labels);
}

/* /proc/softirqs: every kind. */
static void
test_softirqs(void **state)
{
	static const char *const labels[] = { "HI", "TIMER", "NET_TX", "NET_RX",
		"BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU",
		NULL };

	(void)state;
	check_interrupts("/proc/softirqs", labels);
}

/* /proc/schedstat: per-CPU fields summed over the "cpuN" lines. */
static void
test_schedstat(void **state)
{
	struct obs_counters c = { 0 };
	char	 *text = capture_or_skip("/proc/schedstat"), *why = NULL;
	char	 *copy = xstrdup(text), *line, *save = NULL;
	long long ttwu = 0, delay = 0, a[9];

	(void)state;
	assert_int_equal(obs_parse_schedstat(text, &c, &why), 0);
	for (line = strtok_r(copy, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line,
			"cpu%*d %lld %lld %lld %lld %lld %lld %lld "
			"%lld %lld",
			a, a + 1, a + 2, a + 3, a + 4, a + 5, a + 6, a + 7,
			a + 8) == 9) {
			ttwu += a[4];
			delay += a[7];
		}
	assert_int_equal(obs_counter_get(&c, "ttwu_count"), ttwu);
	assert_int_equal(obs_counter_get(&c, "run_delay"), delay);
	assert_true(obs_counter_get(&c, "version") >= 15);
	obs_counters_clear(&c);
	free(copy);
	free(text);
}

/* Text that is not the file a parser reads is refused, saying why. */
static void
test_refused(void **state)
{
	struct obs_counters c = { 0 };
	char		   *text = capture_or_skip("/proc/vmstat"), *why = NULL;

	(void)state;
	assert_int_equal(obs_parse_schedstat(text, &c, &why), -1);
	assert_string_equal(why, "no \"version\" line");
	free(why);
	why = NULL;
	assert_int_equal(obs_parse_schedstat("version 14\ncpu0 1 2 3\n", &c,
			     &why),
	    -1);
	assert_string_equal(why, "version 14: only 15 or later is read");
	free(why);
	why = NULL;
	assert_int_equal(obs_parse_interrupts(text, &c, &why), -1);
	assert_string_equal(why, "no \"CPU0\" header");
	free(why);
	obs_counters_clear(&c);
	free(text);
}

/*
 * function_graph output captured now (HILAB_GRAPH_CAPTURE names a file
 * the caller captured from tracefs at test time): each timed line's
 * duration as its own text gives it.
 */
static void
test_graph(void **state)
{
	const char *path = getenv("HILAB_GRAPH_CAPTURE");
	char	   *text, *copy, *line, *save = NULL, fn[128], *bar;
	size_t	    timed = 0;
	double	    ns;

	(void)state;
	if (path == NULL || (text = capture(path)) == NULL) {
		skip_machine("no function_graph capture (made by the lab "
			     "test in a guest)");
	}
	copy = xstrdup(text);
	for (line = strtok_r(copy, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!obs_parse_graph_line(line, fn, sizeof fn, &ns))
			continue;
		bar = strchr(line, '|');
		assert_non_null(strstr(bar, fn));
		assert_true(ns > 0);
		timed++;
	}
	assert_true(timed > 0);
	free(copy);
	free(text);
}

/*
 * kprobe events printed with options/raw, captured now (HILAB_RAW_CAPTURE
 * names a file the caller captured from tracefs at test time, its line
 * "ids ENTRY RETURN" the events' ids): every event line is read with its
 * own pid, CPU and timestamp, of one of the two events, both seen.
 */
static void
test_raw(void **state)
{
	const char	    *path = getenv("HILAB_RAW_CAPTURE");
	struct obs_raw_event ev;
	char		    *text, *copy, *line, *save = NULL;
	long		     ids[2] = { -1, -1 }, pid;
	size_t		     seen[2] = { 0, 0 };
	unsigned long long   ts;

	(void)state;
	if (path == NULL || (text = capture(path)) == NULL) {
		skip_machine("no kprobe capture (made by the lab test in a "
			     "guest)");
	}
	copy = xstrdup(text);
	for (line = strtok_r(copy, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "ids %ld %ld", &ids[0], &ids[1]) == 2)
			continue;
		assert_int_equal(obs_parse_raw_line("# tracer: nop", &ev), 0);
		if (!obs_parse_raw_line(line, &ev))
			continue;
		assert_int_equal(sscanf(line, "%ld %*d %llu", &pid, &ts), 2);
		assert_int_equal(ev.pid, pid);
		assert_true(ev.ts == ts);
		assert_true(ev.type == ids[0] || ev.type == ids[1]);
		seen[ev.type == ids[1]]++;
	}
	assert_true(seen[0] > 0 && seen[1] > 0);
	free(copy);
	free(text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vmstat),
		cmocka_unit_test(test_stat),
		cmocka_unit_test(test_interrupts),
		cmocka_unit_test(test_softirqs),
		cmocka_unit_test(test_schedstat),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_graph),
		cmocka_unit_test(test_raw),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
