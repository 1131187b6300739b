/* Which declared metric name declares an emitted one. */
#include <fnmatch.h>
#include <string.h>

#include "common/metric.h"

/* How declared declares name; see metric.h. */
int
metric_declares(const char *declared, const char *name)
{
	if (strcmp(declared, name) == 0)
		return 2;
	return strchr(declared, '*') != NULL && fnmatch(declared, name, 0) == 0;
}
