/*
 * The grammar of hilabd as data (hilabd/options.c): its options with their
 * types, what it does, its signals in the description, its exit codes and
 * environment.  It drives parsing and --help (common/args.h), and holds
 * what a man page needs.
 */
#ifndef HILAB_HILABD_OPTIONS_H
#define HILAB_HILABD_OPTIONS_H

#include "common/args.h"

#define HILABD_EXIT_OK	  0 /* stopped by a signal; -n: all is valid */
#define HILABD_EXIT_FAIL  1 /* could not start or keep running */
#define HILABD_EXIT_USAGE 2 /* bad arguments, inventory or catalog */

extern const struct args_prog hilabd_prog;

#endif
