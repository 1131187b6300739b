/*
 * hilab's grammar as data (cli/options.c) against the code it stands for:
 * each command's handler id is used once, the choices of options are the
 * libraries' own names (every renderer style, --by, --rows, statistics,
 * formats, power actions), and the table is complete enough to write man
 * pages from: a summary for every command and a help for every option.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cli/options.h"
#include "machines/power.h"
#include "report/compare.h"
#include "report/plot.h"
#include "report/render.h"
#include "report/render_query.h"
#include "report/select.h"

/* Whether v (NULL-ended) holds s. */
static bool
has(const char *const *v, const char *s)
{
	for (; *v != NULL; v++)
		if (strcmp(*v, s) == 0)
			return true;
	return false;
}

/* Checks a command and its subcommands; counts the uses of each id. */
static void
check_cmd(const struct args_cmd *c, int *uses)
{
	const struct args_opt *o;
	const struct args_pos *p;

	assert_non_null(c->summary);
	if (c->subs != NULL) {
		assert_int_equal(c->id, -1);
		for (c = c->subs; c->name != NULL; c++)
			check_cmd(c, uses);
		return;
	}
	assert_in_range(c->id, 0, CLI_NCMDS - 1);
	uses[c->id]++;
	for (o = c->opts; o != NULL && o->name != NULL; o++) {
		assert_non_null(o->help);
		assert_true((o->type == ARGS_FLAG) == (o->metavar == NULL));
		assert_true((o->type == ARGS_CHOICE) == (o->choices != NULL));
	}
	for (p = c->args; p != NULL && p->name != NULL; p++) {
		assert_non_null(p->help);
		assert_true((p->type == ARGS_CHOICE) == (p->choices != NULL));
	}
}

/* Every leaf has a handler id of its own, and each id has a leaf. */
static void
test_ids(void **state)
{
	const struct args_cmd *c;
	int		       uses[CLI_NCMDS] = { 0 }, i;

	(void)state;
	for (c = cli_prog.cmds; c->name != NULL; c++)
		check_cmd(c, uses);
	for (i = 0; i < CLI_NCMDS; i++)
		assert_int_equal(uses[i], 1);
	assert_non_null(cli_prog.exits);
	assert_int_equal(cli_prog.exits[CLI_EXIT_TIMEOUT].code,
	    CLI_EXIT_TIMEOUT);
}

/* The choices are what the libraries read, and all of it. */
static void
test_choices(void **state)
{
	const struct render_style *s;
	enum select_by		   by;
	enum select_rows	   rows;
	enum compare_stat	   stat;
	enum plot_format	   pf;
	enum render_query_format   qf;
	enum power_action	   pa;
	size_t			   i, n = 0;

	(void)state;
	for (s = render_styles; s->name != NULL; s++, n++)
		assert_true(has(cli_styles, s->name));
	for (i = 0; cli_styles[i] != NULL; i++)
		assert_non_null(render_find(cli_styles[i]));
	assert_int_equal(i, n);
	for (i = 0; cli_report_styles[i] != NULL; i++)
		assert_non_null(render_find(cli_report_styles[i]));
	for (i = 0; cli_by[i] != NULL; i++) {
		assert_int_equal(select_by_parse(cli_by[i], &by), 0);
		assert_string_equal(select_by_name(by), cli_by[i]);
	}
	for (i = 0; cli_rows[i] != NULL; i++) {
		assert_int_equal(select_rows_parse(cli_rows[i], &rows), 0);
		assert_string_equal(select_rows_name(rows), cli_rows[i]);
	}
	for (i = 0; cli_statistics[i] != NULL; i++)
		assert_int_equal(compare_stat_parse(cli_statistics[i], &stat),
		    0);
	assert_int_equal(i, COMPARE_MEDIAN + 1);
	for (i = 0; cli_plot_formats[i] != NULL; i++)
		assert_int_equal(plot_format_parse(cli_plot_formats[i], &pf),
		    0);
	for (i = 0; cli_query_formats[i] != NULL; i++)
		assert_int_equal(render_query_format_parse(cli_query_formats[i],
				     &qf),
		    0);
	for (i = 0; cli_power_actions[i] != NULL; i++)
		assert_true(strcmp(cli_power_actions[i], "status") == 0 ||
		    power_action_parse(cli_power_actions[i], &pa) == 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_choices),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
