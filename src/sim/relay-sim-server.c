/* placeholder: being written */
#include "config.h"
#include "relay-sim-server.h"
