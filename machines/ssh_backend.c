/*
 * The ssh backend: hosts reached over ssh.  One without a boot section runs
 * only its own kernel.  One with a boot section gets each kernel installed
 * (kinstall.c), made the next boot by its method (boot_kexec.c,
 * boot_grub.c, boot_extlinux.c) and started by a detached command, the
 * console told what to boot if the method must; the backend then waits
 * for the connection to come back with a new boot id, watching the console
 * for a panic, and checks that BOOT_IMAGE= names the install: a host that
 * fell back to its default entry is not taken for the kernel asked for.
 * The "running" kernel, and the end of a job, mean the known-good kernel:
 * a reboot brings it back when the host runs another.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/units.h"
#include "common/xmalloc.h"
#include "machines/backend.h"
#include "machines/boot.h"
#include "machines/console.h"
#include "machines/kinstall.h"
#include "machines/ssh.h"

#define SB_PROBE_MS                                  \
	1500 /* one look whether sshd is up; a panic \
		on the console waits as long */
#define SB_PAUSE_MS	250
#define SB_LOOK_MS	5000 /* reading the boot id of a host just up */
#define SB_EXCERPT	8192
#define SB_CMDLINE_FILE "known-good.cmdline"

struct sb_backend {
	char	       *base_cmdline; /* the known-good kernel's, or NULL */
	struct console *console;      /* of the last switch, or NULL */
	char	       *console_path;
	double		switch_seconds;
};

/* What a host runs: from /proc and uname. */
struct sb_state {
	char *boot_id;
	char *release;
	char *cmdline;
	char  id[KINSTALL_ID_LEN + 1]; /* the install BOOT_IMAGE= names */
};

/* Frees a state's strings. */
static void
sb_state_clear(struct sb_state *st)
{
	free(st->boot_id);
	free(st->release);
	free(st->cmdline);
	memset(st, 0, sizeof *st);
}

void
ssh_backend_booted_id(const char *cmdline, char *id)
{
	const char *p = strstr(cmdline, "BOOT_IMAGE="), *end, *slash;
	size_t	    len;

	id[0] = '\0';
	if (p == NULL || (p != cmdline && p[-1] != ' '))
		return;
	end = p + strcspn(p, " ");
	len = strlen("/vmlinuz");
	if ((size_t)(end - p) < len + KINSTALL_ID_LEN + 1 ||
	    strncmp(end - len, "/vmlinuz", len) != 0)
		return;
	slash = end - len - KINSTALL_ID_LEN - 1;
	if (*slash != '/' ||
	    strspn(slash + 1, "0123456789abcdef") != KINSTALL_ID_LEN)
		return;
	memcpy(id, slash + 1, KINSTALL_ID_LEN);
	id[KINSTALL_ID_LEN] = '\0';
}

/* Reads the host's boot id, release and command line. */
static int
sb_state_read(struct ssh_host *h, int timeout_ms, struct sb_state *st,
    char **cause)
{
	char *out = NULL, *p, *save = NULL;

	memset(st, 0, sizeof *st);
	if (ssh_host_run(h, "read the boot id",
		"cat /proc/sys/kernel/random/boot_id; uname -r; cat "
		"/proc/cmdline",
		timeout_ms, &out, cause) != 0)
		return -1;
	if ((p = strtok_r(out, "\n", &save)) != NULL)
		st->boot_id = xstrdup(p);
	if ((p = strtok_r(NULL, "\n", &save)) != NULL)
		st->release = xstrdup(p);
	st->cmdline = xstrdup((p = strtok_r(NULL, "\n", &save)) ? p : "");
	free(out);
	if (st->release == NULL) {
		*cause = xasprintf("host \"%s\": cannot read its boot id and "
				   "release",
		    ssh_host_name(h));
		sb_state_clear(st);
		return -1;
	}
	ssh_backend_booted_id(st->cmdline, st->id);
	return 0;
}

/* True if the host runs its known-good kernel. */
static bool
sb_known_good(const struct machine *m, const struct sb_state *st)
{
	return st->id[0] == '\0' &&
	    strcmp(st->release, m->boot.known_good) == 0;
}

