/*
 * libFuzzer target for the YAML loaders, one kind per build (FUZZ_KIND):
 * job files (checked against the catalog and the example machines),
 * machine files and catalog files.  Whatever the input, a load ends in a
 * value or in errors with their cause, never in a crash, a leak or a hang;
 * and what it accepts prints as a file that loads again to the same print
 * (for a job, its JSON too gives back the same job).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config.h"

#include "benchmarks/catalog.h"
#include "common/xmalloc.h"
#include "jobs/job.h"
#include "jobs/plan.h"
#include "machines/inventory.h"

#define FUZZ_JOB     1
#define FUZZ_MACHINE 2
#define FUZZ_CATALOG 3

/* Jobs that expand to more runs than this are not planned. */
#define FUZZ_MAX_RUNS 1000

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct catalog	*fuzz_catalog;
static struct inventory *fuzz_inventory;
static char		 fuzz_path[64];
static int		 fuzz_fd = -1;

/* Frees what LLVMFuzzerInitialize loaded, so that no leak is reported. */
static void
fuzz_cleanup(void)
{
	catalog_free(fuzz_catalog);
	inventory_free(fuzz_inventory);
	close(fuzz_fd);
}

/* Loads what job files are checked against; makes the scratch file. */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char *cause = NULL;

	atexit(fuzz_cleanup);
	fuzz_catalog = catalog_load(HILAB_SRCDIR "/benchmarks", &cause);
	if (fuzz_catalog == NULL) {
		fprintf(stderr, "fuzz: catalog: %s\n", cause);
		exit(1);
	}
	fuzz_inventory =
	    inventory_load(HILAB_SRCDIR "/examples/machines", &cause);
	if (fuzz_inventory == NULL) {
		fprintf(stderr, "fuzz: machines: %s\n", cause);
		exit(1);
	}
	if ((fuzz_fd = memfd_create("fuzz.yaml", MFD_CLOEXEC)) == -1) {
		perror("fuzz: memfd_create");
		exit(1);
	}
	snprintf(fuzz_path, sizeof fuzz_path, "/proc/self/fd/%d", fuzz_fd);
	return 0;
}

/* Puts text in the scratch file the file loaders read. */
static void
fuzz_write(const void *data, size_t size)
{
	if (ftruncate(fuzz_fd, 0) == -1 ||
	    pwrite(fuzz_fd, data, size, 0) != (ssize_t)size) {
		perror("fuzz: scratch file");
		abort();
	}
}

/* Fails the input: what was accepted does not come back the same. */
static void
fuzz_differ(const char *what, const char *a, const char *b)
{
	fprintf(stderr, "fuzz: %s differs\n--- first:\n%s\n--- then:\n%s\n",
	    what, a, b);
	abort();
}

/* A job's normalized YAML (caller frees). */
static char *
fuzz_job_print(const struct job *job)
{
	char  *buf = NULL;
	size_t len = 0;
	FILE  *f;

	if ((f = open_memstream(&buf, &len)) == NULL)
		abort();
	job_print(f, job);
	fclose(f);
	return buf;
}

/* A job accepted: through its JSON and its print, and planned if small. */
static void
fuzz_job_accepted(const struct job *job)
{
	struct job *back;
	struct plan plan;
	char	   *cause = NULL, *json, *json2, *yaml, *yaml2;

	json = job_to_json(job);
	if ((back = job_from_json(json, &cause)) == NULL)
		fuzz_differ("the job's own json", json, cause);
	json2 = job_to_json(back);
	if (strcmp(json, json2) != 0)
		fuzz_differ("json", json, json2);
	job_free(back);
	yaml = fuzz_job_print(job);
	back = job_load_string("printed.yaml", yaml, strlen(yaml), fuzz_catalog,
	    fuzz_inventory, &cause);
	if (back == NULL)
		fuzz_differ("the job's own print", yaml, cause);
	yaml2 = fuzz_job_print(back);
	if (strcmp(yaml, yaml2) != 0)
		fuzz_differ("print", yaml, yaml2);
	job_free(back);
	if (plan_count_per_machine(job) <= FUZZ_MAX_RUNS &&
	    plan_build(job, &plan, &cause) == 0)
		plan_free(&plan);
	free(cause);
	free(json);
	free(json2);
	free(yaml);
	free(yaml2);
}

/* One job file. */
static void
fuzz_job(const uint8_t *data, size_t size)
{
	struct job *job;
	char	   *cause = NULL;

	job = job_load_string("fuzz.yaml", (const char *)data, size,
	    fuzz_catalog, fuzz_inventory, &cause);
	if (job == NULL) {
		if (cause == NULL)
			abort();
		free(cause);
		return;
	}
	fuzz_job_accepted(job);
	job_free(job);
}

/* An inventory's normalized YAML (caller frees). */
static char *
fuzz_inventory_print(const struct inventory *inv)
{
	char  *buf = NULL;
	size_t len = 0;
	FILE  *f;

	if ((f = open_memstream(&buf, &len)) == NULL)
		abort();
	inventory_print(f, inv);
	fclose(f);
	return buf;
}

/* One machine file; one accepted prints, and loads again the same. */
static void
fuzz_machine(const uint8_t *data, size_t size)
{
	struct inventory *inv, *back;
	char		 *cause = NULL, *yaml, *yaml2;

	fuzz_write(data, size);
	if ((inv = inventory_load_file(fuzz_path, &cause)) == NULL) {
		if (cause == NULL)
			abort();
		free(cause);
		return;
	}
	yaml = fuzz_inventory_print(inv);
	fuzz_write(yaml, strlen(yaml));
	if ((back = inventory_load_file(fuzz_path, &cause)) == NULL)
		fuzz_differ("the machines' own print", yaml, cause);
	yaml2 = fuzz_inventory_print(back);
	if (strcmp(yaml, yaml2) != 0)
		fuzz_differ("print", yaml, yaml2);
	free(yaml);
	free(yaml2);
	inventory_free(back);
	inventory_free(inv);
}

/* A catalog's benchmarks as catalog files, one after another. */
static char *
fuzz_catalog_print(const struct catalog *cat)
{
	char  *buf = NULL;
	size_t len = 0, i;
	FILE  *f;

	if ((f = open_memstream(&buf, &len)) == NULL)
		abort();
	for (i = 0; i < cat->n; i++)
		catalog_print(f, &cat->v[i]);
	fclose(f);
	return buf;
}

/* One catalog file; one accepted prints, and loads again the same. */
static void
fuzz_catalog_file(const uint8_t *data, size_t size)
{
	struct catalog *cat, *back;
	char	       *cause = NULL, *yaml, *yaml2;

	fuzz_write(data, size);
	if ((cat = catalog_load_file(fuzz_path, &cause)) == NULL) {
		if (cause == NULL)
			abort();
		free(cause);
		return;
	}
	yaml = fuzz_catalog_print(cat);
	fuzz_write(yaml, strlen(yaml));
	if ((back = catalog_load_file(fuzz_path, &cause)) == NULL)
		fuzz_differ("the catalog's own print", yaml, cause);
	yaml2 = fuzz_catalog_print(back);
	if (strcmp(yaml, yaml2) != 0)
		fuzz_differ("print", yaml, yaml2);
	free(yaml);
	free(yaml2);
	catalog_free(back);
	catalog_free(cat);
}

/* One input as a file of FUZZ_KIND. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	switch (FUZZ_KIND) {
	case FUZZ_JOB:
		fuzz_job(data, size);
		break;
	case FUZZ_MACHINE:
		fuzz_machine(data, size);
		break;
	default:
		fuzz_catalog_file(data, size);
		break;
	}
	return 0;
}
