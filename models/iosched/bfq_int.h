/* bfq's internals shared by its two files (not for use outside them): the
 * entity, group, queue and scheduler structures of block/bfq-iosched.h and
 * the calls between models/iosched/bfq.c (queues, expiry, idling, weight
 * raising, the elevator hooks: block/bfq-iosched.c) and
 * models/iosched/bfq_wf2q.c (B-WF2Q+ and the groups: block/bfq-wf2q.c and
 * block/bfq-cgroup.c).
 */
#ifndef MODELS_IOSCHED_BFQ_INT_H
#define MODELS_IOSCHED_BFQ_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "models/block/block.h"
#include "models/block/elevator.h"
#include "sim/list.h"
#include "sim/rbtree.h"
#include "sim/sim.h"

/* Walk a list; pos is a pointer to type, linked by member. */
#define bfq_for_each(pos, head, type, member)                                             \
	for (struct list_head *bfq_it_ = (head)->next;                                      \
	     bfq_it_ != (head) && ((pos) = list_entry(bfq_it_, type, member), 1);            \
	     bfq_it_ = bfq_it_->next)
#define bfq_list_for_each(pos, head, member) bfq_for_each(pos, head, struct bfq_queue, member)

#define BFQ_WEIGHT_CONVERSION_COEFF 10
#define BFQ_DEFAULT_WEIGHT 40                  /* BE level 4 */
#define BFQ_SOFTRT_WEIGHT_FACTOR 100
#define BFQ_DEFAULT_MAX_BUDGET (16 * 1024)     /* sectors */
#define BFQ_STATS_MIN_BUDGETS 194
#define BFQ_ASYNC_CHARGE_FACTOR 3
#define BFQ_MAX_SERVICE_FROM_WR 120000         /* sectors */
#define BFQ_CL_IDLE_TIMEOUT_NS (200 * 1000000LL) /* HZ / 5 */
#define BFQ_RATE_MIN_INTERVAL_NS (300 * 1000000LL)
#define BFQ_RATE_MIN_SAMPLES 32
/* ref_rate[1] = 33000 sectors/usec << 16 = 503540 sectors/s (non-rotational) */
#define BFQ_REF_RATE_NONROT 503540ull
#define BFQ_REF_WR_DURATION_NONROT_NS (2500 * 1000000LL)
#define BFQ_WR_MIN_DUR_NS (3000 * 1000000LL)
#define BFQ_WR_MAX_DUR_NS (13000 * 1000000LL)
#define BFQ_JIFFY_NS 4000000LL                 /* CONFIG_HZ=250 (GKI) */
#define BFQ_SAMPLE_VALID 80
#define BFQQ_SEEK_THR 800                      /* sectors, BFQQ_SEEK_THR 8 * 100 */
#define BFQQ_SECT_THR_NONROT 64
#define WFQ_SERVICE_SHIFT 22
#define BFQ_NCLASS 3

enum bfq_expire_reason {
	BFQQE_TOO_IDLE = 0,
	BFQQE_BUDGET_TIMEOUT,
	BFQQE_BUDGET_EXHAUSTED,
	BFQQE_NO_MORE_REQUESTS,
	BFQQE_PREEMPTED,
	BFQQE_NREASON
};

struct bfq_data;
struct bfq_group;

/* bfq_entity (bfq-iosched.h): what B-WF2Q+ schedules in a group's
 * service trees - a queue, or a child group. */
struct bfq_entity {
	struct list_head busy_node;  /* parent->busy[cls] */
	struct bfq_group *parent;    /* whose service trees hold it */
	struct bfq_queue *bfqq;      /* NULL: a group's own entity */
	struct bfq_group *my_group;  /* a group's own entity: the group */
	int cls;                     /* 0 RT, 1 BE, 2 IDLE */
	uint32_t weight;
	uint64_t start, finish;
	uint64_t budget, service;
	bool busy;                   /* in its parent's active tree */
};

/* bfq_group (bfq-cgroup.c): one per blkio cgroup with I/O here, its
 * own service trees per class (sched_data), its async queues, and an
 * entity scheduled in its parent's trees with the group's weight. */
struct bfq_group {
	struct list_head node;       /* bfqd->groups */
	struct bfq_entity entity;    /* unused for the root group */
	uint32_t id;                 /* io_context blkcg_id; 0 = root */
	uint32_t weight;             /* blkio.bfq.weight */
	struct list_head busy[BFQ_NCLASS];
	uint64_t vtime[BFQ_NCLASS];
	uint64_t wsum[BFQ_NCLASS];
	uint32_t busy_children;
	int64_t last_idle_class_service; /* sd->bfq_class_idle_last_service */
	struct bfq_queue *async[BFQ_NCLASS][8];
	uint32_t queues_with_pending; /* num_queues_with_pending_reqs */
	uint64_t served;             /* sectors dispatched from its queues */
};

struct bfq_queue {
	struct list_head node;       /* bfqd->queues */
	struct bfq_entity entity;
	struct bfq_data *bfqd;
	struct bfq_group *bfqg;
	const struct io_context *ioc; /* sync: its process; async: NULL */
	int32_t pid;
	bool sync;
	int cls;                     /* 0 RT, 1 BE, 2 IDLE */
	int level;

