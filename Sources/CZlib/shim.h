#ifndef POLYVOICE_CZLIB_SHIM_H
#define POLYVOICE_CZLIB_SHIM_H
/* zlib for PNG: compress2 for IDAT, crc32 for chunk checksums. */
#include <zlib.h>
#endif
