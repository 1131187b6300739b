/* placeholder */
#include "machine.h"
extern int agent_client_placeholder;
