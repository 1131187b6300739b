/*
 * Metric declarations, read alike from the catalog and from a job's custom
 * command (catalog_read_metrics): what a metric is called, its unit, which
 * direction is better and the statistic that sums up its samples.
 */
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "benchmarks/catalog.h"
#include "common/conf.h"
#include "common/metric.h"
#include "common/xmalloc.h"

static const char *const catalog_directions[] = { "higher", "lower", NULL };
static const char *const catalog_statistics[] = { "amean", "hmean", "gmean",
	"median", NULL };

/* Names a direction. */
const char *
catalog_direction_name(enum catalog_direction d)
{
	return (catalog_directions[d]);
}

/* Names a statistic. */
const char *
catalog_statistic_name(enum catalog_statistic s)
{
	return (catalog_statistics[s]);
}

/*
 * A metric's "name": what parsers emit, A-Z a-z 0-9 . _ -, or a pattern
 * with '*' that declares every emitted name it matches.
 */
static void
catalog_parse_metric_name(struct conf_file *f, const struct conf_key *k,
    yaml_node_t *v, void *dst)
{
	static const char expect[] =
	    "characters from A-Z a-z 0-9 . _ - and '*' (a pattern)";
	const char *s = conf_scalar(f, k, v, expect);

	if (s == NULL)
		return;
	if (*s == '\0' ||
	    strspn(s,
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		"0123456789._-*") != strlen(s))
		conf_expect(f, k, v, expect);
	else
		conf_set_str(dst, s);
}

#define MET(f)		    offsetof(struct catalog_metric, f)
#define CATALOG_METRIC_UNIT 1 /* the index of "unit" below */

static const struct conf_key catalog_metric_keys[] = {
	{ .name = "name",
	    .parse = catalog_parse_metric_name,
	    .off = MET(name),
	    .flags = CONF_REQUIRED },
	{ .name = "unit",
	    .parse = conf_parse_str,
	    .off = MET(unit),
	    .flags = CONF_EMPTY_OK },
	{ .name = "direction",
	    .parse = conf_parse_enum,
	    .off = MET(direction),
	    .flags = CONF_REQUIRED,
	    .choices = catalog_directions },
	{ .name = "statistic",
	    .parse = conf_parse_enum,
	    .off = MET(statistic),
	    .choices = catalog_statistics },
	{ .name = "label", .parse = conf_parse_str, .off = MET(label) },
	{ .name = "optional", .parse = conf_parse_bool, .off = MET(optional) },
	{ .name = NULL },
};

/* Reads one metric against keys; reports a name an earlier one has. */
static void
catalog_metric(struct conf_file *f, const struct conf_key *keys, yaml_node_t *n,
    struct catalog_metric **v, size_t *nv)
{
	struct catalog_metric *m;
	size_t		       i;

	*v = xreallocarray(*v, *nv + 1, sizeof(**v));
	m = &(*v)[(*nv)++];
	memset(m, 0, sizeof(*m));
	conf_mapping(f, n, keys, m, "metrics");
	if (m->unit == NULL)
		m->unit = xstrdup("");
	for (i = 0; m->name != NULL && i + 1 < *nv; i++)
		if ((*v)[i].name != NULL &&
		    strcmp(m->name, (*v)[i].name) == 0) {
			conf_error(f, n, "duplicate metric \"%s\"", m->name);
			break;
		}
}

/* Reads "metrics" into *metrics and *n; see catalog.h. */
void
catalog_read_metrics(struct conf_file *f, const struct conf_key *k,
    yaml_node_t *v, bool need_unit, struct catalog_metric **metrics, size_t *n)
{
	struct conf_key
	    keys[sizeof(catalog_metric_keys) / sizeof(catalog_metric_keys[0])];
	yaml_node_t *item;
	size_t	     i;

	if (conf_seq(f, k, v, "a non-empty list") == NULL)
		return;
	memcpy(keys, catalog_metric_keys, sizeof(keys));
	if (need_unit)
		keys[CATALOG_METRIC_UNIT].flags = CONF_REQUIRED;
	for (i = 0; i < conf_seq_len(v); i++) {
		item = conf_seq_item(f, v, i);
		if (item->type == YAML_MAPPING_NODE)
			catalog_metric(f, keys, item, metrics, n);
		else
			conf_error(f, item, "metric must be a mapping");
	}
}

/* Frees n metrics and the array. */
void
catalog_metrics_free(struct catalog_metric *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].unit);
		free(v[i].label);
	}
	free(v);
}

/* Returns the metric that declares name: exactly, else by pattern. */
const struct catalog_metric *
catalog_metric_find(const struct catalog_metric *v, size_t n, const char *name)
{
	const struct catalog_metric *best = NULL;
	size_t			     i;
	int			     m, best_m = 0;

	for (i = 0; i < n && best_m < 2; i++) {
		if ((m = metric_declares(v[i].name, name)) > best_m) {
			best = &v[i];
			best_m = m;
		}
	}
	return best;
}
