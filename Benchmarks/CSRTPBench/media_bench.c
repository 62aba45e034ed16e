/* The C side of MediaBench: RTP parse/serialize and libsrtp2 protect/unprotect per packet. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <srtp2/srtp.h>
#include "CSRTPBench.h"

typedef struct {
    int marker, payload_type, csrc_count;
    uint16_t sequence;
    uint32_t timestamp, ssrc;
    int ext_offset, ext_length; /* extension data (after its 4-byte header) */
    int payload_offset, payload_length;
    int audio_level;            /* the element's byte (V bit + level), -1 when absent */
} rtp_view;

static inline uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Same checks as RTPPacketView: version, CSRCs, extension, RFC 8285 elements (both forms), padding;
 * picks the audio level up during its one walk of the elements (RTPPacketView records offsets). */
static int rtp_parse(const uint8_t *p, int len, int audio_level_id, rtp_view *v) {
    if (len < 12 || (p[0] >> 6) != 2) return -1;
    int end = len;
    v->csrc_count = p[0] & 0x0f;
    v->marker = p[1] >> 7;
    v->payload_type = p[1] & 0x7f;
    v->sequence = be16(p + 2);
    v->timestamp = be32(p + 4);
    v->ssrc = be32(p + 8);
    if (p[0] & 0x20) {
        int pad = p[len - 1];
        if (pad == 0 || pad > len - 12 - 4 * v->csrc_count) return -1;
        end -= pad;
    }
    int pos = 12 + 4 * v->csrc_count;
    if (pos > end) return -1;
    v->audio_level = -1;
    v->ext_offset = pos;
    v->ext_length = 0;
    if (p[0] & 0x10) {
        if (pos + 4 > end) return -1;
        uint16_t profile = be16(p + pos);
        int words = be16(p + pos + 2);
        pos += 4;
        if (pos + 4 * words > end) return -1;
        v->ext_offset = pos;
        v->ext_length = 4 * words;
        /* RFC 8285 elements, one-byte (0xBEDE) or two-byte (0x100x) form: every element must fit. */
        int one_byte = profile == 0xBEDE, two_byte = (profile & 0xFFF0) == 0x1000;
        if (one_byte || two_byte) {
            int i = pos, stop = pos + 4 * words;
            while (i < stop) {
                int id, l, header;
                if (p[i] == 0) { i++; continue; } /* padding */
                if (one_byte) {
                    id = p[i] >> 4;
                    if (id == 15) break;
                    if (id == 0) { i++; continue; }
                    l = (p[i] & 0x0f) + 1;
                    header = 1;
                } else {
                    if (i + 2 > stop) return -1;
                    id = p[i];
                    l = p[i + 1];
                    header = 2;
                }
                if (i + header + l > stop) return -1;
                if (id == audio_level_id && l == 1 && v->audio_level < 0) v->audio_level = p[i + header];
                i += header + l;
            }
        }
        pos += 4 * words;
    }
    v->payload_offset = pos;
    v->payload_length = end - pos;
    return 0;
}

/* A stream's header encoded once (fixed header, CSRCs, extension block), like RTPHeaderTemplate. */
typedef struct {
    uint8_t bytes[12 + 4 * 15 + 4 + 4 * 64];
    int count;
    uint8_t payload_type_byte;
    int audio_level_offset; /* index of the audio level element's data byte, -1 without one */
} rtp_template;

/* The template of a parsed packet: its header bytes; -1 if the header does not fit. */
static int rtp_template_make(const uint8_t *p, const rtp_view *v, int audio_level_id, rtp_template *t) {
    if (v->payload_offset > (int)sizeof t->bytes) return -1;
    memcpy(t->bytes, p, (size_t)v->payload_offset);
    t->count = v->payload_offset;
    t->payload_type_byte = (uint8_t)v->payload_type;
    t->audio_level_offset = -1;
    /* The one-byte-form element with the audio level ID and one data byte (set up once, not timed). */
    int i = v->ext_offset, stop = v->ext_offset + v->ext_length;
    while (v->audio_level >= 0 && i < stop) {
        if (p[i] == 0) { i++; continue; }
        if (p[i] >> 4 == 15) break;
        if (p[i] >> 4 == audio_level_id && (p[i] & 0x0f) == 0) { t->audio_level_offset = i + 1; break; }
        i += (p[i] & 0x0f) + 2;
    }
    return 0;
}

/* RTPHeaderTemplate.write: copy the header, patch marker, sequence, timestamp and audio level,
 * copy the payload; -1 if `out` is too small. */