/* A command line without its BOOT_IMAGE= word (caller frees). */
static char *
sb_strip_boot_image(const char *cmdline)
{
	char	   *out = xcalloc(1, strlen(cmdline) + 1);
	const char *p = cmdline;
	size_t	    len;

	for (p += strspn(p, " "); *p != '\0'; p += strspn(p, " ")) {
		len = strcspn(p, " ");
		if (strncmp(p, "BOOT_IMAGE=", 11) != 0)
			sprintf(out + strlen(out), "%s%.*s", *out ? " " : "",
			    (int)len, p);
		p += len;
	}
	return out;
}

/*
 * The command line hilab's kernels start from: the machine file's, else
 * the known-good kernel's own, read from /proc/cmdline while the host runs
 * it and kept (here and in a file on the host, for a later controller).
 * NULL when neither has it: the host must run its known-good kernel first.
 */
static char *
sb_base_cmdline(struct backend *b, struct ssh_host *h,
    const struct sb_state *st)
{
	const struct machine *m = b->machine;
	struct sb_backend    *sb = b->priv;
	char		     *path, *q, *cmd, *qb, *why = NULL;

	if (m->boot.cmdline != NULL)
		return xstrdup(m->boot.cmdline);
	path = xasprintf("%s/%s", m->boot.dir, SB_CMDLINE_FILE);
	q = ssh_host_quote(path);
	if (sb_known_good(m, st)) {
		free(sb->base_cmdline);
		sb->base_cmdline = sb_strip_boot_image(st->cmdline);
		qb = ssh_host_quote(sb->base_cmdline);
		cmd = xasprintf("mkdir -p \"$(dirname %s)\" && printf '%%s\\n' "
				"%s >%s",
		    q, qb, q);
		free(qb);
	} else if (sb->base_cmdline == NULL)
		cmd = xasprintf("cat %s 2>/dev/null", q);
	else
		cmd = NULL;
	if (cmd != NULL &&
	    ssh_host_run(h, "the known-good command line", cmd, 0,
		sb->base_cmdline ? NULL : &sb->base_cmdline, &why) != 0) {
		log_debug(m->name, "%s", why);
		free(why);
	}
	free(cmd);
	free(q);
	free(path);
	return sb->base_cmdline != NULL ? xstrdup(sb->base_cmdline) : NULL;
}

/*
 * Starts go detached from the session, a second from now: in a session of
 * its own where setsid exists, HUP ignored either way (no nohup needed).
 */
static int
sb_detach(struct ssh_host *h, const char *go, char **cause)
{
	char *q = ssh_host_quote(go), *cmd;
	int   rc;

	cmd = xasprintf("s=; command -v setsid >/dev/null && s=setsid; $s sh "
			"-c 'trap \"\" HUP; sleep 1; '%s </dev/null >/dev/null "
			"2>&1 &",
	    q);
	rc = ssh_host_run(h, "start the switch", cmd, 0, NULL, cause);
	free(cmd);
	free(q);
	return rc;
}

/*
 * Why the boot failed on the console (a panic), or NULL; *resets tells
 * whether the kernel said it reboots itself.
 */
static char *
sb_console_failed(struct sb_backend *sb, bool *resets)
{
	char *tail, *line, *why = NULL;

	if (sb->console == NULL)
		return NULL;
	/* Around the panic: a reset after it prints on and on. */
	tail = console_file_excerpt(console_path(sb->console), SB_EXCERPT);
	if (console_panicked(tail)) {
		line = console_line(tail);
		why = xasprintf("panicked at boot: %s", line);
		*resets = console_resets_itself(tail);
		free(line);
	}
	free(tail);
	return why;
}

/*
 * Connects once sshd answers with a boot id other than old; or NULL.
 * *dropped tells that sshd did not answer once (the old kernel went).  A
 * connection to the old kernel's sshd may die mid-command without a word:
 * the look is short.
 */
