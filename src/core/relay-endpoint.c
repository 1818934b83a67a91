/* placeholder: being written */
#include "config.h"
#include "relay-endpoint.h"
