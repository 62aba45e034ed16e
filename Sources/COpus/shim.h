#ifndef POLYVOICE_COPUS_SHIM_H
#define POLYVOICE_COPUS_SHIM_H
#include <opus/opus.h>

/* opus_*_ctl are variadic macros-over-variadics: not importable into Swift. */
static inline int pv_opus_set_bitrate(OpusEncoder *e, opus_int32 v) { return opus_encoder_ctl(e, OPUS_SET_BITRATE(v)); }
static inline int pv_opus_set_vbr(OpusEncoder *e, opus_int32 v) { return opus_encoder_ctl(e, OPUS_SET_VBR(v)); }
static inline int pv_opus_set_complexity(OpusEncoder *e, opus_int32 v) { return opus_encoder_ctl(e, OPUS_SET_COMPLEXITY(v)); }
static inline int pv_opus_set_max_bandwidth(OpusEncoder *e, opus_int32 v) { return opus_encoder_ctl(e, OPUS_SET_MAX_BANDWIDTH(v)); }
static inline int pv_opus_set_inband_fec(OpusEncoder *e, opus_int32 v) { return opus_encoder_ctl(e, OPUS_SET_INBAND_FEC(v)); }
static inline int pv_opus_set_packet_loss_perc(OpusEncoder *e, opus_int32 v) { return opus_encoder_ctl(e, OPUS_SET_PACKET_LOSS_PERC(v)); }
static inline int pv_opus_set_force_channels(OpusEncoder *e, opus_int32 v) { return opus_encoder_ctl(e, OPUS_SET_FORCE_CHANNELS(v)); }
static inline int pv_opus_set_dtx(OpusEncoder *e, opus_int32 v) { return opus_encoder_ctl(e, OPUS_SET_DTX(v)); }
static inline int pv_opus_set_signal(OpusEncoder *e, opus_int32 v) { return opus_encoder_ctl(e, OPUS_SET_SIGNAL(v)); }
static inline int pv_opus_get_lookahead(OpusEncoder *e, opus_int32 *v) { return opus_encoder_ctl(e, OPUS_GET_LOOKAHEAD(v)); }
static inline int pv_opus_get_bitrate(OpusEncoder *e, opus_int32 *v) { return opus_encoder_ctl(e, OPUS_GET_BITRATE(v)); }
static inline int pv_opus_get_in_dtx(OpusEncoder *e, opus_int32 *v) { return opus_encoder_ctl(e, OPUS_GET_IN_DTX(v)); }
static inline int pv_opus_encoder_reset(OpusEncoder *e) { return opus_encoder_ctl(e, OPUS_RESET_STATE); }
static inline int pv_opus_decoder_reset(OpusDecoder *d) { return opus_decoder_ctl(d, OPUS_RESET_STATE); }
static inline int pv_opus_decoder_get_last_packet_duration(OpusDecoder *d, opus_int32 *v) { return opus_decoder_ctl(d, OPUS_GET_LAST_PACKET_DURATION(v)); }
#endif
