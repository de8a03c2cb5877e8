/* UFS host queueing mode (models/device/ufs_host.c): ufshcd's choice of SDB
 * or MCQ and ufshcd_mcq_config_nr_queues' split of the controller's queues
 * into default, read and poll queues; a configuration the controller
 * cannot take falls back to SDB, as ufshcd does, unless MCQ was required.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "models/device/ufs_host.h"
#include "sim/config.h"

struct rig {
	struct cfg_doc *doc;
	struct ufs_host *h;
	struct sim_error err;
	int rc;
};

/* Parse yaml as the host map and configure it for bqd and cpus. */
static void build(struct rig *r, const char *yaml, uint32_t bqd, uint32_t cpus)
{
	memset(r, 0, sizeof(*r));
	assert_int_equal(cfg_load_string(yaml, strlen(yaml), "host", &r->doc, &r->err), 0);
	r->rc = ufs_host_create(cfg_root(r->doc), &r->h, &r->err);
	if (r->rc == 0)
		r->rc = ufs_host_config(r->h, bqd, cpus, &r->err);
}

static void done(struct rig *r)
{
	ufs_host_destroy(r->h);
	cfg_free(r->doc);
}

static void test_default_split(void **state)
{
	(void)state;
	struct rig r;

	/* maxq 16, 8 CPUs: poll 1 first, then min(15, 8, 8) default */
	build(&r, "mcq_supported: true\nmaxq: 16\nmac: 64\n", 32, 8);
	assert_int_equal(r.rc, 0);
	assert_true(r.h->mcq);
	assert_int_equal(r.h->nr_queues[UFS_HCTX_DEFAULT], 8);
	assert_int_equal(r.h->nr_queues[UFS_HCTX_READ], 0);
	assert_int_equal(r.h->nr_queues[UFS_HCTX_POLL], 1);
	assert_int_equal(r.h->nr_hw_queues, 9);
	assert_int_equal(r.h->nutrs, 32);
	assert_int_equal(r.h->can_queue, 31);
	done(&r);

	/* MAC below bQueueDepth bounds the tags */
	build(&r, "mcq_supported: true\nmac: 16\n", 32, 8);
	assert_int_equal(r.h->nutrs, 16);
	assert_int_equal(r.h->can_queue, 15);
	done(&r);

	/* a small controller: default gets what the poll queue leaves */
	build(&r, "mcq_supported: true\nmaxq: 4\n", 32, 8);
	assert_int_equal(r.h->nr_queues[UFS_HCTX_DEFAULT], 3);
	assert_int_equal(r.h->nr_hw_queues, 4);
	done(&r);

	/* explicit rw_queues and read_queues are taken as given */
	build(&r, "mcq_supported: true\nrw_queues: 4\nread_queues: 2\npoll_queues: 0\n", 32, 8);
	assert_int_equal(r.h->nr_queues[UFS_HCTX_DEFAULT], 4);
	assert_int_equal(r.h->nr_queues[UFS_HCTX_READ], 2);
	assert_int_equal(r.h->nr_hw_queues, 6);
	done(&r);
}

static void test_sdb_choices(void **state)
{
	(void)state;
	struct rig r;

	/* no MCQ in the controller, or use_mcq_mode=0 */
	build(&r, "mcq_supported: false\n", 32, 8);
	assert_int_equal(r.rc, 0);
	assert_false(r.h->mcq);
	assert_int_equal(r.h->nr_hw_queues, 1);
	done(&r);
	build(&r, "mcq_supported: true\nmode: sdb\n", 32, 8);
	assert_false(r.h->mcq);
	done(&r);

	/* too many queues asked for: ufshcd_alloc_mcq fails, SDB goes on */
	build(&r, "mcq_supported: true\nmaxq: 2\nrw_queues: 2\n", 32, 8);
	assert_int_equal(r.rc, 0);
	assert_false(r.h->mcq);
	assert_non_null(r.h->why);
	assert_int_equal(r.h->nr_hw_queues, 1);
	done(&r);
	/* ... unless MCQ was required */
	build(&r, "mcq_supported: true\nmaxq: 2\nrw_queues: 2\nmode: mcq\n", 32, 8);
	assert_int_equal(r.rc, SIM_E_INPUT);
	assert_non_null(strstr(r.err.msg, "more queues"));
	done(&r);
	/* a device without shared queueing (bQueueDepth 0) */
	build(&r, "mcq_supported: true\n", 0, 8);
	assert_false(r.h->mcq);
	done(&r);
}

static void test_bad_input(void **state)
{
	(void)state;
	struct rig r;

	build(&r, "mode: mcq\n", 32, 8);
	assert_int_equal(r.rc, SIM_E_INPUT);
	assert_non_null(strstr(r.err.msg, "mcq_supported"));
	done(&r);
	/* rw_queue_count_set(): 2..num_possible_cpus() */
	build(&r, "mcq_supported: true\nrw_queues: 1\n", 32, 8);
	assert_int_equal(r.rc, SIM_E_INPUT);
	done(&r);
	build(&r, "mcq_supported: true\nrw_queues: 9\nmaxq: 32\n", 32, 8);
	assert_int_equal(r.rc, SIM_E_INPUT);
	done(&r);
}

/* blk_mq_map_queues of 6.1 without SMT: round robin from the type's offset. */
static void test_map_queue(void **state)
{
	(void)state;
	assert_int_equal(ufs_map_queue(0, 0, 8), 0);
	assert_int_equal(ufs_map_queue(7, 0, 8), 7);
	assert_int_equal(ufs_map_queue(5, 0, 3), 2);
	assert_int_equal(ufs_map_queue(3, 8, 2), 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_split),
		cmocka_unit_test(test_sdb_choices),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_map_queue),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
