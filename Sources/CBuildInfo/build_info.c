// `make package` writes polyvoice_commit.h (#define POLYVOICE_COMMIT "<hash>") into a directory of its
// build and adds it with -Xcc -I: only this file recompiles when the commit changes, and development
// builds (no such header) say "unknown" instead of rebuilding on every commit.
#include "build_info.h"

#if __has_include("polyvoice_commit.h")
#include "polyvoice_commit.h"
#endif

#ifndef POLYVOICE_COMMIT
#define POLYVOICE_COMMIT "unknown"
#endif

const char *polyvoice_build_commit(void) { return POLYVOICE_COMMIT; }
