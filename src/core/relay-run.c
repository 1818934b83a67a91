/* placeholder: being written */
#include "config.h"
#include "relay-run.h"
