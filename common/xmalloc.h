/* Allocation wrappers that abort on out-of-memory. */
#ifndef HILAB_XMALLOC_H
#define HILAB_XMALLOC_H

#include <stdarg.h>
#include <stddef.h>

void *xmalloc(size_t);
void *xcalloc(size_t, size_t);
void *xreallocarray(void *, size_t, size_t);
char *xstrdup(const char *);
char *xstrndup(const char *, size_t);
/* Returns a newly allocated formatted string; the caller frees it. */
char *xasprintf(const char *, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *, va_list);

#endif
