/* placeholder */
#include "machine.h"
extern int ssh_placeholder;
