/*
 * The libvirt backend.  A boot removes a domain of the same name left by
 * an earlier controller, defines the domain for the kernel, starts it and
 * waits for the forwarded ssh port to answer with an SSH banner, while a
 * lifecycle event callback (run by the process's libvirt event loop
 * thread) and the serial console file tell a panic or crash at once.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/sha256.h"
#include "common/xmalloc.h"
#include "machines/agent_client.h"
#include "machines/console.h"
#include "machines/domain_xml.h"
#include "machines/initramfs.h"
#include "machines/inventory.h"
#include "machines/libvirt.h"
#include "machines/ssh.h"

#define LV_TAG		 "libvirt"
#define LV_DEFAULT_URI	 "qemu:///system"
/*
 * Each round of the boot wait: one ssh probe, then a pause.  qemu's user
 * network accepts the forwarded port before the guest listens and holds
 * the connection while it tries the guest, so a probe that waited 3 s for
 * the banner saw sshd late (the 4-vCPU lab VM: 7.0 s to ssh, 5.0-6.1 s
 * with 500 ms probes, plain OpenSSH 5.3 s): a probe gives up after 500 ms,
 * and only after a quarter of the boot timeout (a guest so loaded that
 * its sshd is slow to greet) waits 3 s.
 */
#define LV_PROBE_MS	 3000
#define LV_BOOT_PROBE_MS 500
#define LV_PAUSE_MS	 200
/* How much of the console a boot looks at and backend_console returns. */
#define LV_CONSOLE_TAIL	 (64 * 1024)
#define LV_EXCERPT	 8192

/* What the lifecycle callback saw; shared with the event loop thread. */
struct lv_watch {
	pthread_mutex_t mtx;
	int		refs;
	bool		stopped;
	bool		crashed;
	int		detail; /* of the Stopped event */
};

/* A kernel a boot used, kept to boot it again for a NULL image. */
struct lv_kernel {
	char *name;
	char *image;
	char *initrd;
	char *cmdline;
	char *dtb;
};

struct lv_backend {
	virConnectPtr	 conn;
	char		*domname;
	char		*console_path; /* of the last boot */
	char		*excerpt;      /* console kept at a failure */
	struct lv_kernel last;
	char		*def_kernel;
	char		*def_initrd;
	int		 boot_timeout_ms;
	double		 boot_seconds;
	int		 cb_id; /* -1 when none */
	struct lv_watch *watch;
};

static pthread_once_t lv_once = PTHREAD_ONCE_INIT;
static int	      lv_ready = -1;

/* Keeps libvirt's errors off stderr: callers get them in *cause. */
static void
lv_error_cb(void *arg, virErrorPtr err)
{
	(void)arg;
	(void)err;
}

/* Runs libvirt's default event loop for the life of the process. */
static void *
lv_event_loop(void *arg)
{
	(void)arg;
	for (;;) {
		if (virEventRunDefaultImpl() < 0)
			usleep(100000);
	}
	return NULL;
}

/* Sets up libvirt and its event loop thread once per process. */
static void
lv_init(void)
{
	pthread_t t;

	virSetErrorFunc(NULL, lv_error_cb);
	if (virInitialize() < 0 || virEventRegisterDefaultImpl() < 0)
		return;
	if (pthread_create(&t, NULL, lv_event_loop, NULL) != 0)
		return;
	pthread_detach(t);
	lv_ready = 0;
}

/* Makes sure libvirt is set up; -1 with *cause if it cannot be. */
static int
lv_setup(char **cause)
{
	pthread_once(&lv_once, lv_init);
	if (lv_ready == 0)
		return 0;
	*cause = xstrdup("libvirt: cannot start the event loop");
	return -1;
}

/* Sets *cause to `machine "NAME": WHAT: <libvirt's last error>`. */
static void
lv_fail(char **cause, const struct machine *m, const char *what)
{
	*cause = xasprintf("machine \"%s\": %s: %s", m->name, what,
	    virGetLastErrorMessage());
}

/* The machine's connection URI. */
static const char *
lv_uri(const struct machine *m)
{
	return m->libvirt.uri != NULL ? m->libvirt.uri : LV_DEFAULT_URI;
}

/* Destroys domain d if it runs and undefines it if it is defined. */
static int
lv_domain_remove(virDomainPtr d)
{
	if (virDomainIsActive(d) == 1 && virDomainDestroy(d) < 0 &&
	    virDomainIsActive(d) == 1)
		return -1;
	if (virDomainIsPersistent(d) == 1 && virDomainUndefine(d) < 0 &&
	    virDomainIsPersistent(d) == 1)
		return -1;
	return 0;
}

