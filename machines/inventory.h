/* The lab inventory: machine files (YAML) parsed into validated structs. */
#ifndef HILAB_INVENTORY_H
#define HILAB_INVENTORY_H

#include <stdio.h>

#include "machines/machine.h"

/* Default inventory directory; HILAB_MACHINES or a flag override it. */
#define INVENTORY_DEFAULT_DIR "/etc/hilab/machines"

/*
 * Parses every *.yaml file in dir (sorted by name, dot files skipped).
 * Returns the inventory, or NULL with *cause set to every error found,
 * sorted by file and position, one per line without a final newline, each
 * as "file:line:col: message" (caller frees *cause).  An empty directory
 * is a valid, empty inventory.
 */
struct inventory *inventory_load(const char *dir, char **cause);
/*
 * Parses one machine file (a mapping, or a sequence of them); same
 * contract as inventory_load.
 */
struct inventory *inventory_load_file(const char *path, char **cause);
/* inventory_load for a directory, inventory_load_file for anything else. */
struct inventory *inventory_load_path(const char *path, char **cause);
/* The machine called name, or NULL; owned by the inventory. */
struct machine *inventory_find(const struct inventory *, const char *name);
/*
 * Prints the normalized inventory (every default filled in) as a YAML
 * sequence of machines, "[]" when empty; parsing it again gives the same.
 */
void inventory_print(FILE *, const struct inventory *);
/* Prints one machine as an item of that sequence. */
void inventory_print_machine(FILE *, const struct machine *);
/*
 * NULL when a libvirt machine's emulator can be run here (or libvirt runs
 * it elsewhere: a uri other than qemu:///...), else why not, naming the
 * machine file (caller frees).  Where a VM boots and by "machines check":
 * loading a file only checks an emulator other than the default.
 */
char *inventory_emulator_check(const struct machine *);
/* "ssh" or "libvirt". */
const char *machine_kind_str(enum machine_kind);
void	    inventory_free(struct inventory *);
void	    machine_free(struct machine *);

#endif
