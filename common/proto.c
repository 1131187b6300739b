/* placeholder: the codec arrives with the agent work */
#include "common/proto.h"
extern int proto_placeholder;