/* Removes the domain called name if there is one. */
static int
lv_remove_name(virConnectPtr conn, const char *name)
{
	virDomainPtr d;
	int	     rc;

	if ((d = virDomainLookupByName(conn, name)) == NULL)
		return 0;
	rc = lv_domain_remove(d);
	virDomainFree(d);
	return rc;
}

/* Opens (or reopens after libvirtd went away) the machine's connection. */
static int
lv_connect(struct backend *b, char **cause)
{
	struct lv_backend *lv = b->priv;

	if (lv->conn != NULL && virConnectIsAlive(lv->conn) == 1)
		return 0;
	if (lv->conn != NULL) {
		virConnectClose(lv->conn);
		lv->conn = NULL;
		lv->cb_id = -1;
	}
	if ((lv->conn = virConnectOpen(lv_uri(b->machine))) == NULL) {
		*cause = xasprintf("machine \"%s\": connect to %s: %s",
		    b->machine->name, lv_uri(b->machine),
		    virGetLastErrorMessage());
		return -1;
	}
	return 0;
}

/* Drops one reference to a watch. */
static void
lv_watch_unref(void *arg)
{
	struct lv_watch *w = arg;
	int		 left;

	pthread_mutex_lock(&w->mtx);
	left = --w->refs;
	pthread_mutex_unlock(&w->mtx);
	if (left > 0)
		return;
	pthread_mutex_destroy(&w->mtx);
	free(w);
}

/* Records a Stopped or Crashed lifecycle event of the booting domain. */
static int
lv_lifecycle_cb(virConnectPtr conn, virDomainPtr d, int event, int detail,
    void *arg)
{
	struct lv_watch *w = arg;

	(void)conn;
	log_debug(LV_TAG, "%s: event %d detail %d", virDomainGetName(d), event,
	    detail);
	pthread_mutex_lock(&w->mtx);
	if (event == VIR_DOMAIN_EVENT_CRASHED)
		w->crashed = true;
	if (event == VIR_DOMAIN_EVENT_STOPPED) {
		w->stopped = true;
		w->detail = detail;
		if (detail == VIR_DOMAIN_EVENT_STOPPED_CRASHED)
			w->crashed = true;
	}
	pthread_mutex_unlock(&w->mtx);
	return 0;
}

/* Starts watching domain d's lifecycle events. */
static int
lv_watch_start(struct backend *b, virDomainPtr d, char **cause)
{
	struct lv_backend *lv = b->priv;
	struct lv_watch	  *w = xcalloc(1, sizeof(*w));

	pthread_mutex_init(&w->mtx, NULL);
	w->refs = 2; /* this backend and libvirt */
	lv->cb_id = virConnectDomainEventRegisterAny(lv->conn, d,
	    VIR_DOMAIN_EVENT_ID_LIFECYCLE,
	    VIR_DOMAIN_EVENT_CALLBACK(lv_lifecycle_cb), w, lv_watch_unref);
	if (lv->cb_id < 0) {
		lv_fail(cause, b->machine, "register lifecycle events");
		pthread_mutex_destroy(&w->mtx);
		free(w);
		return -1;
	}
	lv->watch = w;
	return 0;
}

/* Stops watching events; the watch goes when libvirt lets go of it. */
static void
lv_watch_stop(struct backend *b)
{
	struct lv_backend *lv = b->priv;

	if (lv->cb_id >= 0 && lv->conn != NULL)
		virConnectDomainEventDeregisterAny(lv->conn, lv->cb_id);
	lv->cb_id = -1;
	if (lv->watch != NULL)
		lv_watch_unref(lv->watch);
	lv->watch = NULL;
}

/* The detail of the Stopped event the watch saw (0 before one). */
static int
lv_watch_detail(struct lv_watch *w)
{
	int detail;

	pthread_mutex_lock(&w->mtx);
	detail = w->detail;
	pthread_mutex_unlock(&w->mtx);
	return detail;
}

/* True if the watch saw the domain stop; *crashed says how. */
static bool
lv_watch_stopped(struct lv_watch *w, bool *crashed)
{
	bool stopped;

	pthread_mutex_lock(&w->mtx);
	stopped = w->stopped;
	*crashed = w->crashed;
	pthread_mutex_unlock(&w->mtx);
	return stopped;
}

