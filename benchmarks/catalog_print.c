/*
 * A catalog benchmark printed as a catalog file, every default filled in,
 * through the configuration engine's emitter (hilab benchmarks show);
 * reading it back gives the same benchmark.
 */
#include <stdint.h>
#include <stdio.h>

#include "benchmarks/catalog.h"
#include "common/conf_emit.h"

/* One parameter: {type, default, axis, description}. */
static void
catalog_print_param(struct conf_emit *e, const struct catalog_param *p)
{
	conf_emit_key(e, p->name);
	conf_emit_map(e, false);
	conf_emit_str(e, "type", catalog_param_type_name(p->type));
	conf_emit_str(e, "default", p->def);
	conf_emit_strv(e, "axis", p->axis, p->naxis);
	conf_emit_str(e, "description", p->description);
	conf_emit_end(e);
}

/*
 * "install": a package, or a source tarball, its build commands and its
 * prepare command.
 */
static void
catalog_print_install(struct conf_emit *e, const struct catalog_install *in)
{
	conf_emit_key(e, "install");
	conf_emit_map(e, false);
	conf_emit_str(e, "package", in->package);
	conf_emit_str(e, "source", in->source);
	conf_emit_strv(e, "build", in->build, in->nbuild);
	conf_emit_strv(e, "prepare", in->prepare, in->nprepare);
	conf_emit_end(e);
}

/* "server", if the benchmark needs one. */
static void
catalog_print_server(struct conf_emit *e, const struct catalog_server *sv)
{
	if (sv->command == NULL)
		return;
	conf_emit_key(e, "server");
	conf_emit_map(e, false);
	conf_emit_strv(e, "command", sv->command, sv->ncommand);
	if (sv->port != 0)
		conf_emit_int(e, "port", sv->port);
	conf_emit_end(e);
}

/* One metric, in flow style as the catalog files write them. */
static void
catalog_print_metric(struct conf_emit *e, const struct catalog_metric *m)
{
	conf_emit_map(e, true);
	conf_emit_str(e, "name", m->name);
	conf_emit_str(e, "unit", m->unit);
	conf_emit_str(e, "direction", catalog_direction_name(m->direction));
	conf_emit_str(e, "statistic", catalog_statistic_name(m->statistic));
	conf_emit_str(e, "label", m->label);
	if (m->optional)
		conf_emit_bool(e, "optional", true);
	conf_emit_end(e);
}

/* Prints one benchmark as a catalog file. */
void
catalog_print(FILE *fp, const struct catalog_benchmark *b)
{
	struct conf_emit *e = conf_emit_open(fp);
	size_t		  i;

	conf_emit_map(e, false);
	conf_emit_str(e, "name", b->name);
	conf_emit_str(e, "description", b->description);
	conf_emit_strv(e, "command", b->command, b->ncommand);
	if (b->nparams > 0) {
		conf_emit_key(e, "params");
		conf_emit_map(e, false);
		for (i = 0; i < b->nparams; i++)
			catalog_print_param(e, &b->params[i]);
		conf_emit_end(e);
	}
	catalog_emit_iterations(e, (int)b->iterations, &b->adaptive);
	conf_emit_int(e, "warmups", b->warmups);
	conf_emit_duration(e, "timeout", (int64_t)b->timeout * 1000);
	catalog_print_install(e, &b->install);
	catalog_print_server(e, &b->server);
	conf_emit_str(e, "parser", b->parser);
	conf_emit_str(e, "parser_args", b->parser_args);
	conf_emit_str(e, "parser_sample", b->parser_sample);
	conf_emit_key(e, "metrics");
	conf_emit_seq(e, false);
	for (i = 0; i < b->nmetrics; i++)
		catalog_print_metric(e, &b->metrics[i]);
	conf_emit_end(e);
	conf_emit_end(e);
	conf_emit_close(e);
}
