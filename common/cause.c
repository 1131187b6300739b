/* Handing back why a call failed: see cause.h. */
#include "common/cause.h"
#include "common/xmalloc.h"

/* Sets *cause to the formatted message; returns -1. */
int
vcausef(char **cause, const char *fmt, va_list ap)
{
	if (cause != NULL)
		*cause = xvasprintf(fmt, ap);
	return -1;
}

/* Sets *cause to the formatted message; returns -1. */
int
causef(char **cause, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vcausef(cause, fmt, ap);
	va_end(ap);
	return -1;
}
