/*
 * A machine's serial console, kept per boot.  A console server's log that
 * grows across boots (conserver, ser2net) is followed from where it stood
 * when the boot began; a command's output (ipmitool sol activate) is read
 * while the command runs.  Either way each boot's part goes to a file of
 * its own, <dir>/<machine>-<time>.log, readable while it grows.  A command
 * console also takes input (console_write): a boot loader prompt can be
 * answered through it.
 */
#ifndef HILAB_CONSOLE_H
#define HILAB_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>

#include "machines/machine.h"

/* What a kernel prints when it panics. */
#define CONSOLE_PANIC "Kernel panic - not syncing"

struct console;

/*
 * Starts keeping the console c of machine m (named in messages and file
 * names) for one boot.  Returns it, or NULL with *cause (the directory
 * cannot be made, the command cannot start).
 */
struct console *console_start(const struct machine *m,
    const struct machine_console *c, char **cause);
/* The boot's console file (owned by the console). */
const char *console_path(const struct console *);
/* Writes to a command console's input; -1 with *cause for a file one. */
int console_write(struct console *, const void *buf, size_t len, char **cause);
/* Stops following (the command is stopped); the file stays.  NULL ok. */
void console_stop(struct console *);

/*
 * A fresh file name <dir>/<name>-<YYYYmmdd-HHMMSS.mmm>.log for one boot,
 * its directory made (caller frees); NULL with *cause.
 */
char *console_file_new(const char *dir, const char *name, char **cause);
/* Reads up to the last max bytes of file path (caller frees), or NULL. */
char *console_file_tail(const char *path, size_t max);
/*
 * The part of a boot's console file a failed run keeps (caller frees), or
 * NULL: max bytes around its first kernel panic, the panic a quarter from
 * the end, so that the reset and the boot a panic=N may bring next do not
 * push it out; without a panic, the last max bytes.
 */
char *console_file_excerpt(const char *path, size_t max);
/* True if the console text shows a kernel panic. */
bool console_panicked(const char *tail);
/*
 * True if tail shows a panic after which the kernel reboots by itself
 * ("Rebooting in N seconds..", a panic= timeout): the machine's firmware
 * then brings its default kernel without a power cycle.
 */
bool console_resets_itself(const char *tail);
/* The console line that says most: the panic line, else the last line. */
char *console_line(const char *tail);

#endif
