#include "copus_bench.h"

#include <opus/opus.h>
#include <time.h>

double copus_bench_now(void) {
    /* CPU time of this thread: the machine is shared, so wall time would count other processes. */
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double copus_bench_encode(const copus_bench_config *config, const int16_t *pcm, int frames,
                          unsigned char *packets, int max_packet, int32_t *lengths, double *frame_seconds) {
    int error = OPUS_OK;
    OpusEncoder *encoder = opus_encoder_create(config->sample_rate, config->channels, OPUS_APPLICATION_VOIP, &error);
    if (!encoder || error != OPUS_OK) return -1;
    opus_encoder_ctl(encoder, OPUS_SET_BITRATE(config->bitrate));
    opus_encoder_ctl(encoder, OPUS_SET_VBR(1));
    opus_encoder_ctl(encoder, OPUS_SET_COMPLEXITY(config->complexity));
    opus_encoder_ctl(encoder, OPUS_SET_MAX_BANDWIDTH(OPUS_BANDWIDTH_FULLBAND));
    opus_encoder_ctl(encoder, OPUS_SET_INBAND_FEC(config->inband_fec));
    opus_encoder_ctl(encoder, OPUS_SET_PACKET_LOSS_PERC(config->packet_loss_percent));
    opus_encoder_ctl(encoder, OPUS_SET_DTX(0));
    const int step = config->frame_size * config->channels;
    double start = copus_bench_now();
    double before = start;
    for (int i = 0; i < frames; i++) {
        opus_int32 length = opus_encode(encoder, pcm + (long)i * step, config->frame_size,
                                        packets + (long)i * max_packet, max_packet);
        if (length < 0) { opus_encoder_destroy(encoder); return -1; }
        lengths[i] = length;
        double after = copus_bench_now();
        frame_seconds[i] = after - before;
        before = after;
    }
    double seconds = copus_bench_now() - start;
    opus_encoder_destroy(encoder);
    return seconds;
}

double copus_bench_decode(const copus_bench_config *config, const unsigned char *packets, int max_packet,
                          const int32_t *lengths, int frames, int16_t *pcm, double *frame_seconds) {
    int error = OPUS_OK;
    OpusDecoder *decoder = opus_decoder_create(config->sample_rate, config->channels, &error);
    if (!decoder || error != OPUS_OK) return -1;
    double start = copus_bench_now();
    double before = start;
    for (int i = 0; i < frames; i++) {
        int samples = opus_decode(decoder, packets + (long)i * max_packet, lengths[i], pcm, config->frame_size, 0);
        if (samples < 0) { opus_decoder_destroy(decoder); return -1; }
        double after = copus_bench_now();
        frame_seconds[i] = after - before;
        before = after;
    }
    double seconds = copus_bench_now() - start;
    opus_decoder_destroy(decoder);
    return seconds;
}
