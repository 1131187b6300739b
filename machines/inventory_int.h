/*
 * Internals of the inventory shared by inventory.c (value parsers, key
 * tables, loading), inventory_check.c (checks across keys, defaults),
 * inventory_boot.c (the "boot" section) and inventory_print.c.
 */
#ifndef HILAB_INVENTORY_INT_H
#define HILAB_INVENTORY_INT_H

#include <stdbool.h>

#include "common/conf.h"
#include "common/cpulist.h"
#include "machines/machine.h"

/* The most cpus a machine file names: cpu lists stop there too. */
#define INV_MAX_CPUS CPULIST_MAX
#define INV_DAY_MS   (24L * 3600 * 1000)
#define INV_DURATION                                     \
	"a duration from 1ms to 24h such as \"10s\" or " \
	"\"500ms\""
#define INV_ARGV "a command such as [pdu, off, \"3\"]"

/* A duration key of 1ms to 24h. */
#define INV_DUR(n, o)                                                  \
	{                                                              \
		.name = (n), .parse = conf_parse_duration, .off = (o), \
		.min = 1, .max = INV_DAY_MS, .expect = INV_DURATION    \
	}

struct conf_emit;

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
/* A path on the remote host: it must be absolute. */
void inv_parse_abspath(struct conf_file *, const struct conf_key *,
    yaml_node_t *, void *);
/*
 * A command as a sequence of words, run without a shell; a relative program
 * path with a "/" is taken from the machine file's directory.
 */
void inv_parse_argv(struct conf_file *, const struct conf_key *, yaml_node_t *,
    void *);

/* The "boot" section (inventory_boot.c): its keys, checks, printer, free. */
extern const struct conf_key inventory_boot_keys[];
/* Checks the section against the machine's kind and fills its defaults. */
void inventory_boot_check(struct conf_file *, yaml_node_t *map,
    struct machine *);
/* Emits the section with every default, if the machine has one. */
void inventory_boot_print(struct conf_emit *, const struct machine_boot *);
/* Frees what the section holds. */
void inventory_boot_free(struct machine_boot *);

#endif
