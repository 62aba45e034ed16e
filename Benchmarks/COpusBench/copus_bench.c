#include "copus_bench.h"
