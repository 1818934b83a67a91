/* placeholder: being written */
#include "config.h"
#include "relay-summary.h"
