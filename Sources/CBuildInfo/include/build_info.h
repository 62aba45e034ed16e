// The commit the binary was built from, for `polyvoice --version`.
#ifndef POLYVOICE_BUILD_INFO_H
#define POLYVOICE_BUILD_INFO_H

const char *polyvoice_build_commit(void);

#endif
