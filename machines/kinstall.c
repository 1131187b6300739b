/*
 * Kernel installs on ssh hosts.  The controller hashes what makes the
 * kernel, asks the host in one command what it has, sends only what is
 * missing (ssh_host_upload: sha256 checked on the host) and runs each step
 * on the host as one shell command whose every argument is quoted.
 */
#include <sys/stat.h>

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/sha256.h"
#include "common/spawn.h"
#include "common/xmalloc.h"
#include "machines/kinstall.h"
#include "machines/ssh.h"
#include "machines/verify.h"

#define KINSTALL_BOOT_DIR "/boot/hilab"

/* What the host has of an install, from kinstall_probe. */
struct kinstall_have {
	bool  complete; /* the install is there */
	bool  modules;	/* /lib/modules/<release> is there */
	char *owner;	/* its .hilab stamp: the install that made it, or
			   NULL: the host's own */
};

/* The walk's hash: nftw's callback cannot take an argument. */
static __thread struct sha256 *kinstall_walk_hash;
static __thread size_t	       kinstall_walk_root;

/* Where the machine's installs go. */
static const char *
kinstall_boot_dir(const struct machine *m)
{
	return m->boot.dir != NULL ? m->boot.dir : KINSTALL_BOOT_DIR;
}

/* Adds one file of a modules tree to the hash: its path, size and time. */
static int
kinstall_walk_cb(const char *path, const struct stat *st, int type,
    struct FTW *ftw)
{
	char line[64];

	(void)ftw;
	if (type != FTW_F)
		return 0;
	sha256_add(kinstall_walk_hash, path + kinstall_walk_root,
	    strlen(path + kinstall_walk_root) + 1);
	snprintf(line, sizeof line, "%lld %lld\n", (long long)st->st_size,
	    (long long)st->st_mtime);
	sha256_add(kinstall_walk_hash, line, strlen(line));
	return 0;
}

/*
 * Adds the modules to the hash: a tarball's bytes, or for a directory the
 * names, sizes and times of its files (cheaper than 100 MB of modules).
 */
