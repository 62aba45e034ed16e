// Drives baresip's jitter buffer (libre jbuf) offline along an arrival trace and records what it plays.
//
// Usage: JbufHarness TRACE.csv MIN MAX > schedule.csv
// As in baresip's receive path, each arriving packet is put into jbuf and one packet is taken out; when it skips
// sequence numbers, PLC frames for the lost ones are queued before it. Decoded frames go to a FIFO (baresip's
// aubuf, 160 ms max) that a 20 ms player clock drains from the first frame on, playing silence on underrun.
// Output CSV `play_ms,seq`: seq empty = PLC, z = silence.
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <stdbool.h>
#include <stdint.h>
#include <re_types.h>
#include <re_fmt.h>
#include <re_mem.h>
#include <re_mbuf.h>
#include <re_sa.h>
#include <re_list.h>
#include <re_rtp.h>
#include <re_jbuf.h>

struct entry { int seq; double send, arrival; int lost; };
struct packet_mem { int index; };

// baresip's default audio_buffer is 20-160 ms: older frames are dropped beyond 160 ms (8 frames).
#define AUBUF_MAX 8

static void push(int *fifo, int *count, int value) {
    if (*count == AUBUF_MAX) memmove(fifo, fifo + 1, (size_t)(--*count) * sizeof *fifo);
    fifo[(*count)++] = value;
}

static int by_arrival(const void *a, const void *b) {
    const struct entry *x = a, *y = b;
    if (x->arrival != y->arrival) return x->arrival < y->arrival ? -1 : 1;
    return x->seq - y->seq;
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: %s TRACE.csv MIN MAX\n", argv[0]); return 2; }
    FILE *file = fopen(argv[1], "r");
    if (!file) { perror(argv[1]); return 1; }
    size_t capacity = 4096, count = 0;
    struct entry *entries = malloc(capacity * sizeof *entries);
    char line[256];
    while (fgets(line, sizeof line, file)) {
        if (!strncmp(line, "seq", 3)) continue;
        struct entry e = {0};
        char arrival[64] = "";
        if (sscanf(line, "%d,%lf,%63[^\n]", &e.seq, &e.send, arrival) < 2) continue;
        e.lost = arrival[0] == '\0' || arrival[0] == '\r';
        e.arrival = e.lost ? 0 : atof(arrival);
        if (count == capacity) entries = realloc(entries, (capacity *= 2) * sizeof *entries);
        entries[count++] = e;
    }
    fclose(file);
    if (count == 0) return 1;
    double start = entries[0].send;
    size_t received = 0;
    struct entry *arrivals = malloc(count * sizeof *arrivals);
    for (size_t i = 0; i < count; i++) if (!entries[i].lost) arrivals[received++] = entries[i];
    qsort(arrivals, received, sizeof *arrivals, by_arrival);

    struct jbuf *jb = NULL;
    if (jbuf_alloc(&jb, (uint32_t)atoi(argv[2]), (uint32_t)atoi(argv[3]))) { fprintf(stderr, "jbuf_alloc\n"); return 1; }
    printf("play_ms,seq\n");
    // The player's FIFO of decoded frames (baresip's aubuf): packet index, or -1 for PLC.
    int fifo[AUBUF_MAX];
    int fifo_count = 0, last_seq = -1;
    double clock = -1;
    size_t next = 0;
    for (;;) {
        double slot = clock < 0 ? arrivals[next].arrival : clock;
        // Arrivals up to this slot: put each into jbuf and take one frame out (baresip's receive handler).
        while (next < received && arrivals[next].arrival <= slot) {
            struct rtp_header hdr;
            memset(&hdr, 0, sizeof hdr);
            hdr.seq = (uint16_t)arrivals[next].seq;
            hdr.ts = (uint32_t)arrivals[next].seq * 960;
            hdr.ssrc = 0x5eed;
            struct packet_mem *m = mem_zalloc(sizeof *m, NULL);
            m->index = arrivals[next].seq;
            jbuf_put(jb, &hdr, m);
            mem_deref(m);
            next++;
            void *mem = NULL;
            int err = jbuf_get(jb, &hdr, &mem);
            if ((err == 0 || err == EAGAIN) && mem) {
                int seq = ((struct packet_mem *)mem)->index;
                mem_deref(mem);
                if (seq <= last_seq) continue;
                int lost = last_seq >= 0 ? seq - last_seq - 1 : 0;
                for (int i = 0; i < lost && i < 10; i++) push(fifo, &fifo_count, -1);
                push(fifo, &fifo_count, seq);
                last_seq = seq;
            }
        }
        if (clock < 0) {
            if (fifo_count == 0) continue;
            clock = slot;
        }
        if (fifo_count > 0) {
            if (fifo[0] >= 0) printf("%.3f,%d\n", clock - start, fifo[0]);
            else printf("%.3f,\n", clock - start);
            memmove(fifo, fifo + 1, (size_t)(--fifo_count) * sizeof *fifo);
        } else {
            if (next == received) break;
            printf("%.3f,z\n", clock - start);  // aubuf underrun: silence
        }
        clock += 20;
    }
    mem_deref(jb);
    free(entries);
    free(arrivals);
    return 0;
}