static struct ssh_host *
sb_try_connect(const struct machine *m, const char *old, struct sb_state *st,
    bool *dropped)
{
	struct ssh_host *h;
	char		*why = NULL;

	if (!ssh_host_probe(m->ssh.host, m->ssh.port, SB_PROBE_MS)) {
		*dropped = true;
		return NULL;
	}
	if ((h = ssh_host_connect(m, 0, &why)) != NULL &&
	    sb_state_read(h, SB_LOOK_MS, st, &why) == 0) {
		if (strcmp(st->boot_id, old) != 0)
			return h;
		sb_state_clear(st);
	}
	log_debug(m->name, "%s", why != NULL ? why : "still the old boot");
	free(why);
	ssh_host_close(h);
	return NULL;
}

/*
 * Waits until the host is back with a boot id other than old, or the
 * console shows a panic, or the machine's boot timeout passes.
 */
static struct ssh_host *
sb_wait(struct backend *b, const char *what, const char *old, int64_t t0,
    struct sb_state *st, char **cause)
{
	const struct machine *m = b->machine;
	struct sb_backend    *sb = b->priv;
	struct ssh_host	     *h;
	char		     *why, took[UNITS_STR_MAX];
	bool		      dropped = false, told = false;

	for (;;) {
		if ((why = sb_console_failed(sb, &b->resets_itself)) != NULL)
			break;
		if ((h = sb_try_connect(m, old, st, &dropped)) != NULL) {
			sb->switch_seconds =
			    (double)(clock_now_ms() - t0) / 1000;
			return h;
		}
		if (dropped && !told) {
			told = true;
			log_debug(m->name, "%s: ssh went away after %s", what,
			    units_format_elapsed(clock_now_ms() - t0, took,
				sizeof took));
		}
		if (clock_now_ms() - t0 > m->boot.timeout_ms) {
			why = xasprintf("ssh %s:%d did not come back with a "
					"new boot within %s",
			    m->ssh.host, m->ssh.port,
			    units_format_duration(m->boot.timeout_ms, took,
				sizeof took));
			break;
		}
		clock_sleep_ms(SB_PAUSE_MS);
	}
	*cause = xasprintf("machine \"%s\": %s %s", m->name, what, why);
	free(why);
	return NULL;
}

/* The boot method of the machine. */
static const struct boot_method *
sb_method(const struct machine *m)
{
	switch (m->boot.method) {
	case MACHINE_BOOT_GRUB:
		return &boot_grub;
	case MACHINE_BOOT_EXTLINUX:
		return &boot_extlinux;
	default:
		return &boot_kexec;
	}
}

/* Starts keeping the console of this switch, if the machine has one. */
static void
sb_console_start(struct backend *b)
{
	const struct machine *m = b->machine;
	struct sb_backend    *sb = b->priv;
	char		     *why = NULL;

	console_stop(sb->console);
	sb->console = NULL;
	if (m->boot.console.file == NULL && m->boot.console.command == NULL)
		return;
	if ((sb->console = console_start(m, &m->boot.console, &why)) == NULL) {
		log_warn(m->name, "%s", why);
		free(why);
		return;
	}
	free(sb->console_path);
	sb->console_path = xstrdup(console_path(sb->console));
}

/*
 * Runs the go command detached on the connected host, tells the console
 * what the method picks for install in (NULL: nothing) and waits for its
 * new boot; *st is then what the host runs.  h is closed either way.
 */
static struct ssh_host *
sb_switch(struct backend *b, struct ssh_host *h, const char *go,
    const struct kinstall *in, const char *what, const struct sb_state *before,
    struct sb_state *st, char **cause)
{
	const struct boot_method *bm = sb_method(b->machine);
	struct sb_backend	 *sb = b->priv;
	int64_t			  t0;
	struct ssh_host		 *back = NULL;
	int			  rc;

