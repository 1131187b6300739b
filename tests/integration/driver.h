/* Shared parts of the integration test drivers. */
#ifndef HILAB_ITEST_DRIVER_H
#define HILAB_ITEST_DRIVER_H

#include <stdint.h>

#include "machines/machine.h"

/* Parses the machine options (-n -h -p -l -i -k -d -T -c -C -N -v) into m. */
int  driver_machine(struct machine *m, int *flags, int argc, char **argv);
void driver_machine_free(struct machine *m);
/* Prints the options driver_machine understands. */
void driver_usage(const char *prog);
/* Nanoseconds on the monotonic clock. */
uint64_t driver_now_ns(void);
/* Prints a failure and exits 1. */
void driver_die(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

#endif