/* The directory of the machine's console files (qemu writes there). */
static const char *
lv_console_dir(const struct machine *m)
{
	return m->libvirt.console_dir != NULL ? m->libvirt.console_dir
					      : LIBVIRT_CONSOLE_DIR;
}

/* Picks a fresh console file for this boot and creates its directory. */
static int
lv_console_new(struct backend *b, char **cause)
{
	const struct machine *m = b->machine;
	struct lv_backend    *lv = b->priv;
	char		     *path;

	if ((path = console_file_new(lv_console_dir(m), m->name, cause)) ==
	    NULL)
		return -1;
	free(lv->console_path);
	lv->console_path = path;
	return 0;
}

/* A kernel's name for messages. */
static const char *
lv_kname(const struct backend_kernel *k)
{
	return k->name != NULL ? k->name : k->image;
}

/*
 * Why the domain went down if it did, when ("at boot", "during the run"),
 * its kind in b->failure: a panic on the console, the domain crashed or
 * stopped (the kernel's doing), qemu gone without a panic line (the
 * emulator's), or (d given) no longer running.  NULL while it runs.
 */
static char *
lv_gone(struct backend *b, virDomainPtr d, const char *tail, const char *when)
{
	struct lv_backend *lv = b->priv;
	bool		   crashed = false, stopped;
	int		   state = 0, reason = 0;

	stopped = lv_watch_stopped(lv->watch, &crashed);
	b->failure = BACKEND_FAIL_KERNEL;
	if (console_panicked(tail))
		return xasprintf("panicked %s", when);
	if (crashed)
		return xasprintf("crashed %s", when);
	if (stopped &&
	    lv_watch_detail(lv->watch) == VIR_DOMAIN_EVENT_STOPPED_FAILED) {
		b->failure = BACKEND_FAIL_EMULATOR;
		return xasprintf("lost its emulator %s (qemu exited)", when);
	}
	if (stopped)
		return xasprintf("stopped %s", when);
	if (d != NULL && virDomainGetState(d, &state, &reason, 0) == 0 &&
	    state != VIR_DOMAIN_RUNNING && state != VIR_DOMAIN_PAUSED &&
	    state != VIR_DOMAIN_BLOCKED) {
		if (state == VIR_DOMAIN_SHUTOFF &&
		    reason == VIR_DOMAIN_SHUTOFF_FAILED)
			b->failure = BACKEND_FAIL_EMULATOR;
		return xasprintf("stopped %s (state %d, reason %d)", when,
		    state, reason);
	}
	return NULL;
}

/*
 * The cause of kernel kname's failure why: the console's telling line,
 * its excerpt kept for lv_console.
 */
static char *
lv_cause(struct backend *b, const char *kname, const char *why)
{
	struct lv_backend *lv = b->priv;
	char		  *tail, *line, *cause;

	tail = console_file_tail(lv->console_path, LV_CONSOLE_TAIL);
	line = console_line(tail);
	cause = xasprintf("machine \"%s\": kernel \"%s\" %s: %s",
	    b->machine->name, kname, why, line);
	free(lv->excerpt);
	lv->excerpt = console_file_excerpt(lv->console_path, LV_EXCERPT);
	free(line);
	free(tail);
	return cause;
}

/* Waits until ssh answers (0) or the boot fails or times out (-1). */
static int
lv_wait(struct backend *b, virDomainPtr d, const struct backend_kernel *k,
    int64_t t0, char **cause)
{
	const struct machine *m = b->machine;
	struct lv_backend    *lv = b->priv;
	char		     *tail = NULL, *why = NULL;

	for (;;) {
		free(tail);
		tail = console_file_tail(lv->console_path, LV_CONSOLE_TAIL);
		if ((why = lv_gone(b, d, tail, "at boot")) != NULL)
			break;
		if (ssh_host_probe(m->ssh.host, m->ssh.port,
			clock_now_ms() - t0 < lv->boot_timeout_ms / 4
			    ? LV_BOOT_PROBE_MS
			    : LV_PROBE_MS)) {
			lv->boot_seconds = (double)(clock_now_ms() - t0) / 1e3;
			free(tail);
			return 0;
		}
		if (clock_now_ms() - t0 > lv->boot_timeout_ms) {
			b->failure = BACKEND_FAIL_HANG;
			why = xasprintf("ssh %s:%d did not answer within %d s",
			    m->ssh.host, m->ssh.port,
			    lv->boot_timeout_ms / 1000);
			break;
		}
		usleep(LV_PAUSE_MS * 1000);
	}
	free(tail);
	/* qemu gone is the emulator's failure; the rest are the kernel's. */
	b->kernel_failed = b->failure != BACKEND_FAIL_EMULATOR;
	*cause = lv_cause(b, lv_kname(k), why);
	free(why);
	return -1;
}

