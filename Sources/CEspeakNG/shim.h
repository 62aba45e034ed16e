#ifndef POLYVOICE_CESPEAKNG_SHIM_H
#define POLYVOICE_CESPEAKNG_SHIM_H
/* espeak-ng's C API: synthesis in process, samples delivered to a callback. */
#include <espeak-ng/speak_lib.h>
#endif
