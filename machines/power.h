/*
 * Power control of a lab machine, from the "power" section of its machine
 * file: a BMC reached with ipmitool, or commands (a switchable PDU).  Every
 * command runs as a child process, never through a shell; ipmitool reads
 * the BMC password from its file, so it is on no command line and in no
 * message.  Errors name the machine and what drives its power:
 * `machine "board1": BMC 127.0.0.1:9001: ipmitool: Error: ...`.
 */
#ifndef HILAB_POWER_H
#define HILAB_POWER_H

#include <stdbool.h>

#include "machines/machine.h"

enum power_action {
	POWER_ON,
	POWER_OFF,
	POWER_CYCLE,
};

struct power;

/*
 * The machine's power driver (it keeps a pointer to m), or NULL with
 * *cause when the machine has no power section or its password file cannot
 * be read.
 */
struct power *power_open(const struct machine *m, char **cause);
/*
 * Switches the power.  On and off return once the status reads so, a cycle
 * once it read off for a moment (when the driver can read the status: a
 * cycle may be too quick to show); a cycle of a machine that is off powers
 * it on.  Returns 0, or -1 with *cause.
 */
int power_set(struct power *, enum power_action, char **cause);
/* Reads whether the machine is powered on; 0, or -1 with *cause. */
int power_status(struct power *, bool *on, char **cause);
/* What switches the power, for messages: "BMC 10.0.0.9:623". */
const char *power_what(const struct power *);
/* "on", "off", "cycle". */
const char *power_action_name(enum power_action);
/* Parses "on", "off" or "cycle"; -1 if it is none of them. */
int  power_action_parse(const char *, enum power_action *);
void power_close(struct power *);

#endif
