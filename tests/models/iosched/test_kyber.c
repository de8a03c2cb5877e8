/* kyber (models/iosched/kyber.c): when reads miss their 2 ms target at the
 * device (I/O latency p90 past the target: congestion) while writes are
 * within theirs, the write domain's token depth is cut (scaled by its p99
 * bucket / 4 every timer run) and the read domain keeps its 256; with a
 * read target the device meets nothing is throttled. A device with 32
 * parallel 3 ms commands, so latency is the service time alone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tests/models/block/mq_rig.h"

struct depths {
	int64_t read, write, write_min, congested;
	uint64_t reads, writes;
};

static struct depths kyber_case(const char *sched_yaml)
{
	struct mq_rig *r = mq_rig_new_servers("kyber", 3000, 32, 32, NULL, sched_yaml);
	struct mq_stream rd, wr;
	struct depths d;
	json_t *root, *st;

	mq_stream_start(&rd, r, 10, 0, 0, 8, 8, 0, 0, 3000 * MS);
	mq_stream_start(&wr, r, 20, 100000000, REQ_WRITE, 8, 8, 0, 0, 3000 * MS);
	mq_rig_run(r);
	st = mq_rig_sched_stats(r, &root);
	d.read = json_integer_value(json_object_get(json_object_get(st, "domain_depth"), "read"));
	d.write = json_integer_value(json_object_get(json_object_get(st, "domain_depth"), "write"));
	d.write_min = json_integer_value(json_object_get(json_object_get(st, "domain_min_depth"),
							 "write"));
	d.congested = json_integer_value(json_object_get(st, "congested_runs"));
	d.reads = rd.done;
	d.writes = wr.done;
	json_decref(root);
	mq_rig_free(r);
	return d;
}

static void test_kyber_throttles_writes_when_reads_miss_target(void **state)
{
	(void)state;
	struct depths miss = kyber_case(NULL);
	struct depths meet = kyber_case("read_lat_nsec: 20000000\n");

	fprintf(stderr, "read target 2 ms (missed): read depth %lld, write depth %lld (min %lld), "
		"%lld congested timer runs, %llu reads %llu writes\n",
		(long long)miss.read, (long long)miss.write, (long long)miss.write_min,
		(long long)miss.congested, (unsigned long long)miss.reads,
		(unsigned long long)miss.writes);
	fprintf(stderr, "read target 20 ms (met): read depth %lld, write depth %lld (min %lld), "
		"%lld congested\n", (long long)meet.read, (long long)meet.write,
		(long long)meet.write_min, (long long)meet.congested);
	assert_true(miss.congested > 0);
	assert_int_equal(miss.read, 256);
	assert_true(miss.write_min <= 16);
	assert_int_equal(meet.congested, 0);
	assert_int_equal(meet.write_min, 128);
	assert_int_equal(meet.read, 256);
	/* throttled writes: fewer of them completed than with no throttling */
	assert_true(miss.writes < meet.writes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kyber_throttles_writes_when_reads_miss_target),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
