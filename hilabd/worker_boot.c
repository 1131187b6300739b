/*
 * Where a machine is booted into a job's kernel: once per (job, kernel,
 * round), through the machine's backend (machines/backend.h), and proven
 * after every boot by the agent's facts (machines/verify.h).
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "hilabd/worker.h"
#include "machines/agent_client.h"
#include "machines/backend.h"
#include "machines/verify.h"

/* Forgets the booted kernel. */
static void
worker_booted_clear(struct worker_booted *b)
{
	free(b->name);
	free(b->release);
	free(b->version);
	free(b->cmdline);
	memset(b, 0, sizeof *b);
}

/* Copies a string member of the kernel spec JSON, or NULL. */
static char *
worker_spec_str(json_t *spec, const char *key)
{
	const char *s = json_string_value(json_object_get(spec, key));

	return s != NULL && *s != '\0' ? xstrdup(s) : NULL;
}

/*
 * Fills what the booted kernel must show: the release and version from the
 * image's header, and for a kernel hilab built, its build id in uname -v
 * ("#<build id> SMP ..."), which also proves an image without a header.
 */
static void
worker_expect(struct worker_booted *b, const char *image, const char *build_id)
{
	char *cause = NULL, *word;

	if (image == NULL)
		return;
	if (verify_image_version(image, &b->release, &b->version, &cause) ==
	    -1) {
		log_debug("boot", "%s: release not checked", cause);
		free(cause);
	}
	if (build_id == NULL)
		return;
	word = xasprintf("#%s ", build_id);
	if (b->version == NULL || strstr(b->version, word) == NULL) {
		free(b->version);
		b->version = xasprintf("#%s", build_id);
	}
	free(word);
}

/* What the machine's own kernel must show: an ssh host's known-good. */
static void
worker_expect_own(struct worker_ctx *ctx)
{
	const struct machine *m = ctx->w->machine;

	if (m->kind == MACHINE_SSH && m->boot.known_good != NULL)
		ctx->booted.release = xstrdup(m->boot.known_good);
}

/*
 * True if the kernel must be booted: one with an image, or the machine's
 * own on a VM or on an ssh host that may run another now.
 */
static bool
worker_must_boot(const struct machine *m, json_t *spec)
{
	return m->kind != MACHINE_SSH || m->boot.method != MACHINE_BOOT_NONE ||
	    json_object_get(spec, "image") != NULL;
}

/*
 * Refuses an image built for another arch than the machine's (a bzImage
 * for an arm64 VM): no boot is spent on it.  0, or -1 with *cause.
 */
static int
worker_image_arch(const struct machine *m, const struct db_kernel *k,
    json_t *spec, char **cause)
{
	const char *image = json_string_value(json_object_get(spec, "image"));
	const char *arch = image != NULL ? verify_image_arch(image) : NULL;

	if (arch == NULL || m->arch == NULL || strcmp(arch, m->arch) == 0)
		return 0;
	*cause = xasprintf("kernel \"%s\": image \"%s\" is for %s, machine "
			   "\"%s\" is %s",
	    k->name, image, arch, m->name, m->arch);
	return -1;
}

/* The run a boot is made for, to log its boots made again. */
struct worker_boot_arg {
	struct worker_ctx   *ctx;
	const struct db_run *run;
	const char	    *kernel;
};

/* Logs a boot made again, and why, as an event of the run. */
static void
worker_boot_retry(void *arg, int boot, enum backend_failure f, const char *why)
{
	struct worker_boot_arg *a = arg;
	char		       *msg;

	msg = xasprintf("boot %d of kernel \"%s\" failed (%s%s): %s; "
			"booting again on a fresh domain",
	    boot, a->kernel, backend_failure_name(f),
	    f == BACKEND_FAIL_EMULATOR ? ", not the kernel's" : "", why);
	worker_event(a->ctx, a->run, DB_WARN, msg);
	free(msg);
}

/*
 * Boots bk through the backend, again after a failure that is not the
 * kernel's (backend_boot_tries), and records the boots it took; the
 * console of a boot that failed is kept with the run.
 */
static int
worker_boot_backend(struct worker_ctx *ctx, const struct db_run *r,
    const struct backend_kernel *bk, char **cause)
{
	struct worker_boot_arg arg = { ctx, r, bk->name };
	char		      *console, *ignore = NULL;
	int		       rc, boots = 0;

	rc = backend_boot_tries(ctx->backend, bk, worker_boot_retry, &arg,
	    &boots, cause);
	ctx->booted.boots = boots;
	if (db_run_set_boot_tries(ctx->db, r->id, boots, &ignore) == -1) {
		log_warn(worker_name(ctx), "%s", ignore);
		free(ignore);
		ignore = NULL;
	}
	if (rc == -1 && (console = backend_console(ctx->backend)) != NULL) {
		db_run_set_console(ctx->db, r->id, console, &ignore);
		free(ignore);
		free(console);
	}
	return rc;
}

/*
 * Says that kernel k is booted for run r: an event of the run when the
 * machine switches kernels (a VM, an ssh host with a boot method, an
 * image); an ssh host that only runs its own kernel boots nothing, which
 * is only logged.  Returns whether the boot is one to tell.
 */
