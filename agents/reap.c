/*
 * What a benchmark leaves behind: a daemon it forked (with setsid or a
 * double fork) would go on using the machine during later iterations and
 * write into their output.  The runner is a child subreaper, so every
 * orphan of the benchmark becomes its child.  Once an iteration's process
 * has ended, what is still alive of its process group is killed, then
 * every child the runner has but guardians (they end by themselves, after
 * putting the host back), round after round until none is left; zombies
 * are reaped without a word.  The common case, nothing left, costs one
 * kill(2) and one read of the kernel's list of the runner's children.
 */
#include <sys/prctl.h>
#include <sys/wait.h>

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/agent.h"

#define REAP_ROUNDS 16 /* a fork bomb is not what this is for */

/* One process as /proc/<pid>/stat shows it. */
struct reap_proc {
	long pid, ppid, pgrp;
	char state; /* 'Z': a zombie, dead already */
	char comm[64];
};

void
reap_init(void)
{
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

/* Reads /proc/<name>/stat into p; -1 if it is gone or not understood. */
static int
reap_stat(const char *name, struct reap_proc *p)
{
	char  path[64], buf[512], *open, *close;
	FILE *f;
	int   rc = -1;

	snprintf(path, sizeof path, "/proc/%.20s/stat", name);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	if (fgets(buf, sizeof buf, f) != NULL &&
	    (open = strchr(buf, '(')) != NULL &&
	    (close = strrchr(buf, ')')) != NULL && close > open &&
	    sscanf(close + 1, " %c %ld %ld", &p->state, &p->ppid, &p->pgrp) ==
		3) {
		*close = '\0';
		snprintf(p->comm, sizeof p->comm, "%s", open + 1);
		p->pid = strtol(name, NULL, 10);
		rc = 0;
	}
	fclose(f);
	return rc;
}

/* Calls cb on each process of /proc until it returns 1. */
static void
reap_walk(int (*cb)(const struct reap_proc *, void *), void *arg)
{
	struct reap_proc p;
	struct dirent	*e;
	DIR		*d;

	if ((d = opendir("/proc")) == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] >= '1' && e->d_name[0] <= '9' &&
		    reap_stat(e->d_name, &p) == 0 && cb(&p, arg))
			break;
	}
	closedir(d);
}

/*
 * Calls cb on each child of this process until it returns 1: the kernel's
 * list of them (one small read), or a walk of /proc without it.
 */
static void
reap_walk_children(int (*cb)(const struct reap_proc *, void *), void *arg)
{
	struct reap_proc p;
	char		 path[64], name[24];
	FILE		*f;

	snprintf(path, sizeof path, "/proc/self/task/%ld/children",
	    (long)getpid());
	if ((f = fopen(path, "re")) == NULL) {
		reap_walk(cb, arg);
		return;
	}
	while (fscanf(f, "%23s", name) == 1) {
		if (reap_stat(name, &p) == 0 && cb(&p, arg))
			break;
	}
	fclose(f);
}

/* What a walk adds to: the report, the group, this round's count. */
struct reap_round {
	struct reap_report *rep;
	long		    pgid;
	int		    n;
};

/* Counts a leftover once: the first named. */
static void
reap_count(struct reap_report *rep, const struct reap_proc *p)
{
	if (rep->killed++ == 0)
		snprintf(rep->first, sizeof rep->first, "%ld (%s)", p->pid,
		    p->comm);
}

/* Counts a live member of the benchmark's process group. */
static int
reap_group_one(const struct reap_proc *p, void *arg)
{
	struct reap_round *r = arg;

	if (p->pgrp == r->pgid && p->state != 'Z')
		reap_count(r->rep, p);
	return 0;
}

/*
 * Kills and reaps one child but a guardian; counts it when it was alive
 * and outside the group (whose members were counted already).
 */
static int
reap_child_one(const struct reap_proc *p, void *arg)
{
	struct reap_round *r = arg;

	if (p->ppid != (long)getpid() || strcmp(p->comm, GUARD_NAME) == 0)
		return 0;
	if (p->state != 'Z' && p->pgrp != r->pgid)
		reap_count(r->rep, p);
	kill((pid_t)p->pid, SIGKILL);
	waitpid((pid_t)p->pid, NULL, 0);
	r->n++;
	return 0;
}

void
reap_leftovers(pid_t pgid, int counted, struct reap_report *rep)
{
	struct reap_round r = { rep, pgid, 0 };
	int		  round;

	memset(rep, 0, sizeof *rep);
	if (kill(-pgid, 0) == 0) { /* the group is not empty: rarely */
		if (counted)
			reap_walk(reap_group_one, &r);
		kill(-pgid, SIGKILL);
	}
	for (round = 0; round < REAP_ROUNDS; round++) {
		r.n = 0;
		reap_walk_children(reap_child_one, &r);
		if (r.n == 0)
			break;
	}
}
