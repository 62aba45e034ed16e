// baresip's libre (Debian libre-dev): only what the jbuf harness uses.
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <re_types.h>
#include <re_fmt.h>
#include <re_mem.h>
#include <re_mbuf.h>
#include <re_sa.h>
#include <re_list.h>
#include <re_rtp.h>
#include <re_jbuf.h>