/* Frees the strings of a kept kernel. */
static void
lv_kernel_clear(struct lv_kernel *k)
{
	free(k->name);
	free(k->image);
	free(k->initrd);
	free(k->cmdline);
	free(k->dtb);
	memset(k, 0, sizeof(*k));
}

/* Keeps a copy of the kernel a boot used. */
static void
lv_kernel_keep(struct lv_kernel *dst, const struct backend_kernel *k)
{
	struct lv_kernel c;

	c.name = k->name != NULL ? xstrdup(k->name) : NULL;
	c.image = xstrdup(k->image);
	c.initrd = k->initrd != NULL ? xstrdup(k->initrd) : NULL;
	c.cmdline = k->cmdline != NULL ? xstrdup(k->cmdline) : NULL;
	c.dtb = k->dtb != NULL ? xstrdup(k->dtb) : NULL;
	lv_kernel_clear(dst);
	*dst = c;
}

/*
 * A start that failed is the emulator's failure, but for a port qemu can
 * never bind, which gets a hint.
 */
static void
lv_start_fail(struct backend *b, char **cause)
{
	const struct machine *m = b->machine;
	const char	     *msg = virGetLastErrorMessage();

	b->failure = BACKEND_FAIL_EMULATOR;
	if (strstr(msg, "host forwarding") != NULL && m->ssh.port < 1024) {
		b->failure = BACKEND_FAIL_CONFIG;
		*cause = xasprintf("machine \"%s\": start: %s (qemu runs "
				   "unprivileged: use an ssh port above 1023)",
		    m->name, msg);
	} else
		lv_fail(cause, m, "start");
}

/*
 * Checks that the emulator can be run before libvirt is asked to, for a
 * uri of this machine: a missing one is the lab's setup, not a failure to
 * boot again.
 */
static int
lv_emulator_check(struct backend *b, char **cause)
{
	if ((*cause = inventory_emulator_check(b->machine)) == NULL)
		return 0;
	b->failure = BACKEND_FAIL_CONFIG;
	return -1;
}

/*
 * The boot's initramfs with the agent build for the machine's arch in it,
 * at the path the agent is installed to, so that it needs no upload after
 * the boot (machines/initramfs.c); written beside the console files, which
 * qemu reaches.  NULL, the image as it is, without an image, an agent
 * build or a root login (the agent's directory must be the login user's),
 * or if it cannot be written.  An image that moves to another root leaves
 * the agent behind; it is uploaded then, as without this.
 */
static char *
lv_initrd_agent(struct backend *b, const char *image)
{
	const struct machine *m = b->machine;
	char		      hex[SHA256_HEX_LEN + 1];
	char		     *agent, *dest = NULL, *out = NULL, *why = NULL;

	if (image == NULL || b->agent_dir == NULL || m->arch == NULL ||
	    m->ssh.user == NULL || strcmp(m->ssh.user, "root") != 0 ||
	    (agent = agent_build(b->agent_dir, m->arch)) == NULL)
		return NULL;
	if (sha256_file(agent, hex, &why) == 0) {
		dest = agent_install_path(m, hex);
		out = xasprintf("%s/%s.initrd", lv_console_dir(m), m->name);
		if (initramfs_add_file(image, agent, dest, 0755, out, &why) !=
		    0) {
			free(out);
			out = NULL;
		}
	}
	if (why != NULL)
		log_warn(m->name, "%s; the agent goes up after the boot", why);
	else
		log_debug(LV_TAG, "machine \"%s\": %s in the initramfs at %s",
		    m->name, agent, dest);
	free(why);
	free(dest);
	free(agent);
	return out;
}

