/* C baseline for MediaBench: the same per-packet work as PolyMedia's Swift path, written in plain C,
 * plus a process-wide count of heap allocation calls. */
#ifndef POLYVOICE_CSRTPBENCH_H
#define POLYVOICE_CSRTPBENCH_H
#include <stdint.h>

/* Heap allocation calls (malloc, calloc, realloc, memalign, posix_memalign, aligned_alloc, valloc)
 * made by the whole process so far: this target interposes glibc's allocator entry points. */
uint64_t csb_allocation_count(void);

/* Parses `iterations` times the RTP datagram `packet` (header, CSRCs, RFC 8285 extension in either form
 * with the audio level element `audio_level_id`, padding) and writes a packet into `out` from a
 * header template made once (copy, patch marker, advanced sequence number, timestamp and audio
 * level, copy the payload), as PolyMedia's RTPHeaderTemplate does. Returns a checksum so the work cannot be optimised away; -1 on a
 * malformed packet. */
int64_t csb_rtp_parse_serialize(const uint8_t *packet, int length, uint8_t *out, int out_capacity,
                                int audio_level_id, int iterations);

/* An SRTP sender/receiver pair over libsrtp2 (profile 1 = AES_CM_128_HMAC_SHA1_80, 7 = AEAD_AES_128_GCM)
 * using the same key for both; NULL on failure. libsrtp must already be initialised (create a
 * PolyMedia SRTPSession first: srtp_init may only run once per process). */
typedef struct csb_srtp_pair csb_srtp_pair;
csb_srtp_pair *csb_srtp_pair_create(int profile, const uint8_t *key_and_salt);
void csb_srtp_pair_destroy(csb_srtp_pair *pair);

/* Per iteration: copy `packet` into `buffer`, set its sequence number, srtp_protect with the sender,
 * srtp_unprotect with the receiver, then parse it as above. Returns a checksum or -1 on failure. */
int64_t csb_srtp_round_trips(csb_srtp_pair *pair, const uint8_t *packet, int length, uint8_t *buffer,
                             int capacity, int audio_level_id, uint16_t first_sequence, int iterations);
#endif
