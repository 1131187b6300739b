/*
 * Internals of the inventory shared by inventory.c (value parsers, key
 * tables, loading) and inventory_check.c (checks across keys, defaults).
 */
#ifndef HILAB_INVENTORY_INT_H
#define HILAB_INVENTORY_INT_H

#include <stdbool.h>

#include "common/conf.h"
#include "common/cpulist.h"
#include "machines/machine.h"

/* The most cpus a machine file names: cpu lists stop there too. */
#define INV_MAX_CPUS CPULIST_MAX

/*
 * Parses a ';'-separated list of cpu lists into all, each cpu counted as
 * often as it is listed (caller frees with cpulist_free), and unless
 * normalized is NULL formats each list the kernel's way ("0-3;4-7").  It
 * stops at the first list that repeats a cpu: unless dup is NULL, *dup is
 * the lowest cpu that list repeats, else the lowest cpu in two lists, else
 * -1.  False if a list is malformed or empty.
 */
bool inv_cpugroups_parse(const char *s, struct cpulist *all, char **normalized,
    long *dup);
/* Checks a parsed machine across its keys, then fills in its defaults. */
void inv_machine_check(struct conf_file *, yaml_node_t *map, struct machine *);

#endif