/* Defines and starts the domain for k and waits until ssh answers. */
static int
lv_boot_kernel(struct backend *b, const struct backend_kernel *k, char **cause)
{
	struct lv_backend    *lv = b->priv;
	struct backend_kernel dom = *k;
	virDomainPtr	      d = NULL;
	char		     *xml = NULL, *initrd = NULL;
	int64_t		      t0;
	int		      rc = -1;

	b->failure = BACKEND_FAIL_CONFIG;
	lv_watch_stop(b); /* of the boot before */
	if (lv_emulator_check(b, cause) == -1 || lv_console_new(b, cause) == -1)
		return -1;
	if ((initrd = lv_initrd_agent(b, k->initrd)) != NULL)
		dom.initrd = initrd;
	if ((xml = domain_xml_new(b->machine, &dom, lv->console_path, cause)) ==
	    NULL) {
		free(initrd);
		return -1;
	}
	b->failure = BACKEND_FAIL_EMULATOR;
	if (lv_connect(b, cause) == -1)
		goto out;
	if (lv_remove_name(lv->conn, lv->domname) == -1) {
		lv_fail(cause, b->machine, "remove the old domain");
		goto out;
	}
	if ((d = virDomainDefineXML(lv->conn, xml)) == NULL) {
		lv_fail(cause, b->machine, "define");
		goto out;
	}
	if (lv_watch_start(b, d, cause) == -1)
		goto out;
	t0 = clock_now_ms();
	if (virDomainCreate(d) < 0)
		lv_start_fail(b, cause);
	else
		rc = lv_wait(b, d, k, t0, cause);
	if (rc == -1) /* else it watches the runs too (lv_down) */
		lv_watch_stop(b);
out:
	if (rc == -1 && d != NULL)
		lv_domain_remove(d);
	if (d != NULL)
		virDomainFree(d);
	free(initrd);
	free(xml);
	return rc;
}

/* True if the domain runs and its ssh port answers now. */
static bool
lv_running(struct backend *b)
{
	struct lv_backend *lv = b->priv;
	virDomainPtr	   d;
	bool		   up = false;

	if (lv->conn == NULL ||
	    (d = virDomainLookupByName(lv->conn, lv->domname)) == NULL)
		return false;
	if (virDomainIsActive(d) == 1)
		up = ssh_host_probe(b->machine->ssh.host, b->machine->ssh.port,
		    LV_PROBE_MS);
	virDomainFree(d);
	return up;
}

/* The backend's boot: k as given, or for a NULL image the kernel now. */
static int
lv_boot(struct backend *b, const struct backend_kernel *k, char **cause)
{
	struct lv_backend    *lv = b->priv;
	struct backend_kernel use = { 0 };

	if (k != NULL && k->image != NULL)
		use = *k;
	else if (lv->last.image != NULL) {
		if (lv_running(b))
			return 0;
		use.name = lv->last.name;
		use.image = lv->last.image;
		use.initrd = lv->last.initrd;
		use.cmdline = lv->last.cmdline;
		use.dtb = lv->last.dtb;
	} else if (lv->def_kernel != NULL) {
		use.name = "default";
		use.image = lv->def_kernel;
		use.initrd = NULL;
		use.cmdline = k != NULL ? k->cmdline : NULL;
	} else {
		b->failure = BACKEND_FAIL_CONFIG;
		*cause = xasprintf("machine \"%s\": no kernel to boot (none "
				   "booted yet and no default kernel)",
		    b->machine->name);
		return -1;
	}
	if (use.initrd == NULL)
		use.initrd = lv->def_initrd;
	if (lv_boot_kernel(b, &use, cause) == -1)
		return -1;
	log_info(LV_TAG,
	    "machine \"%s\": kernel \"%s\" answers on ssh after "
	    "%.1f s",
	    b->machine->name, lv_kname(&use), lv->boot_seconds);
	lv_kernel_keep(&lv->last, &use);
	return 0;
}

/* The backend's shutdown: destroy and undefine the domain. */
static int
lv_shutdown(struct backend *b, char **cause)
{
	struct lv_backend *lv = b->priv;

	if (lv_setup(cause) == -1 || lv_connect(b, cause) == -1)
		return -1;
	lv_watch_stop(b);
	if (lv_remove_name(lv->conn, lv->domname) == -1) {
		lv_fail(cause, b->machine, "destroy");
		return -1;
	}
	return 0;
}

/* The backend's console: the tail of the last boot's console file. */
static char *
lv_console(struct backend *b)
{
	struct lv_backend *lv = b->priv;
	char		  *tail;

	if ((tail = console_file_excerpt(lv->console_path, LV_EXCERPT)) != NULL)
		return tail;
	return lv->excerpt != NULL ? xstrdup(lv->excerpt) : NULL;
}

/*
 * The backend's down: why the domain that booted went down while its runs
 * went on (a panic line on its console, a crash, a stop), from the
 * lifecycle events and the console file; NULL while it runs.
 */
