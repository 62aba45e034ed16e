#ifndef POLYVOICE_COPUS_BENCH_H
#define POLYVOICE_COPUS_BENCH_H
/* Baseline for CodecBench: the same encode/decode loops as the Swift wrapper, written directly in C
 * against libopus. The header avoids <opus/opus.h> so Swift code importing it sees no clashing names. */
#include <stdint.h>

/* Encoder configuration, applied with the same ctl calls in the same order as PolyAudio.OpusEncoder. */
typedef struct {
    int sample_rate;
    int channels;
    int frame_size; /* samples per channel */
    int bitrate;
    int complexity;
    int inband_fec;
    int packet_loss_percent;
} copus_bench_config;

/* Encodes `frames` consecutive frames of `pcm` into `packets` (each slot `max_packet` bytes, lengths
 * in `lengths`), timing each call into `frame_seconds[i]`. Returns the seconds spent in the loop
 * (encoder set-up excluded), or -1 on error. */
double copus_bench_encode(const copus_bench_config *config, const int16_t *pcm, int frames,
                          unsigned char *packets, int max_packet, int32_t *lengths, double *frame_seconds);

/* Decodes the packets into `pcm` (one frame buffer, reused), timing each call into `frame_seconds[i]`.
 * Returns seconds in the loop, or -1. */
double copus_bench_decode(const copus_bench_config *config, const unsigned char *packets, int max_packet,
                          const int32_t *lengths, int frames, int16_t *pcm, double *frame_seconds);

/* The clock both sides time with: CPU seconds of the calling thread (immune to other processes). */
double copus_bench_now(void);
#endif
