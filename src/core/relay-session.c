/* placeholder: being written */
#include "config.h"
#include "relay-session.h"
