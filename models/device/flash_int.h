/* Private state of the multi-die flash model (models/device/flash.c), exposed for
 * its unit tests only. Nothing outside flash.c and tests/models/device/test_flash.c (and
 * tests/models/device/test_ftl.c, which reaches the FTL through it) may include this header.
 */
#ifndef MODELS_FLASH_INT_H
#define MODELS_FLASH_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "models/device/ftl.h"
#include "sim/engine.h"

struct device;
struct io_request;

enum flash_link {
	FLASH_LINK_EMMC_HS200 = 0,
	FLASH_LINK_EMMC_HS400,
	FLASH_LINK_UFS_HS_G2,
	FLASH_LINK_UFS_HS_G3,
	FLASH_LINK_UFS_HS_G4,
	FLASH_LINK_UFS_HS_G5,
};

/* One pending release of write-buffer space: bytes free again at t, when
 * the program that drained them ends. Kept in a binary min-heap on t, or
 * (rel_sorted) a ring sorted on t. */
struct flash_release {
	int64_t t;
	uint64_t bytes;
	int64_t gc_ns;           /* FTL: foreground GC booked just before this program */
};

/* Every shared resource as a "busy until" time. A request books its
 * operations when it is submitted, in submission order, so each resource
 * is served first come first served and a booking never moves; with
 * read_priority the programs of buffered data are booked when they start
 * (flash_dev's drain queue), not at admission. */
struct flash_timeline {
	int64_t *die_free;       /* die busy (array read, data out, program) until */
	int64_t *die_prog_start; /* last program booked on the die: cell phase start */
	int64_t *die_prog_end;   /* ... and end */
	int64_t *ch_free;        /* channel bus busy until */
	int64_t link_rx;         /* host link, device -> host (reads) */
	int64_t link_tx;         /* host link, host -> device (writes); eMMC uses link_rx */
	int64_t ctrl_free;       /* controller firmware busy until */
	int64_t drain_done;      /* end of the last program booked */

	/* write buffer */
	uint64_t wb_used;        /* bytes held: open unit plus undrained units */
	uint64_t open_fill;      /* bytes in the unit being filled */
	int64_t open_ready;      /* when the last of them arrived */
	struct flash_release *rel;
	uint32_t nrel, caprel;   /* caprel a power of two */
	uint32_t relhead;        /* rel_sorted: ring index of the earliest */
	bool rel_sorted;         /* ring (read_priority's timeline) or heap */
	uint32_t wptr;           /* round-robin position of the next program, < ndies */
	uint64_t next_wsector;   /* end of the previous write (sequential detection) */
	double slc_used;         /* bytes in the SLC cache at slc_t */
	int64_t slc_t;
};

/* A full program unit waiting in the write buffer for a die (read_priority:
 * programs are started when their die frees, not booked at admission). */
struct flash_unit {
	uint64_t bytes;
	int64_t ready;           /* its last byte arrived over the link */
	uint32_t nlpn;           /* FTL: its staged 4 KiB pages, in lpn_ring */
};

/* A write command (or flush) not yet fully admitted into the write buffer,
 * FIFO: it waits for space, and completes when its last byte is in (FUA:
 * when everything before it is programmed). */
struct flash_wreq {
	struct io_request *rq;
	uint64_t pos, end;       /* bytes still to admit */
	uint64_t cur;            /* FTL staging cursor */
	int64_t t0;              /* after the command overhead */
	int64_t done;
	int64_t wait_from;       /* -1, or when the piece at pos began to wait */
	int64_t gc_ns;           /* part of the waits due to foreground GC */
	uint32_t flags;
	bool flushed;            /* its pre-flush has been served */
};

