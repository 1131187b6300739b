/*
 * The template of a bisection's step jobs (bisect/template.h): made by
 * hilab bisect start from a job file and by hilabd from a sweep's job.
 */
#include <stdlib.h>

#include "bisect/template.h"

char *
bisect_template(const json_t *spec, const json_t *kernel, const json_t *bench,
    const char *machine, const char *tree)
{
	json_t *o = json_deep_copy(spec);
	json_t *k = json_deep_copy(kernel), *b = json_deep_copy(bench);
	char   *text;

	json_object_set_new(k, "name", json_string("tip"));
	json_object_set_new(k, "git", json_string(tree));
	json_object_del(b, "kernel");
	json_object_set_new(o, "machines", json_pack("[s]", machine));
	json_object_set_new(o, "kernels", json_pack("[o]", k));
	json_object_set_new(o, "benchmarks", json_pack("[o]", b));
	json_object_set_new(o, "rounds", json_integer(1));
	text = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return text;
}
