/* placeholder: being written */
#include "config.h"
#include "relay-probe-plan.h"
