/* placeholder */
#include "machine.h"
extern int inventory_placeholder;
