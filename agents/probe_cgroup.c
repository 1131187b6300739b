/*
 * cgroup v2 for the probes: where the unified hierarchy is mounted, which
 * controllers it offers (and why one is missing), making and removing the
 * probes' private cgroups, and the lock that keeps probes one at a time.
 */
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <mntent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/agent.h"
#include "common/xmalloc.h"

#define PROBE_CGROUP2_MAGIC 0x63677270 /* CGROUP2_SUPER_MAGIC */

/* The mount point of the first mount of type fstype, or NULL. */
static char *
probe_cgroup_mount(const char *fstype, const char *option)
{
	struct mntent ent;
	char	      buf[4096], *dir = NULL;
	FILE	     *f;

	if ((f = setmntent("/proc/self/mounts", "r")) == NULL)
		return NULL;
	while (dir == NULL && getmntent_r(f, &ent, buf, sizeof buf) != NULL) {
		if (strcmp(ent.mnt_type, fstype) == 0 &&
		    (option == NULL || hasmntopt(&ent, option) != NULL))
			dir = xstrdup(ent.mnt_dir);
	}
	endmntent(f);
	return dir;
}

/*
 * The cgroup2 directory to work in: want (which must be on cgroup2) or the
 * first cgroup2 mount.  NULL with *cause if there is none.
 */
char *
probe_cgroup_root(const char *want, char **cause)
{
	struct statfs sf;
	char	     *dir;

	if (want == NULL) {
		if ((dir = probe_cgroup_mount("cgroup2", NULL)) == NULL)
			*cause = xstrdup(
			    "no cgroup2 mount in "
			    "/proc/self/mounts: the probe needs the unified "
			    "hierarchy (mount -t cgroup2 none /sys/fs/cgroup)");
		return dir;
	}
	if (statfs(want, &sf) == -1) {
		*cause = xasprintf("\"%s\": %s", want, strerror(errno));
		return NULL;
	}
	if ((unsigned long)sf.f_type != PROBE_CGROUP2_MAGIC) {
		*cause = xasprintf("\"%s\": not a cgroup2 directory", want);
		return NULL;
	}
	return xstrdup(want);
}

/* Reads dir/file (trailing blanks cut), or NULL. */
char *
probe_cgroup_read(const char *dir, const char *file)
{
	char *path = xasprintf("%s/%s", dir, file), *s;

	s = facts_read(path);
	free(path);
	return s;
}

/* Whether word is one of the blank-separated words of list. */
static int
probe_cgroup_has_word(const char *list, const char *word)
{
	size_t len = strlen(word);

	while (list != NULL && *(list += strspn(list, " \t\n")) != '\0') {
		if (strncmp(list, word, len) == 0 &&
		    strchr(" \t\n", list[len]) != NULL)
			return 1;
		list += strcspn(list, " \t\n");
	}
	return 0;
}

/* Why the controller ctrl is not offered, from /proc/cgroups. */
static char *
probe_cgroup_why(const char *ctrl)
{
	char  line[256], name[64], *v1, *why = NULL;
	int   hier, num, enabled;
	FILE *f;

	if ((f = fopen("/proc/cgroups", "re")) == NULL)
		return xstrdup("no /proc/cgroups");
	while (why == NULL && fgets(line, sizeof line, f) != NULL) {
		if (sscanf(line, "%63s %d %d %d", name, &hier, &num,
			&enabled) != 4 ||
		    strcmp(name, ctrl) != 0)
			continue;
		if (!enabled)
			why = xstrdup("disabled on the kernel command line");
		else if (hier != 0) {
			v1 = probe_cgroup_mount("cgroup", ctrl);
			why = xasprintf("bound to a cgroup v1 hierarchy%s%s",
			    v1 != NULL ? " at " : "", v1 != NULL ? v1 : "");
			free(v1);
		} else
			why = xstrdup("not enabled in the parent's "
				      "cgroup.subtree_control");
	}
	fclose(f);
	return why != NULL ? why : xstrdup("not built into the kernel");
}

/*
 * Checks that dir offers every controller of ctrls (blank-separated);
 * else -1 with *cause naming each missing one and why.
 */
int
probe_cgroup_check(const char *dir, const char *ctrls, char **cause)
{
	char *have, *list, *word, *save = NULL, *why, *msg = NULL, *t;
	int   rc;

	have = probe_cgroup_read(dir, "cgroup.controllers");
	list = xstrdup(ctrls);
	for (word = strtok_r(list, " ", &save); word != NULL;
	     word = strtok_r(NULL, " ", &save)) {
		if (probe_cgroup_has_word(have, word))
			continue;
		why = probe_cgroup_why(word);
		t = xasprintf("%s%scontroller \"%s\" missing (%s)",
		    msg != NULL ? msg : "", msg != NULL ? ", " : "", word, why);
		free(why);
		free(msg);
		msg = t;
	}
	rc = msg != NULL ? -1 : 0;
	if (msg != NULL)
		*cause = xasprintf("cgroup2 \"%s\": %s", dir, msg);
	free(msg);
	free(list);
	free(have);
	return rc;
}

