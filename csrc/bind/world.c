/* Placeholder until the World lands: adds nothing to the module table. */
#include "bind.h"

void cl_open_world(lua_State *L) { (void)L; }