	struct rb_root sort_list;
	struct list_head fifo;
	uint32_t queued, dispatched;
	uint64_t last_pos;

	uint32_t orig_weight;
	uint64_t max_budget;
	bool pending;                /* in_groups_with_pending_reqs */

	/* weight raising */
	uint32_t wr_coeff;
	int64_t last_wr_start_finish, wr_cur_max_time;
	int64_t wr_start_at_switch_to_srt;
	uint64_t service_from_wr;
	int64_t budget_timeout;
	bool budget_new;
	int64_t soft_rt_next_start, last_idle_bklogged;
	uint64_t service_from_backlogged;

	/* think time and seekiness */
	int64_t last_end_request;
	uint64_t ttime_samples, ttime_total, ttime_mean;
	uint32_t seek_history;
	bool fifo_checked;

	uint64_t served;             /* sectors dispatched, all slots */
	uint32_t interactive_raises, softrt_raises;

	/* injection (bfq_update_inject_limit) */
	uint32_t inject_limit;
	int64_t last_serv_time_ns, decrease_time;
};

struct bfq_data {
	/* tunables */
	int64_t slice_idle_ns;
	int64_t timeout_ns;
	int64_t max_budget_user;     /* 0 = auto */
	int64_t fifo_expire_ns[2];   /* [async, sync] */
	uint64_t back_max_bytes;
	int64_t back_penalty;
	bool low_latency;
	bool strict_guarantees;
	int64_t wr_coeff_param;
	int64_t wr_rt_max_time_ns;
	int64_t wr_min_idle_time_ns;
	int64_t wr_max_softrt_rate;

	bool group_iosched;
	int64_t group_weight_default;

	struct elevator *e;
	uint32_t word_depths[2][2];  /* [weight-raised queues busy][sync write] */
	struct list_head queues;
	struct list_head groups;
	struct bfq_group *root;
	uint32_t busy_queues, wr_busy_queues;
	uint32_t busy_per_class[BFQ_NCLASS];
	struct bfq_queue *in_service;
	bool wait_request;
	struct sim_event idle_timer;
	uint32_t rq_in_driver;
	bool hw_tag;

	uint64_t max_budget;
	uint64_t budgets_assigned;
	uint64_t peak_rate;          /* sectors/s */
	int64_t rate_start;
	uint64_t rate_sectors, rate_samples;

	uint64_t queued;             /* requests inside (bfqd->queued) */
	uint64_t preemptions;
	uint64_t expirations[BFQQE_NREASON];
	uint64_t idle_arms, charged_time;
	uint64_t group_idles;        /* idle arms while several groups had requests pending */
	uint64_t injected;           /* requests injected while idling */
	/* injection state (bfqd->waited_rq, wait_dispatch, rqs_injected) */
	const struct io_request *waited_rq;
	bool wait_dispatch, rqs_injected;
	int64_t last_empty_occupied, last_idling_start;
	uint32_t max_rq_in_driver;
	uint64_t group_moves;        /* sync queues moved to another group */
	/* mobisim: boost_lba (the boost policy): lifted requests, served first */
	struct list_head boosted;
	uint64_t boost_hits, boost_misses;
};

/* bfq.c */
uint64_t bfq_delta(uint64_t service, uint32_t weight);
uint64_t bfq_min_budget(const struct bfq_data *bfqd);
int64_t bfq_now(const struct bfq_data *bfqd);
void bfq_expire(struct bfq_data *bfqd, struct bfq_queue *bfqq, enum bfq_expire_reason reason);
/* The end of a service slot (__bfq_requeue_entity / deactivation up the
 * path of the in-service queue): each entity's finish becomes start +
 * service / weight; a queue with requests left, and a group with active
 * children left, is requeued from there with its next budget. */
void bfq_requeue_path(struct bfq_data *bfqd, struct bfq_queue *bfqq, bool empty);

/* bfq_wf2q.c */
void bfq_add_busy(struct bfq_data *bfqd, struct bfq_queue *bfqq);
void bfq_del_busy(struct bfq_data *bfqd, struct bfq_queue *bfqq);
void bfq_entity_enqueue(struct bfq_entity *ent);
uint64_t bfq_group_next_budget(struct bfq_data *bfqd, struct bfq_group *g);
struct bfq_group *bfq_group_of(struct bfq_data *bfqd, const struct io_context *ioc);
struct bfq_queue *bfq_lookup_next(struct bfq_data *bfqd);
void bfq_move_queue(struct bfq_data *bfqd, struct bfq_queue *bfqq, struct bfq_group *g);
struct bfq_entity *bfq_peek_next_root(struct bfq_data *bfqd, struct bfq_queue *in);
void bfq_served(struct bfq_data *bfqd, struct bfq_queue *bfqq, uint64_t charge);
struct bfq_entity *bfq_top_entity(struct bfq_data *bfqd, struct bfq_entity *ent);
void bfq_update_pending(struct bfq_queue *bfqq);

#endif
