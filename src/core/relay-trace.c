/* placeholder: being written */
#include "config.h"
#include "relay-trace.h"
