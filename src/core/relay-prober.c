/* placeholder: being written */
#include "config.h"
#include "relay-prober.h"
