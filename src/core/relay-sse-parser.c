/* placeholder: being written */
#include "config.h"
#include "relay-sse-parser.h"
