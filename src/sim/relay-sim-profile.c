/* placeholder: being written */
#include "config.h"
#include "relay-sim-profile.h"
