/* A C API over WebRTC's AudioProcessing module (Debian's webrtc-audio-processing 0.3):
 * echo cancellation, noise suppression and gain control on 10 ms blocks of interleaved int16. */
#ifndef POLYVOICE_PV_APM_H
#define POLYVOICE_PV_APM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pv_apm pv_apm;

/* Echo statistics in dB; `valid` is 0 until the echo canceller has produced figures. */
typedef struct pv_apm_stats {
    int valid;
    int echo_return_loss;                  /* ERL: far-end power over echo power (average). */
    int echo_return_loss_enhancement;      /* ERLE: echo power over output power (average). */
    int residual_echo_return_loss;         /* RERL = ERL + ERLE (average). */
    int delay_median_ms;                   /* Median delay mismatch the canceller finds, -1 if unknown. */
    int delay_std_ms;
    int stream_has_echo;                   /* The last capture block contained echo. */
} pv_apm_stats;

/* A processor for `sample_rate` (8000, 16000, 32000 or 48000) and 1 or 2 channels with the given
 * components on (non-zero). NULL if the library refuses the configuration. */
pv_apm *pv_apm_create(int sample_rate, int channels, int aec, int ns, int agc);

/* The far-end (playout) signal: exactly one 10 ms block, `frames` samples per channel.
 * Returns 0 or a negative library error code. */
int pv_apm_process_render(pv_apm *apm, const int16_t *samples, size_t frames);

/* The near-end (microphone) signal, processed in place: one 10 ms block. `delay_ms` is the time
 * from a render block entering `pv_apm_process_render` to its echo entering this call. */
int pv_apm_process_capture(pv_apm *apm, int16_t *samples, size_t frames, int delay_ms);

/* Echo statistics (all zero and `valid` 0 without echo cancellation). */
void pv_apm_get_stats(pv_apm *apm, pv_apm_stats *stats);

void pv_apm_destroy(pv_apm *apm);

#ifdef __cplusplus
}
#endif

#endif