static bool
worker_boot_say(struct worker_ctx *ctx, const struct db_run *r,
    const struct db_kernel *k, const char *image)
{
	const struct machine *m = ctx->w->machine;
	char		     *msg;

	if (m->kind == MACHINE_SSH && m->boot.method == MACHINE_BOOT_NONE &&
	    image == NULL) {
		log_info(worker_name(ctx), "booting kernel \"%s\" (round %d)",
		    k->name, r->round);
		return false;
	}
	msg = xasprintf("booting kernel \"%s\" (round %d)", k->name, r->round);
	worker_event(ctx, r, DB_INFO, msg);
	free(msg);
	return true;
}

/*
 * Boots image (NULL: the machine's own kernel) through the backend; how
 * long a boot it tells took is kept for the run's story (worker.c).
 */
static int
worker_boot_image(struct worker_ctx *ctx, const struct db_run *r,
    const struct db_kernel *k, json_t *spec, char **cause)
{
	struct backend_kernel bk = { .name = k->name, .cmdline = k->cmdline };
	char		     *image = worker_spec_str(spec, "image");
	char		     *initrd = worker_spec_str(spec, "initrd");
	char		     *dtb = worker_spec_str(spec, "dtb");
	char		     *modules = worker_spec_str(spec, "modules");
	char		     *release = worker_spec_str(spec, "release");
	int64_t		      t0 = clock_now_ms();
	bool		      told;
	int		      rc;

	bk.image = image;
	bk.initrd = initrd;
	bk.dtb = dtb;
	bk.modules = modules;
	bk.release = release;
	worker_disconnect(ctx);
	told = worker_boot_say(ctx, r, k, image);
	if ((rc = worker_boot_backend(ctx, r, &bk, cause)) == 0) {
		ctx->booted.tell = told; /* with the release it shows */
		ctx->booted.took_ms = clock_now_ms() - t0;
		if (image != NULL)
			worker_expect(&ctx->booted, image,
			    json_string_value(
				json_object_get(spec, "build_id")));
		else
			worker_expect_own(ctx);
	}
	free(image);
	free(initrd);
	free(dtb);
	free(modules);
	free(release);
	return rc;
}

int
worker_boot(struct worker_ctx *ctx, const struct db_run *r, char **cause)
{
	struct worker_booted *b = &ctx->booted;
	struct db_kernel     *k;
	json_t		     *spec;
	int		      rc = 0;

	if (b->valid && b->job == r->job && b->kernel == r->kernel &&
	    b->round == r->round)
		return 0;
	if ((k = db_kernel_get(ctx->db, r->kernel, cause)) == NULL)
		return -1;
	worker_booted_clear(b);
	spec = json_loads(k->spec, 0, NULL);
	/* A host that cannot switch kernels is only checked. */
	if (worker_must_boot(ctx->w->machine, spec))
		rc = worker_image_arch(ctx->w->machine, k, spec, cause) == -1
		    ? -1
		    : worker_boot_image(ctx, r, k, spec, cause);
	if (rc == 0) {
		b->valid = true;
		b->job = r->job;
		b->kernel = r->kernel;
		b->round = r->round;
		b->name = xstrdup(k->name);
		b->cmdline = k->cmdline ? xstrdup(k->cmdline) : NULL;
	}
	json_decref(spec);
	db_kernel_free(k);
	return rc;
}

int
worker_boot_verify(struct worker_ctx *ctx, const struct agent_facts *facts,
    char **cause)
{
	const struct worker_booted *b = &ctx->booted;
	struct verify_expect	    e = { b->name, b->release, b->version,
		       b->cmdline };

	return verify_facts(facts, &e, cause);
}

void
worker_boot_topology(struct worker_ctx *ctx, const struct db_run *r,
    struct agent_facts *facts)
{
	const struct machine *m = ctx->w->machine;
	const char	     *seen = agent_facts_get(facts, "topo.llc_groups");
	char		     *msg;

	if (m->topo.llc_groups == NULL || seen == NULL ||
	    verify_cpugroups_same(m->topo.llc_groups, seen))
		return;
	msg = xasprintf("machine \"%s\": the kernel shows LLC groups %s, the "
			"machine file says %s",
	    m->name, seen, m->topo.llc_groups);
	worker_event(ctx, r, DB_WARN, msg);
	free(msg);
	agent_facts_add(facts, "topo.llc_groups_expected", m->topo.llc_groups);
}

void
worker_boot_end(struct worker_ctx *ctx, bool stopping)
{
	const struct machine *m = ctx->w->machine;
	char		     *cause = NULL;

	/* A stopping controller leaves a host as it is: its runs resume. */
	if (ctx->backend != NULL && ctx->booted.valid &&
	    (m->kind == MACHINE_LIBVIRT ||
		(!stopping && m->boot.method != MACHINE_BOOT_NONE))) {
		worker_disconnect(ctx);
		if (backend_shutdown(ctx->backend, &cause) == -1) {
			log_warn(worker_name(ctx), "%s", cause);
			free(cause);
		}
	}
	worker_booted_clear(&ctx->booted);
}