static int
kinstall_hash_modules(struct sha256 *h, const char *modules, const char *rel,
    char **cause)
{
	struct stat st;
	char	   *tree;
	int	    rc;

	if (stat(modules, &st) == -1) {
		*cause = xasprintf("\"%s\": %s", modules, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return sha256_add_file(h, modules, cause);
	tree = xasprintf("%s/lib/modules/%s", modules, rel);
	kinstall_walk_hash = h;
	kinstall_walk_root = strlen(modules);
	if ((rc = nftw(tree, kinstall_walk_cb, 32, FTW_PHYS)) != 0)
		*cause = xasprintf("\"%s\": %s", tree,
		    rc == -1 ? strerror(errno) : "cannot be read");
	kinstall_walk_hash = NULL;
	free(tree);
	return rc == 0 ? 0 : -1;
}

/* The install id: the hash of every part and the release. */
static int
kinstall_id(const struct kinstall_kernel *k, const char *rel, char *id,
    char **cause)
{
	struct sha256 *h = sha256_begin();
	char	       hex[SHA256_HEX_LEN + 1];
	int	       rc = -1;

	sha256_add(h, "image", 6);
	if (sha256_add_file(h, k->image, cause) != 0)
		goto out;
	sha256_add(h, "initrd", 7);
	if (k->initrd != NULL && sha256_add_file(h, k->initrd, cause) != 0)
		goto out;
	if (k->dtb != NULL &&
	    (sha256_add(h, "dtb", 4), sha256_add_file(h, k->dtb, cause) != 0))
		goto out;
	sha256_add(h, "modules", 8);
	if (k->modules != NULL &&
	    kinstall_hash_modules(h, k->modules, rel, cause) != 0)
		goto out;
	sha256_add(h, rel, strlen(rel) + 1);
	rc = 0;
out:
	sha256_end(h, hex);
	memcpy(id, hex, KINSTALL_ID_LEN);
	id[KINSTALL_ID_LEN] = '\0';
	return rc;
}

/* The release the kernel will report: given, or from its boot header. */
static char *
kinstall_release(const struct kinstall_kernel *k, char **cause)
{
	char *rel = NULL, *version = NULL, *why = NULL;

	if (k->release != NULL && *k->release != '\0')
		rel = xstrdup(k->release);
	else if (verify_image_version(k->image, &rel, &version, &why) != 0) {
		*cause = xasprintf("%s (give the kernel's release)", why);
		free(why);
		return NULL;
	}
	free(version);
	if (!machine_release_ok(rel)) {
		*cause =
		    xasprintf("release \"%s\" cannot name a directory", rel);
		free(rel);
		return NULL;
	}
	return rel;
}

/*
 * Asks the host what it has of the install (touching its .complete: it is
 * asked for now) and of its release's modules.
 */
static int
kinstall_probe(struct ssh_host *h, const struct kinstall *in,
    struct kinstall_have *have, char **cause)
{
	char *qd = ssh_host_quote(in->dir), *qr = ssh_host_quote(in->release);
	char *cmd, *out = NULL, *line;
	int   rc;

	cmd = xasprintf("d=%s; m=/lib/modules/%s; if [ -f \"$d/.complete\" ]; "
			"then touch \"$d/.complete\"; echo complete; fi; "
			"if [ -d \"$m\" ]; then echo \"modules $(cat "
			"\"$m/.hilab\" 2>/dev/null)\"; fi",
	    qd, qr);
	rc = ssh_host_run(h, "look for the kernel", cmd, 0, &out, cause);
	if (rc == 0) {
		have->complete = strstr(out, "complete") != NULL;
		if ((line = strstr(out, "modules")) != NULL) {
			have->modules = true;
			line += strlen("modules");
			line += strspn(line, " ");
			if (*line != '\0' && *line != '\n')
				have->owner =
				    xstrndup(line, strcspn(line, "\n"));
		}
	}
	free(out);
	free(cmd);
	free(qr);
	free(qd);
	return rc;
}

/* Runs argv on the controller and waits for it; 0 if it exited 0. */
static int
kinstall_spawn(char *const argv[], char **cause)
{
	struct spawn sp = { .argv = argv, .log_fd = -1 };
	int	     rc;

	if ((rc = spawn_run(&sp, cause)) == 0)
		return 0;
	if (rc > 0)
		*cause = xasprintf("%s failed (exit %d)", argv[0], rc);
	return -1;
}

/* True if the tarball name says gzip. */
static bool
kinstall_gzip(const char *path)
{
	size_t len = strlen(path);

	return (len > 3 && strcmp(path + len - 3, ".gz") == 0) ||
	    (len > 4 && strcmp(path + len - 4, ".tgz") == 0);
}

/*
 * The modules as a tarball of lib/modules/<release>: the given one, or
 * one made from the directory in a temporary file (*made then).
 */
static char *
kinstall_tarball(const char *modules, const char *rel, bool *made, char **cause)
{
	struct stat st;
	char	   *tar, *tree = xasprintf("lib/modules/%s", rel);
	char	   *argv[] = { (char *)"tar", (char *)"-C", (char *)modules,
		      (char *)"-cf", NULL, tree, NULL };
	int	    fd;

	*made = false;
	if (stat(modules, &st) == 0 && !S_ISDIR(st.st_mode)) {
		free(tree);
		return xstrdup(modules);
	}
	tar = xasprintf("%s/hilab-modules.XXXXXX", P_tmpdir);
	if ((fd = mkstemp(tar)) == -1) {
		*cause = xasprintf("\"%s\": %s", tar, strerror(errno));
		free(tar);
		tar = NULL;
		goto out;
	}
	close(fd);
	argv[4] = tar;
	if (kinstall_spawn(argv, cause) != 0) {
		unlink(tar);
		free(tar);
		tar = NULL;
	} else
		*made = true;
out:
	free(tree);
	return tar;
}

/*
 * Unpacks the uploaded tarball into /lib/modules/<release>, replacing only
 * a directory hilab made (its .hilab stamp), stamps it with the install's
 * id and runs depmod if the host has it.
 */
static int
kinstall_unpack(struct ssh_host *h, const struct machine *m,
    const struct kinstall *in, const char *tarball, char **cause)
{
	char *qt = ssh_host_quote(tarball), *qr = ssh_host_quote(in->release);
	char *qi = ssh_host_quote(in->id), *cmd;
	int   rc;

	cmd = xasprintf("set -e; r=%s; i=%s; a=%s; "
			"t=\"/lib/modules/.hilab-$i\"; m=\"/lib/modules/$r\"; "
			"rm -rf \"$t\"; mkdir -p \"$t\"; tar -x%sf \"$a\" -C "
			"\"$t\"; test -d \"$t/lib/modules/$r\"; if [ -d \"$m\" "
			"]; then [ -f \"$m/.hilab\" ] || { echo \"$m is the "
			"host's own\" >&2; exit 1; }; rm -rf \"$m\"; fi; mv "
			"\"$t/lib/modules/$r\" \"$m\"; echo \"$i\" "
			">\"$m/.hilab\"; rm -rf \"$t\" \"$a\"; if command -v "
			"depmod >/dev/null; then depmod \"$r\"; fi",
	    qr, qi, qt, kinstall_gzip(tarball) ? "z" : "");
	rc = ssh_host_run(h, "unpack the modules", cmd, m->boot.timeout_ms,
	    NULL, cause);
	free(cmd);
	free(qi);
	free(qr);
	free(qt);
	return rc;
}

/* Sends the modules and unpacks them (not over the host's own). */
static int
kinstall_modules(struct ssh_host *h, const struct machine *m,
    const struct kinstall_kernel *k, const struct kinstall *in,
    const struct kinstall_have *have, char **cause)
{
	char *local, *remote = NULL;
	bool  made;
	int   rc = -1;

	if (have->modules && have->owner == NULL) {
		log_info(m->name,
		    "kernel \"%s\": the host's own modules for "
		    "%s are kept",
		    k->name, in->release);
		return 0;
	}
	if ((local = kinstall_tarball(k->modules, in->release, &made, cause)) ==
	    NULL)
		return -1;
	remote = xasprintf("%s/modules.tar%s", in->dir,
	    kinstall_gzip(local) ? ".gz" : "");
	if (ssh_host_upload(h, local, remote, 0600, cause) == 0)
		rc = kinstall_unpack(h, m, in, remote, cause);
	if (made)
		unlink(local);
	free(local);
	free(remote);
	return rc;
}

/*
 * Makes an initrd on the host with mkinitramfs or dracut when it has the
 * release's modules (a copy of the host's own initrd when the modules are
 * the host's own too); none without modules (the kernel boots without).
 */
static int
kinstall_mkinitrd(struct ssh_host *h, const struct machine *m,
    const struct kinstall *in, char **cause)
{
	char *qd = ssh_host_quote(in->dir), *qr = ssh_host_quote(in->release);
	char *cmd;
	int   rc;

	cmd = xasprintf("d=%s; r=%s; m=\"/lib/modules/$r\"; "
			"o=\"/boot/initrd.img-$r\"; [ -d \"$m\" ] || exit 0; "
			"if [ ! -f \"$m/.hilab\" ] && [ -f \"$o\" ]; then cp "
			"\"$o\" \"$d/initrd.img\"; exit 0; fi; if command -v "
			"mkinitramfs >/dev/null; then mkinitramfs -o "
			"\"$d/initrd.img\" \"$r\"; elif command -v dracut "
			">/dev/null; then dracut -q --force \"$d/initrd.img\" "
			"\"$r\"; fi",
	    qd, qr);
	rc = ssh_host_run(h, "make an initrd", cmd, m->boot.timeout_ms, NULL,
	    cause);
	free(cmd);
	free(qr);
	free(qd);
	return rc;
}

/* Writes release and name and marks the install complete. */
static int
kinstall_finish(struct ssh_host *h, const struct kinstall_kernel *k,
    const struct kinstall *in, char **cause)
{
	char *qd = ssh_host_quote(in->dir), *qr = ssh_host_quote(in->release);
	char *qn = ssh_host_quote(k->name != NULL ? k->name : "");
	char *cmd;
	int   rc;

	cmd = xasprintf("d=%s; printf '%%s\\n' %s >\"$d/release\" && printf "
			"'%%s\\n' %s >\"$d/name\" && touch \"$d/.complete\"",
	    qd, qr, qn);
	rc = ssh_host_run(h, "finish the install", cmd, 0, NULL, cause);
	free(cmd);
	free(qn);
	free(qr);
	free(qd);
	return rc;
}

/* Learns whether the install has an initrd. */
static int
kinstall_initrd(struct ssh_host *h, struct kinstall *in, char **cause)
{
	char *path = xasprintf("%s/initrd.img", in->dir);
	char *q = ssh_host_quote(path), *cmd, *out = NULL;
	int   rc;

	cmd = xasprintf("if [ -f %s ]; then echo yes; fi", q);
	rc = ssh_host_run(h, "look for the initrd", cmd, 0, &out, cause);
	if (rc == 0 && strcmp(out, "yes") == 0)
		in->initrd = path;
	else
		free(path);
	free(out);
	free(cmd);
	free(q);
	return rc;
}

/*
 * The kernel's config on the controller, which mkinitramfs wants as
 * /boot/config-<release>: beside the image (config-<release> as packages
 * have it, or config in a build's cache entry) or in the modules' boot/.
 */
static char *
kinstall_config(const struct kinstall_kernel *k, const char *rel)
{
	const char *slash = strrchr(k->image, '/');
	int	    dir = slash != NULL ? (int)(slash - k->image) : 1;
	const char *base = slash != NULL ? k->image : ".";
	char	   *c[3];
	int	    i, found = -1;

	c[0] = xasprintf("%.*s/config-%s", dir, base, rel);
	c[1] = xasprintf("%.*s/config", dir, base);
	c[2] = k->modules != NULL
	    ? xasprintf("%s/boot/config-%s", k->modules, rel)
	    : xstrdup("");
	for (i = 0; i < 3 && found == -1; i++)
		if (*c[i] != '\0' && access(c[i], R_OK) == 0)
			found = i;
	for (i = 0; i < 3; i++)
		if (i != found)
			free(c[i]);
	return found != -1 ? c[found] : NULL;
}

/*
 * Sends the kernel's config and links /boot/config-<release> to it, unless
 * the host has that file (its own kernel's): it is never replaced.
 */
static int
kinstall_send_config(struct ssh_host *h, const struct kinstall_kernel *k,
    const struct kinstall *in, char **cause)
{
	char *local = kinstall_config(k, in->release), *remote, *q, *qr, *cmd;
	int   rc;

	if (local == NULL)
		return 0;
	remote = xasprintf("%s/config", in->dir);
	q = ssh_host_quote(remote);
	qr = ssh_host_quote(in->release);
	cmd = xasprintf("c=\"/boot/config-\"%s; if [ ! -e \"$c\" ]; then "
			"ln -sf %s \"$c\"; fi",
	    qr, q);
	rc = ssh_host_upload(h, local, remote, 0644, cause);
	if (rc == 0)
		rc = ssh_host_run(h, "link the config", cmd, 0, NULL, cause);
	free(cmd);
	free(qr);
	free(q);
	free(remote);
	free(local);
	return rc;
}

/* Sends what the install is made of; makes an initrd if none came. */
static int
kinstall_send(struct ssh_host *h, const struct machine *m,
    const struct kinstall_kernel *k, struct kinstall *in,
    const struct kinstall_have *have, char **cause)
{
	char *initrd = xasprintf("%s/initrd.img", in->dir);
	int   rc = -1;

	if (ssh_host_upload(h, k->image, in->image, 0644, cause) != 0 ||
	    (k->initrd != NULL &&
		ssh_host_upload(h, k->initrd, initrd, 0644, cause) != 0) ||
	    (k->dtb != NULL &&
		ssh_host_upload(h, k->dtb, in->dtb, 0644, cause) != 0) ||
	    (k->modules != NULL &&
		kinstall_modules(h, m, k, in, have, cause) != 0) ||
	    kinstall_send_config(h, k, in, cause) != 0 ||
	    (k->initrd == NULL && kinstall_mkinitrd(h, m, in, cause) != 0) ||
	    kinstall_finish(h, k, in, cause) != 0)
		goto out;
	in->fresh = true;
	rc = 0;
out:
	free(initrd);
	return rc;
}

/* Prefixes *cause with the machine and the kernel. */
static void
kinstall_fail(const struct machine *m, const struct kinstall_kernel *k,
    char **cause)
{
	char *msg = xasprintf("machine \"%s\": kernel \"%s\": install: %s",
	    m->name, k->name != NULL ? k->name : k->image, *cause);

	free(*cause);
	*cause = msg;
}

int
kinstall_put(struct ssh_host *h, const struct machine *m,
    const struct kinstall_kernel *k, struct kinstall *out, char **cause)
{
	struct kinstall_have have = { 0 };
	int64_t		     t0 = clock_now_ms();
	int		     rc = -1;

	memset(out, 0, sizeof *out);
	if ((out->release = kinstall_release(k, cause)) == NULL ||
	    kinstall_id(k, out->release, out->id, cause) != 0)
		goto out;
	out->dir = xasprintf("%s/%s", kinstall_boot_dir(m), out->id);
	out->image = xasprintf("%s/vmlinuz", out->dir);
	if (k->dtb != NULL)
		out->dtb = xasprintf("%s/board.dtb", out->dir);
	if (kinstall_probe(h, out, &have, cause) != 0 ||
	    (!have.complete &&
		kinstall_send(h, m, k, out, &have, cause) != 0) ||
	    kinstall_initrd(h, out, cause) != 0)
		goto out;
	out->seconds = (double)(clock_now_ms() - t0) / 1000;
	rc = 0;
out:
	if (rc != 0) {
		kinstall_fail(m, k, cause);
		kinstall_clear(out);
	}
	free(have.owner);
	return rc;
}

void
kinstall_clear(struct kinstall *in)
{
	free(in->release);
	free(in->dir);
	free(in->image);
	free(in->initrd);
	free(in->dtb);
	memset(in, 0, sizeof *in);
}

/* A glob that matches install names only: KINSTALL_ID_LEN hex digits. */
static char *
kinstall_id_glob(void)
{
	char *g = xmalloc(KINSTALL_ID_LEN * 8 + 1), *p = g;
	int   i;

	for (i = 0; i < KINSTALL_ID_LEN; i++, p += 8)
		memcpy(p, "[0-9a-f]", 8);
	*p = '\0';
	return g;
}

/*
 * The host's side of kinstall_prune.  Newest first by .complete's time;
 * the kept ones' releases protect their modules; a pruned install's
 * modules go only if its stamp says it made them, its config link only if
 * it points into it.  Directories of another name than an install's are
 * never touched; an install left half sent goes.
 */
static char *
kinstall_prune_cmd(const char *dir, int keep, const char *keep_id)
{
	char *qd = ssh_host_quote(dir), *qk = ssh_host_quote(keep_id);
	char *g = kinstall_id_glob(), *cmd;

	cmd = xasprintf("b=%s; k=%s; cd \"$b\" 2>/dev/null || exit 0; n=0; "
			"keep=; for f in $(ls -1t %s/.complete 2>/dev/null); "
			"do d=${f%%/.complete}; r=$(cat \"$d/release\" "
			"2>/dev/null); n=$((n + 1)); if [ $n -le %d ] || [ "
			"\"$d\" = \"$k\" ]; then keep=\"$keep $r\"; continue; "
			"fi; case \" $keep \" in *\" $r \"*) ;; *) if [ -n "
			"\"$r\" ] && [ \"$(cat \"/lib/modules/$r/.hilab\" "
			"2>/dev/null)\" = \"$d\" ]; then rm -rf "
			"\"/lib/modules/$r\"; fi;; esac; if [ -n \"$r\" ] && [ "
			"\"$(readlink \"/boot/config-$r\")\" = "
			"\"$b/$d/config\" ]; then rm -f \"/boot/config-$r\"; "
			"fi; rm -rf \"$d\"; echo \"$d\"; done; for d in %s; do "
			"[ -d \"$d\" ] || continue; [ -f \"$d/.complete\" ] || "
			"[ \"$d\" = \"$k\" ] || rm -rf \"$d\"; done",
	    qd, qk, g, keep, g);
	free(g);
	free(qk);
	free(qd);
	return cmd;
}

int
kinstall_prune(struct ssh_host *h, const struct machine *m, const char *keep_id,
    char **cause)
{
	char *cmd, *out = NULL;
	int   rc, n = 0;

	cmd = kinstall_prune_cmd(kinstall_boot_dir(m), m->boot.keep,
	    keep_id != NULL ? keep_id : "");
	rc = ssh_host_run(h, "prune old kernels", cmd, 0, &out, cause);
	if (rc == 0 && *out != '\0') {
		for (char *p = out; *p != '\0'; p++)
			if (*p == '\n') {
				*p = ' ';
				n++;
			}
		n++;
		log_info(m->name, "pruned %d old kernel%s: %s", n,
		    n == 1 ? "" : "s", out);
	}
	free(out);
	free(cmd);
	return rc == 0 ? n : -1;
}
