#ifndef POLYVOICE_CESPEAKNG_SHIM_H
#define POLYVOICE_CESPEAKNG_SHIM_H
/* espeak-ng's C API: synthesis in process, samples delivered to a callback.
 *
 * The library is loaded on first use (dlopen), not linked: only conversation tests speak, and a linked
 * libespeak-ng would load it and its ~30 dependencies (PulseAudio, X11, audio codecs) into every polyvoice
 * process, about 4 MB of each one's memory (docs/MEMORY.md). The types and constants come from the header;
 * the functions below resolve the library's on each call (a handful per synthesis). */
#include <dlfcn.h>
#include <stddef.h>
#include <espeak-ng/speak_lib.h>

/* The library's symbol `name`, loading the library the first time; NULL when it or the symbol is missing.
 * Callers serialise all use (espeak-ng is not thread-safe anyway). */
static inline void *pv_espeak_symbol(const char *name) {
    static void *library;
    if (library == NULL) library = dlopen("libespeak-ng.so.1", RTLD_NOW | RTLD_LOCAL);
    return library == NULL ? NULL : dlsym(library, name);
}

/* 1 when libespeak-ng.so.1 loads and has every function used here. */
static inline int pv_espeak_available(void) {
    return pv_espeak_symbol("espeak_Initialize") != NULL && pv_espeak_symbol("espeak_SetSynthCallback") != NULL
        && pv_espeak_symbol("espeak_SetVoiceByName") != NULL && pv_espeak_symbol("espeak_SetParameter") != NULL
        && pv_espeak_symbol("espeak_Synth") != NULL;
}

static inline int pv_espeak_Initialize(espeak_AUDIO_OUTPUT output, int buflength, const char *path, int options) {
    int (*function)(espeak_AUDIO_OUTPUT, int, const char *, int) =
        (int (*)(espeak_AUDIO_OUTPUT, int, const char *, int))pv_espeak_symbol("espeak_Initialize");
    return function == NULL ? -1 : function(output, buflength, path, options);
}

static inline void pv_espeak_SetSynthCallback(t_espeak_callback *callback) {
    void (*function)(t_espeak_callback *) = (void (*)(t_espeak_callback *))pv_espeak_symbol("espeak_SetSynthCallback");
    if (function != NULL) function(callback);
}

static inline espeak_ERROR pv_espeak_SetVoiceByName(const char *name) {
    espeak_ERROR (*function)(const char *) = (espeak_ERROR (*)(const char *))pv_espeak_symbol("espeak_SetVoiceByName");
    return function == NULL ? EE_INTERNAL_ERROR : function(name);
}

static inline espeak_ERROR pv_espeak_SetParameter(espeak_PARAMETER parameter, int value, int relative) {
    espeak_ERROR (*function)(espeak_PARAMETER, int, int) =
        (espeak_ERROR (*)(espeak_PARAMETER, int, int))pv_espeak_symbol("espeak_SetParameter");
    return function == NULL ? EE_INTERNAL_ERROR : function(parameter, value, relative);
}

static inline espeak_ERROR pv_espeak_Synth(
    const void *text, size_t size, unsigned int position, espeak_POSITION_TYPE position_type,
    unsigned int end_position, unsigned int flags, unsigned int *unique_identifier, void *user_data) {
    espeak_ERROR (*function)(
        const void *, size_t, unsigned int, espeak_POSITION_TYPE, unsigned int, unsigned int, unsigned int *, void *) =
        (espeak_ERROR (*)(const void *, size_t, unsigned int, espeak_POSITION_TYPE, unsigned int, unsigned int,
                          unsigned int *, void *))pv_espeak_symbol("espeak_Synth");
    return function == NULL
        ? EE_INTERNAL_ERROR
        : function(text, size, position, position_type, end_position, flags, unique_identifier, user_data);
}
#endif