struct flash_dev {
	/* tunables (flash_params) */
	int64_t channels;
	int64_t dies;             /* in total */
	int64_t planes;
	uint64_t page_bytes;
	int64_t read_ns;          /* tR */
	int64_t prog_ns;          /* tPROG of one (multi-plane) page program */
	uint64_t slc_bytes;       /* SLC cache (WriteBooster) size; 0 = none */
	int64_t slc_prog_ns;      /* program time of a unit into the SLC cache */
	double slc_fold_bps;      /* background folding rate out of the cache */
	int slc_flush;            /* 0 always, 1 only in HIBERN8 (WriteBooster flush) */
	int64_t hibern8_idle_ns;  /* idle time before the link enters HIBERN8 */
	int64_t idle_from;        /* device idle (nothing in flight or buffered) since */
	double channel_bps;       /* NAND bus rate per channel, bytes/s */
	int link;                 /* enum flash_link */
	int64_t lanes;
	double link_bps_override; /* 0 = from link and lanes */
	double link_efficiency;   /* payload fraction after protocol framing */
	int64_t cmd_read_ns;
	int64_t cmd_write_ns;
	int64_t rand_write_ns;    /* extra FTL cost of a non-sequential write */
	int64_t flush_ns;
	uint64_t wbuf_bytes;
	bool write_cache;
	bool program_suspend;
	int64_t suspend_ns;
	bool cmdq;
	int64_t queue_depth;
	bool read_priority;

	/* derived */
	uint32_t ndies;
	int64_t dies_per_channel;
	uint64_t link_rate;       /* bytes/s, integer */
	uint64_t ch_rate;         /* bytes/s, integer */
	bool full_duplex;
	uint64_t unit_bytes;      /* program unit: page x planes */
	int64_t unit_ch_ns;       /* channel time of a full unit's data */
	int64_t unit_link_ns;     /* host link time of a full unit's data */
	/* flash_book_read's page arithmetic without divisions where the
	 * divisor is a power of two (its log2, else -1), and the last
	 * transfer time asked of each rate for each of its two sizes (the
	 * piece and the codeword): a read page costs otherwise eight
	 * 64-bit divisions, a third of a device replay's time */
	int page_shift, ch_shift, dpc_shift, row_shift;
	struct flash_xfer_memo { uint64_t bytes; int64_t ns; } xm_ch, xm_ch_cw, xm_link, xm_link_cw;

	struct flash_timeline tl;      /* the device's real timelines */
	struct flash_timeline scratch; /* idle copy for idle_latency_ns */
	/* per-request scratch for multi-plane read rounds */
	uint64_t *round_key;
	int64_t *round_ready;
	uint64_t *round_gen;
	uint32_t *rr_die;         /* die at each round-robin position (rr_walk's order), twice over */
	/* rp_choose's last refusal of the head unit (no die takes it by now),
	 * valid while tl_gen - bumped by everything that books or frees a die,
	 * a channel or FTL space, and by a new head in an empty queue - equals
	 * memo_gen: the die it would take and when (memo_die, memo_pos,
	 * memo_next), or memo_die UINT32_MAX for the FTL walk's refusal at
	 * memo_now. tl_gen starts at 1, memo_gen at 0. */
	uint64_t tl_gen;
	uint64_t memo_gen;
	int64_t memo_now, memo_next;
	uint32_t memo_die, memo_pos;
	uint64_t gen;

	/* FTL (models/device/ftl.h), NULL when ftl.enabled is false */
	struct ftl *ftl;
	struct ftl_cfg ftl_cfg;
	int64_t *gc_start;        /* per die: last foreground GC booked on it */
	int64_t *gc_end;
	int64_t req_gc_ns;        /* the current request's time blocked on GC */
	int64_t unit_gc_ns;       /* GC booked before the last program unit */

	/* read_priority: the drain queue and the admission FIFO */
	struct device *dev;
	struct sim_event drain_ev;
	struct flash_unit *q;     /* ring of units not yet programmed */
	uint32_t qhead, qn, qcap;
	uint64_t *lpn_ring;       /* FTL: staged pages of queued + open units */
	uint32_t lhead, ln, lcap;
	uint32_t open_nlpn;       /* ... of which the open unit's */
	struct flash_wreq *wq;    /* ring of writes waiting for admission */
	uint32_t whead, wn, wcap;

	/* figures for the result */
	uint64_t page_reads, programs, slc_programs, wb_idle_flushes, buffer_stalls, suspends, prog_waits;
	int64_t buffer_stall_ns, prog_wait_ns;
	uint64_t wb_peak;
};

/* Service time of a read/write booked on tl at time now (tests use it to
 * drive the timelines without events). Returns the completion time. */
int64_t flash_book(struct flash_dev *d, struct flash_timeline *tl, int64_t now, bool write,
		   uint32_t flags, uint64_t sector, uint32_t nr_sectors, bool account);

#endif
