/* placeholder: being written */
#include "config.h"
#include "relay-stats.h"
