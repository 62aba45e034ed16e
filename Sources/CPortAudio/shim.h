#ifndef POLYVOICE_CPORTAUDIO_SHIM_H
#define POLYVOICE_CPORTAUDIO_SHIM_H
#include <portaudio.h>
#include <alsa/asoundlib.h>

/* ALSA prints ~100 lines of probe noise when PortAudio scans devices on a
   machine without a sound card; a silent (variadic) handler cuts it. */
static void pv_alsa_silent_handler(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}
static inline void pv_alsa_silence_errors(void) { snd_lib_error_set_handler(pv_alsa_silent_handler); }
#endif