	sb_console_start(b);
	t0 = clock_now_ms();
	rc = sb_detach(h, go, cause);
	ssh_host_close(h);
	if (rc == 0 && in != NULL && bm->pick != NULL)
		rc = bm->pick(sb->console, b->machine, in, cause);
	if (rc == 0)
		back = sb_wait(b, what, before->boot_id, t0, st, cause);
	/*
	 * Refused before the switch, or a boot loader that never asked what
	 * to boot, is the lab's failure, not the kernel's.
	 */
	b->kernel_failed = rc == 0 && back == NULL;
	console_stop(sb->console);
	sb->console = NULL;
	return back;
}

/* Brings the host back to its known-good kernel (a reboot) if need be. */
static int
sb_known_good_boot(struct backend *b, char **cause)
{
	const struct machine *m = b->machine;
	struct ssh_host	     *h;
	struct sb_state	      st, now = { 0 };
	int		      rc = -1;

	if ((h = ssh_host_connect(m, 0, cause)) == NULL)
		return -1;
	if (sb_state_read(h, 0, &st, cause) != 0) {
		ssh_host_close(h);
		return -1;
	}
	if (sb_known_good(m, &st)) {
		ssh_host_close(h);
		sb_state_clear(&st);
		return 0;
	}
	log_info(m->name, "rebooting into the known-good kernel %s",
	    m->boot.known_good);
	if ((h = sb_switch(b, h, BOOT_REBOOT, NULL,
		 "rebooting into the known-good kernel", &st, &now, cause)) ==
	    NULL)
		goto out;
	if (!sb_known_good(m, &now))
		*cause = xasprintf("machine \"%s\": rebooted, it runs %s (%s), "
				   "not its known-good kernel %s",
		    m->name, now.release, now.cmdline, m->boot.known_good);
	else
		rc = 0;
	ssh_host_close(h);
out:
	sb_state_clear(&st);
	sb_state_clear(&now);
	return rc;
}

/* The kernel's name for messages. */
static const char *
sb_kname(const struct backend_kernel *k)
{
	return k->name != NULL ? k->name : k->image;
}

/* Installs k, loads it with the full command line; *in filled. */
static int
sb_prepare(struct backend *b, struct ssh_host *h, const struct sb_state *st,
    const struct backend_kernel *k, struct kinstall *in, char **cause)
{
	const struct machine  *m = b->machine;
	struct kinstall_kernel kk = { k->name, k->image, k->initrd, k->modules,
		k->release, k->dtb };
	char		      *base, *line;
	int		       rc;

	if ((base = sb_base_cmdline(b, h, st)) == NULL) {
		*cause = xasprintf("machine \"%s\": the known-good kernel's "
				   "command line is unknown",
		    m->name);
		return -1;
	}
	if (kinstall_put(h, m, &kk, in, cause) != 0 ||
	    kinstall_prune(h, m, in->id, cause) == -1) {
		free(base);
		return -1;
	}
	line = xasprintf("%s%s%s", base,
	    k->cmdline != NULL && *k->cmdline ? " " : "",
	    k->cmdline != NULL ? k->cmdline : "");
	rc = sb_method(m)->load(h, m, in, line, cause);
	free(line);
	free(base);
	return rc;
}

/* Checks that the host booted the install, not its default. */
static int
sb_check(const struct machine *m, const struct backend_kernel *k,
    const struct kinstall *in, const struct sb_state *st, char **cause)
{
	if (strcmp(st->id, in->id) == 0)
		return 0;
	*cause = xasprintf("machine \"%s\": kernel \"%s\": booted %s (%s) "
			   "instead of its install %s",
	    m->name, sb_kname(k), st->id[0] ? st->id : "the host's own kernel",
	    st->release, in->id);
	return -1;
}

/*
 * True if the base command line is not known here: the host is asked, and
 * brought to its known-good kernel to learn it if it does not keep it.
 */
