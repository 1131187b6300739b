/*
 * The error convention of every library folder: a function returns 0/-1
 * (or NULL) and hands back why through char **cause, which the caller
 * frees.
 */
#ifndef HILAB_CAUSE_H
#define HILAB_CAUSE_H

#include <stdarg.h>

/*
 * Sets *cause to the formatted message unless cause is NULL, and returns
 * -1 so that a failing path can end with "return causef(...)".  *cause must
 * not hold a message yet; an argument may be that message's text.
 */
int causef(char **cause, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* causef with a va_list. */
int vcausef(char **cause, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

#endif