static char *
lv_down(struct backend *b)
{
	struct lv_backend *lv = b->priv;
	char		  *tail, *why, *cause = NULL;

	if (lv->watch == NULL || lv->console_path == NULL)
		return NULL;
	tail = console_file_tail(lv->console_path, LV_CONSOLE_TAIL);
	if ((why = lv_gone(b, NULL, tail, "during the run")) != NULL)
		cause = lv_cause(b,
		    lv->last.name != NULL ? lv->last.name : lv->last.image,
		    why);
	free(why);
	free(tail);
	return cause;
}

/* The backend's free: the domain is left as it is. */
static void
lv_free(struct backend *b)
{
	struct lv_backend *lv = b->priv;

	lv_watch_stop(b);
	if (lv->conn != NULL)
		virConnectClose(lv->conn);
	lv_kernel_clear(&lv->last);
	free(lv->domname);
	free(lv->console_path);
	free(lv->excerpt);
	free(lv->def_kernel);
	free(lv->def_initrd);
	free(lv);
	free(b);
}

static const struct backend_ops lv_ops = {
	.name = "libvirt",
	.boot = lv_boot,
	.shutdown = lv_shutdown,
	.console = lv_console,
	.down = lv_down,
	.free = lv_free,
};

struct backend *
libvirt_backend_new(const struct machine *m, char **cause)
{
	struct backend	  *b;
	struct lv_backend *lv;

	if (m->kind != MACHINE_LIBVIRT) {
		*cause =
		    xasprintf("machine \"%s\": not a libvirt machine", m->name);
		return NULL;
	}
	if (lv_setup(cause) == -1)
		return NULL;
	lv = xcalloc(1, sizeof(*lv));
	lv->domname = domain_xml_name(m);
	/* The machine file's known-good kernel and host image. */
	lv->def_kernel = m->libvirt.kernel ? xstrdup(m->libvirt.kernel) : NULL;
	lv->def_initrd = m->libvirt.initrd ? xstrdup(m->libvirt.initrd) : NULL;
	lv->boot_timeout_ms = m->libvirt.boot_timeout_ms > 0
	    ? m->libvirt.boot_timeout_ms
	    : LIBVIRT_BOOT_TIMEOUT_MS;
	lv->boot_seconds = -1;
	lv->cb_id = -1;
	b = xcalloc(1, sizeof(*b));
	b->ops = &lv_ops;
	b->machine = m;
	b->priv = lv;
	return b;
}

void
libvirt_backend_set_defaults(struct backend *b,
    const struct libvirt_defaults	    *d)
{
	struct lv_backend *lv = b->priv;

	free(lv->def_kernel);
	free(lv->def_initrd);
	lv->def_kernel = d->kernel != NULL ? xstrdup(d->kernel) : NULL;
	lv->def_initrd = d->initrd != NULL ? xstrdup(d->initrd) : NULL;
	lv->boot_timeout_ms = d->boot_timeout_ms > 0 ? d->boot_timeout_ms
						     : LIBVIRT_BOOT_TIMEOUT_MS;
}

double
libvirt_backend_boot_seconds(const struct backend *b)
{
	const struct lv_backend *lv = b->priv;

	return lv->boot_seconds;
}

const char *
libvirt_backend_console_path(const struct backend *b)
{
	const struct lv_backend *lv = b->priv;

	return lv->console_path;
}

int
libvirt_cleanup_prefix(const char *uri, const char *prefix, char **cause)
{
	virConnectPtr conn;
	virDomainPtr *doms = NULL;
	int	      n, i, removed = 0, rc = -1;

	if (uri == NULL)
		uri = LV_DEFAULT_URI;
	if (lv_setup(cause) == -1)
		return -1;
	if ((conn = virConnectOpen(uri)) == NULL) {
		*cause = xasprintf("libvirt: connect to %s: %s", uri,
		    virGetLastErrorMessage());
		return -1;
	}
	if ((n = virConnectListAllDomains(conn, &doms, 0)) < 0) {
		*cause = xasprintf("libvirt: list domains of %s: %s", uri,
		    virGetLastErrorMessage());
		goto out;
	}
	rc = 0;
	for (i = 0; i < n; i++) {
		const char *name = virDomainGetName(doms[i]);

		if (rc == 0 && name != NULL &&
		    strncmp(name, prefix, strlen(prefix)) == 0) {
			if (lv_domain_remove(doms[i]) == -1) {
				*cause = xasprintf("libvirt: remove domain "
						   "\"%s\": %s",
				    name, virGetLastErrorMessage());
				rc = -1;
			} else
				removed++;
		}
		virDomainFree(doms[i]);
	}
out:
	free(doms);
	virConnectClose(conn);
	return rc == 0 ? removed : -1;
}