static int rtp_template_write(const rtp_template *t, uint16_t sequence, uint32_t timestamp, int marker,
                              int audio_level, const uint8_t *payload, int payload_length, uint8_t *out, int cap) {
    int needed = t->count + payload_length;
    if (needed > cap) return -1;
    memcpy(out, t->bytes, (size_t)t->count);
    out[1] = marker ? (uint8_t)(t->payload_type_byte | 0x80) : t->payload_type_byte;
    out[2] = (uint8_t)(sequence >> 8);
    out[3] = (uint8_t)sequence;
    out[4] = (uint8_t)(timestamp >> 24);
    out[5] = (uint8_t)(timestamp >> 16);
    out[6] = (uint8_t)(timestamp >> 8);
    out[7] = (uint8_t)timestamp;
    if (audio_level >= 0 && t->audio_level_offset >= 0) out[t->audio_level_offset] = (uint8_t)audio_level;
    memcpy(out + t->count, payload, (size_t)payload_length);
    return needed;
}

int64_t csb_rtp_parse_serialize(const uint8_t *packet, int length, uint8_t *out, int out_capacity,
                                int audio_level_id, int iterations) {
    rtp_view first;
    rtp_template template;
    if (rtp_parse(packet, length, audio_level_id, &first) != 0) return -1;
    if (rtp_template_make(packet, &first, audio_level_id, &template) != 0) return -1;
    int64_t sum = 0;
    for (int i = 0; i < iterations; i++) {
        rtp_view v;
        if (rtp_parse(packet, length, audio_level_id, &v) != 0) return -1;
        int n = rtp_template_write(&template, (uint16_t)(v.sequence + i), v.timestamp, v.marker, v.audio_level,
                                   packet + v.payload_offset, v.payload_length, out, out_capacity);
        if (n < 0) return -1;
        sum += n + (v.audio_level & 0x7f) + out[3];
    }
    return sum;
}

struct csb_srtp_pair { srtp_t sender, receiver; };

csb_srtp_pair *csb_srtp_pair_create(int profile, const uint8_t *key_and_salt) {
    /* srtp_init() is not idempotent in libsrtp 2.5 (a second call fails): PolyMedia's SRTPSession
     * has already initialised the library in this process, so this baseline does not call it. */
    csb_srtp_pair *pair = calloc(1, sizeof *pair);
    if (!pair) return NULL;
    srtp_t *contexts[2] = { &pair->sender, &pair->receiver };
    srtp_ssrc_type_t types[2] = { ssrc_any_outbound, ssrc_any_inbound };
    for (int i = 0; i < 2; i++) {
        srtp_policy_t policy;
        memset(&policy, 0, sizeof policy);
        if (profile == 7) {
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtp);
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtcp);
        } else {
            srtp_crypto_policy_set_aes_cm_128_hmac_sha1_80(&policy.rtp);
            srtp_crypto_policy_set_aes_cm_128_hmac_sha1_80(&policy.rtcp);
        }
        policy.ssrc.type = types[i];
        policy.window_size = 128;
        policy.key = (unsigned char *)key_and_salt;
        srtp_err_status_t status = srtp_create(contexts[i], &policy);
        if (status != srtp_err_status_ok) { fprintf(stderr, "srtp_create: %d\n", status); return NULL; }
    }
    return pair;
}

void csb_srtp_pair_destroy(csb_srtp_pair *pair) {
    if (!pair) return;
    srtp_dealloc(pair->sender);
    srtp_dealloc(pair->receiver);
    free(pair);
}

int64_t csb_srtp_round_trips(csb_srtp_pair *pair, const uint8_t *packet, int length, uint8_t *buffer,
                             int capacity, int audio_level_id, uint16_t first_sequence, int iterations) {
    int64_t sum = 0;
    if (length + SRTP_MAX_TRAILER_LEN > capacity) return -1;
    for (int i = 0; i < iterations; i++) {
        uint16_t sequence = (uint16_t)(first_sequence + i);
        memcpy(buffer, packet, (size_t)length);
        buffer[2] = (uint8_t)(sequence >> 8);
        buffer[3] = (uint8_t)sequence;
        int n = length;
        if (srtp_protect(pair->sender, buffer, &n) != srtp_err_status_ok) return -1;
        if (srtp_unprotect(pair->receiver, buffer, &n) != srtp_err_status_ok) return -1;
        rtp_view v;
        if (rtp_parse(buffer, n, audio_level_id, &v) != 0) return -1;
        sum += n + (v.audio_level & 0x7f) + v.payload_length;
    }
    return sum;
}
