/* placeholder: being written */
#include "config.h"
#include "relay-dialect.h"
