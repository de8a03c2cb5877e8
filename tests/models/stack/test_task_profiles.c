/* Android task profiles (models/stack/task_profiles.c): the top-app and
 * foreground-service apps sit in the blkio root group, other apps in the
 * background group (weight 200, bfq weight 10); an fg switch moves them;
 * system uids and kernel threads stay in the root group; off by default;
 * blk-ioprio's policy combines with the task's class as max(). */
#include "tests/models/stack/stack_harness.h"

#define TP_YAML(extra)                                                               \
	"device: {model: ideal, service: fixed, mean_us: 100, queue_depth: 1}\n"     \
	"memory: {total_bytes: 512MiB, reserved_bytes: 128MiB}\n"                    \
	"writeback: {include: configs/writeback/linux.yaml}\n"                       \
	"fg: [{at: 0s, uid: 10050}, {at: 1s, uid: 10060}]\n" extra

static void test_task_profiles_groups_follow_fg(void **state)
{
	(void)state;
	struct sh *h = sh_new(TP_YAML("task_profiles: {enabled: true, foreground_uids: \"10070\"}\n"));
	struct sh_script a = { 0 }, b = { 0 }, c = { 0 }, d = { 0 };
	sh_op(&a, STACK_OP_SLEEP, NULL, 0, 0, 3 * SEC);
	sh_op(&b, STACK_OP_SLEEP, NULL, 0, 0, 3 * SEC);
	sh_op(&c, STACK_OP_SLEEP, NULL, 0, 0, 3 * SEC);
	sh_op(&d, STACK_OP_SLEEP, NULL, 0, 0, 3 * SEC);
	struct stack_task *photos = sh_script_task(h, "photos", 10050, 0, &a);
	struct stack_task *bg = sh_script_task(h, "bg", 10060, 0, &b);
	struct stack_task *music = sh_script_task(h, "music", 10070, 0, &c);
	struct stack_task *sys = sh_script_task(h, "system_server", 1000, 0, &d);
	sh_run(h, SEC / 2);
	struct io_context *ip = stack_task_ioc(photos), *ib = stack_task_ioc(bg);
	struct io_context *im = stack_task_ioc(music), *is = stack_task_ioc(sys);
	/* top-app: root group, weight 1000 */
	assert_int_equal(ip->blkcg_id, 0);
	assert_int_equal(ip->blkcg_weight, 1000);
	/* background app: the background group */
	assert_int_equal(ib->blkcg_id, 1);
	assert_int_equal(ib->blkcg_weight, 200);
	assert_int_equal(ib->blkcg_bfq_weight, 10);
	/* foreground service and system: root */
	assert_int_equal(im->blkcg_id, 0);
	assert_int_equal(is->blkcg_id, 0);
	/* at 1 s uid 10060 becomes top-app: the groups swap */
	sh_run(h, 2 * SEC);
	assert_int_equal(ib->blkcg_id, 0);
	assert_int_equal(ip->blkcg_id, 1);
	assert_int_equal(ip->blkcg_bfq_weight, 10);
	/* the flusher (a kernel thread) stays in the root group */
	assert_int_equal(stack_flusher_ioc(h->st)->blkcg_id, 0);
	assert_true(h->st->tp->moves >= 4);
	sh_run(h, SIM_TIME_MAX);
	sh_free(h);
}

static void test_task_profiles_off_by_default(void **state)
{
	(void)state;
	struct sh *h = sh_new(TP_YAML(""));
	struct sh_script b = { 0 };
	sh_op(&b, STACK_OP_SLEEP, NULL, 0, 0, SEC);
	struct stack_task *bg = sh_script_task(h, "bg", 10060, 0, &b);
	sh_run(h, SEC / 2);
	assert_int_equal(stack_task_ioc(bg)->blkcg_id, 0);
	assert_int_equal(stack_task_ioc(bg)->blkcg_weight, 0);
	sh_run(h, SIM_TIME_MAX);
	sh_free(h);
}

/* blk-ioprio (5.15 blkcg_ioprio_track): class = max(class, policy). */
static void test_task_profiles_prio_class_policy(void **state)
{
	(void)state;
	struct io_context ioc = { .ioprio_class = IOPRIO_CLASS_RT };
	assert_int_equal(ioc_io_class(&ioc), IOPRIO_CLASS_RT);
	ioc.blkcg_prio_policy = IOPRIO_CLASS_BE; /* restrict-to-be */
	assert_int_equal(ioc_io_class(&ioc), IOPRIO_CLASS_BE);
	ioc.ioprio_class = IOPRIO_CLASS_IDLE;
	assert_int_equal(ioc_io_class(&ioc), IOPRIO_CLASS_IDLE);
	ioc.ioprio_class = IOPRIO_CLASS_BE;
	ioc.blkcg_prio_policy = IOPRIO_CLASS_IDLE; /* idle */
	assert_int_equal(ioc_io_class(&ioc), IOPRIO_CLASS_IDLE);
	struct sh *h = sh_new(TP_YAML("task_profiles: {enabled: true, bg_prio_class: restrict-to-be}\n"));
	struct sh_script b = { 0 };
	sh_op(&b, STACK_OP_SLEEP, NULL, 0, 0, SEC / 2);
	struct stack_task *bg = sh_script_task(h, "bg", 10060, 0, &b);
	sh_run(h, SEC / 4);
	assert_int_equal(stack_task_ioc(bg)->blkcg_prio_policy, IOPRIO_CLASS_BE);
	sh_run(h, SIM_TIME_MAX);
	sh_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_task_profiles_groups_follow_fg),
		cmocka_unit_test(test_task_profiles_off_by_default),
		cmocka_unit_test(test_task_profiles_prio_class_policy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