static bool
sb_base_unknown(struct backend *b)
{
	const struct machine *m = b->machine;
	struct sb_backend    *sb = b->priv;
	struct ssh_host	     *h;
	struct sb_state	      st;
	char		     *base, *why = NULL;

	if (m->boot.cmdline != NULL || sb->base_cmdline != NULL)
		return false;
	if ((h = ssh_host_connect(m, 0, &why)) == NULL ||
	    sb_state_read(h, 0, &st, &why) != 0) {
		log_debug(m->name, "%s", why);
		free(why);
		ssh_host_close(h);
		return false; /* the boot itself says why */
	}
	base = sb_base_cmdline(b, h, &st);
	sb_state_clear(&st);
	ssh_host_close(h);
	free(base);
	return sb->base_cmdline == NULL;
}

/* Switches the host to kernel k. */
static int
sb_boot_kernel(struct backend *b, const struct backend_kernel *k, char **cause)
{
	const struct machine *m = b->machine;
	struct sb_backend    *sb = b->priv;
	struct kinstall	      in = { 0 };
	struct sb_state	      st = { 0 }, now = { 0 };
	struct ssh_host	     *h;
	char		     *what;
	int		      rc = -1;

	if (sb_base_unknown(b) && sb_known_good_boot(b, cause) != 0)
		return -1;
	if ((h = ssh_host_connect(m, 0, cause)) == NULL)
		return -1;
	if (sb_state_read(h, 0, &st, cause) != 0 ||
	    sb_prepare(b, h, &st, k, &in, cause) != 0) {
		ssh_host_close(h);
		goto out;
	}
	what = xasprintf("kernel \"%s\" (%s)", sb_kname(k), sb_method(m)->name);
	h = sb_switch(b, h, sb_method(m)->go, &in, what, &st, &now, cause);
	free(what);
	if (h == NULL)
		goto out;
	ssh_host_close(h);
	b->kernel_failed = (rc = sb_check(m, k, &in, &now, cause)) != 0;
	if (rc == 0)
		log_info(m->name,
		    "kernel \"%s\" (%s, %s) answers on ssh after %.1f s "
		    "(install %.1f s%s)",
		    sb_kname(k), in.id, sb_method(m)->name, sb->switch_seconds,
		    in.seconds, in.fresh ? "" : ", was there");
out:
	kinstall_clear(&in);
	sb_state_clear(&st);
	sb_state_clear(&now);
	return rc;
}

/* The backend's boot. */
static int
sb_boot(struct backend *b, const struct backend_kernel *k, char **cause)
{
	const struct machine *m = b->machine;

	if (m->boot.method == MACHINE_BOOT_NONE) {
		if (k == NULL || k->image == NULL)
			return 0;
		*cause = xasprintf("machine \"%s\": kernel \"%s\": it has no "
				   "\"boot\" section in %s, so it runs only "
				   "its own kernel",
		    m->name, sb_kname(k), m->file ? m->file : "its file");
		return -1;
	}
	if (k == NULL || k->image == NULL)
		return sb_known_good_boot(b, cause);
	return sb_boot_kernel(b, k, cause);
}

/* The backend's shutdown: a host goes back to its known-good kernel. */
static int
sb_shutdown(struct backend *b, char **cause)
{
	if (b->machine->boot.method == MACHINE_BOOT_NONE)
		return 0;
	return sb_known_good_boot(b, cause);
}

/* The tail of the last switch's console file. */
static char *
sb_console(struct backend *b)
{
	struct sb_backend *sb = b->priv;

	return console_file_excerpt(sb->console_path, SB_EXCERPT);
}

/* Frees the backend; the host stays as it is. */
static void
sb_free(struct backend *b)
{
	struct sb_backend *sb = b->priv;

	console_stop(sb->console);
	free(sb->console_path);
	free(sb->base_cmdline);
	free(sb);
	free(b);
}

static const struct backend_ops sb_ops = {
	.name = "ssh",
	.boot = sb_boot,
	.shutdown = sb_shutdown,
	.console = sb_console,
	.free = sb_free,
};

struct backend *
ssh_backend_new(const struct machine *m, char **cause)
{
	struct backend *b = xcalloc(1, sizeof *b);

	(void)cause;
	b->ops = &sb_ops;
	b->machine = m;
	b->priv = xcalloc(1, sizeof(struct sb_backend));
	return b;
}