/* Enables each controller of ctrls in dir's subtree_control if need be. */
int
probe_cgroup_enable(const char *dir, const char *ctrls, char **cause)
{
	char *have, *list, *word, *save = NULL, *path, *plus;
	int   rc = 0;

	have = probe_cgroup_read(dir, "cgroup.subtree_control");
	path = xasprintf("%s/cgroup.subtree_control", dir);
	list = xstrdup(ctrls);
	for (word = strtok_r(list, " ", &save); rc == 0 && word != NULL;
	     word = strtok_r(NULL, " ", &save)) {
		if (probe_cgroup_has_word(have, word))
			continue;
		plus = xasprintf("+%s", word);
		rc = probe_write(path, plus, cause);
		free(plus);
	}
	free(list);
	free(path);
	free(have);
	return rc;
}

/* Makes the cgroup dir. */
int
probe_cgroup_make(const char *dir, char **cause)
{
	if (mkdir(dir, 0755) == -1) {
		*cause = xasprintf("mkdir \"%s\": %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* Sets dir's cpuset partition back to "member" if it is anything else. */
static int
probe_cgroup_member(const char *dir, char **cause)
{
	char *prs, *path;
	int   rc = 0;

	prs = probe_cgroup_read(dir, "cpuset.cpus.partition");
	if (prs != NULL && strcmp(prs, "member") != 0) {
		path = xasprintf("%s/cpuset.cpus.partition", dir);
		rc = probe_write(path, "member", cause);
		free(path);
	}
	free(prs);
	return rc;
}

/* Keeps the first error of a cleanup that goes on after it. */
static void
probe_cgroup_keep(char **cause, char *why)
{
	if (*cause == NULL)
		*cause = why;
	else
		free(why);
}

/*
 * Removes the cgroup dir and everything below it, children first, each
 * set back to partition "member" before it goes.  A dir that is not there
 * is fine.  Goes on after an error; returns -1 with the first in *cause.
 */
int
probe_cgroup_remove(const char *dir, char **cause)
{
	struct dirent *d;
	char	      *sub, *why = NULL;
	DIR	      *dp;

	if ((dp = opendir(dir)) == NULL) {
		if (errno == ENOENT)
			return 0;
		*cause = xasprintf("\"%s\": %s", dir, strerror(errno));
		return -1;
	}
	while ((d = readdir(dp)) != NULL) {
		if (d->d_type != DT_DIR || strcmp(d->d_name, ".") == 0 ||
		    strcmp(d->d_name, "..") == 0)
			continue;
		sub = xasprintf("%s/%s", dir, d->d_name);
		if (probe_cgroup_remove(sub, &why) == -1)
			probe_cgroup_keep(cause, why);
		why = NULL;
		free(sub);
	}
	closedir(dp);
	if (probe_cgroup_member(dir, &why) == -1)
		probe_cgroup_keep(cause, why);
	if (rmdir(dir) == -1 && errno != ENOENT)
		probe_cgroup_keep(cause,
		    xasprintf("rmdir \"%s\": %s", dir, strerror(errno)));
	return *cause != NULL ? -1 : 0;
}

/* The pid in a probe cgroup's name "hilab-probe-<pid>", or -1. */
pid_t
probe_cgroup_pid(const char *name)
{
	const char *p = name + strlen(PROBE_CGROUP_PREFIX);
	char	   *end;
	long	    pid;

	if (strncmp(name, PROBE_CGROUP_PREFIX, strlen(PROBE_CGROUP_PREFIX)) !=
		0 ||
	    *p < '1' || *p > '9')
		return -1;
	pid = strtol(p, &end, 10);
	return *end == '\0' && pid > 0 && pid == (pid_t)pid ? (pid_t)pid : -1;
}

/*
 * Removes the probe cgroups of root left by probes that died (their pid
 * is gone); prints a comment for each.  -1 with *cause if one stays.
 */
int
probe_cgroup_reap(const char *root, char **cause)
{
	struct dirent *d;
	char	      *dir;
	pid_t	       pid;
	DIR	      *dp;

	if ((dp = opendir(root)) == NULL) {
		*cause = xasprintf("\"%s\": %s", root, strerror(errno));
		return -1;
	}
	while (*cause == NULL && (d = readdir(dp)) != NULL) {
		if ((pid = probe_cgroup_pid(d->d_name)) == -1 ||
		    kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		dir = xasprintf("%s/%s", root, d->d_name);
		printf("# removing stale %s\n", dir);
		probe_cgroup_remove(dir, cause);
		free(dir);
	}
	closedir(dp);
	return *cause != NULL ? -1 : 0;
}

/*
 * Takes the probes' lock: an exclusive flock on the cgroup2 root
 * directory, held until the returned fd (and every copy) is closed.
 * Waits for another probe; a stop signal ends the wait with -1.
 */
int
probe_cgroup_lock(const char *root, char **cause)
{
	int fd;

	if ((fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		*cause = xasprintf("\"%s\": %s", root, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return fd;
	printf("# waiting for another probe (lock on %s)\n", root);
	fflush(stdout);
	while (flock(fd, LOCK_EX) == -1) {
		if (errno != EINTR || probe_stop) {
			*cause = xasprintf("lock \"%s\": %s", root,
			    probe_stop ? "stopped by a signal"
				       : strerror(errno));
			close(fd);
			return -1;
		}
	}
	return fd;
}
