#ifndef POLYVOICE_COPUS_BENCH_H
#define POLYVOICE_COPUS_BENCH_H
/* Baseline for CodecBench: the same encode/decode loop written directly in C. */
#endif
