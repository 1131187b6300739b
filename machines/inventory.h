/* The lab inventory: machine files (YAML) parsed into validated structs. */
#ifndef HILAB_INVENTORY_H
#define HILAB_INVENTORY_H

#include <stdio.h>

#include "machines/machine.h"

/* Default inventory directory; HILAB_MACHINES or a flag override it. */
#define INVENTORY_DEFAULT_DIR	"/etc/hilab/machines"

/*
 * Parses every *.yaml file in dir (sorted by name).  Returns the inventory,
 * or NULL with *cause set to every error found, one per line, each as
 * "file:line:col: message" (caller frees *cause).
 */
struct inventory *inventory_load(const char *dir, char **cause);
/* Parses one machine file; same contract as inventory_load. */
struct inventory *inventory_load_file(const char *path, char **cause);
struct machine	*inventory_find(const struct inventory *, const char *name);
/* Prints the normalized inventory (every default filled in) as YAML. */
void		 inventory_print(FILE *, const struct inventory *);
void		 inventory_free(struct inventory *);
void		 machine_free(struct machine *);

#endif
