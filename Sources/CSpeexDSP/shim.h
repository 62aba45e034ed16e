#ifndef POLYVOICE_CSPEEXDSP_SHIM_H
#define POLYVOICE_CSPEEXDSP_SHIM_H
#include <speex/speex_resampler.h>
#endif
