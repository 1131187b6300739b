/*
 * What a selection's cells hold besides their column's kernel, machine or
 * job: refused when a cell pools several, noted with --pool, and the
 * machines of each column; the --base a table must have.
 */
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "report/compare.h"
#include "report/select_int.h"

/* Adds a name to a set unless it is there. */
void
select_set_add(struct select_set *set, const char *s)
{
	size_t i;

	for (i = 0; i < set->n; i++) {
		if (strcmp(set->v[i], s) == 0)
			return;
	}
	set->v = xreallocarray(set->v, set->n + 1, sizeof *set->v);
	set->v[set->n++] = xstrdup(s);
}

/* Frees the names of a set. */
void
select_set_clear(struct select_set *set)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		free(set->v[i]);
	free(set->v);
	memset(set, 0, sizeof *set);
}

/* The names of a set as "a", "b" (caller frees). */
char *
select_set_text(const struct select_set *set, const char *quote)
{
	char  *s = xstrdup(""), *t;
	size_t i;

	for (i = 0; i < set->n; i++) {
		t = xasprintf("%s%s%s%s%s", s, i ? ", " : "", quote, set->v[i],
		    quote);
		free(s);
		s = t;
	}
	return s;
}

/* The kind of name a column of by holds. */
static int
sel_column_kind(enum select_by by)
{
	return by == SELECT_BY_KERNEL ? SEL_WHO_KERNEL
	    : by == SELECT_BY_MACHINE ? SEL_WHO_MACHINE
				      : SEL_WHO_JOB;
}

/* The names of one kind behind a column, over all its cells. */
static void
sel_column_who(const struct sel_table *g, size_t col, int kind,
    struct select_set *out)
{
	size_t i, j;

	for (i = 0; i < g->ncells; i++) {
		if (g->cells[i].col != col)
			continue;
		for (j = 0; j < g->cells[i].who[kind].n; j++)
			select_set_add(out, g->cells[i].who[kind].v[j]);
	}
}

/* "machines", "kernels", "jobs". */
static const char *
sel_who_name(int kind)
{
	static const char *names[] = { "machines", "kernels", "jobs" };

	return names[kind];
}

/*
 * Says which machines each column comes from and notes what a column
 * pools (allowed with --pool only; select_pooled refuses it otherwise).
 */
void
select_describe(const struct sel_table *g, enum select_by by, bool several,
    struct compare_table *t)
{
	struct select_set set = { 0 };
	char		 *names;
	size_t		  j;
	int		  k;

	t->show_machines = several;
	for (j = 0; j < g->ncols; j++) {
		sel_column_who(g, j, SEL_WHO_MACHINE, &set);
		names = select_set_text(&set, "");
		compare_table_set_machines(t, j, names);
		free(names);
		select_set_clear(&set);
		for (k = 0; k < SEL_NWHO; k++) {
			if (k == sel_column_kind(by))
				continue;
			sel_column_who(g, j, k, &set);
			names = select_set_text(&set, "\"");
			if (set.n > 1)
				compare_table_add_note(t,
				    "pooled (--pool): column \"%s\" holds "
				    "the samples of %s %s",
				    g->cols[j], sel_who_name(k), names);
			free(names);
			select_set_clear(&set);
		}
	}
}

/*
 * Refuses (SELECT_REFUSED) a cell whose samples come from more than one
 * machine, kernel or job besides what its column is, naming them.
 */
int
select_refuse_pooled(const struct sel_gather *g, char **cause)
{
	const struct sel_table *t;
	const struct sel_cell  *c;
	char		       *names;
	size_t			i, j;
	int			k;

	for (i = 0; i < g->n; i++) {
		t = &g->v[i];
		for (j = 0; j < t->ncells; j++) {
			c = &t->cells[j];
			for (k = 0; k < SEL_NWHO; k++) {
				if (k == sel_column_kind(g->by) ||
				    c->who[k].n < 2)
					continue;
				names = select_set_text(&c->who[k], "\"");
				*cause = xasprintf(
				    "%s %s%s%s: column \"%s\" would pool "
				    "the samples of %s %s into one cell; "
				    "choose the columns with --by, select "
				    "fewer jobs, or pass --pool",
				    t->benchmark, t->metric,
				    *t->rows[c->row] ? " " : "",
				    t->rows[c->row], t->cols[c->col],
				    sel_who_name(k), names);
				free(names);
				return SELECT_REFUSED;
			}
		}
	}
	return 0;
}

/* Refuses a --base that some table has no column of. */
int
select_check_base(const struct sel_gather *g, const char *base, char **cause)
{
	struct select_set cols = { 0 };
	char		 *names;
	size_t		  i, j;

	for (i = 0; base != NULL && i < g->n; i++) {
		if (select_find(g->v[i].cols, g->v[i].ncols, base) >= 0)
			continue;
		for (j = 0; j < g->v[i].ncols; j++)
			select_set_add(&cols, g->v[i].cols[j]);
		names = select_set_text(&cols, "\"");
		*cause = xasprintf("--base \"%s\": %s %s has no such column "
				   "(its columns: %s)",
		    base, g->v[i].benchmark, g->v[i].metric, names);
		free(names);
		select_set_clear(&cols);
		return SELECT_REFUSED;
	}
	return 0;
}
