/* Tests for sim/rbtree.c: red-black invariants (root black, no red node
 * with a red child, equal black height on every path, consistent parent
 * pointers) and order against a sorted reference, under random insert and
 * erase with duplicate keys, plus the cached-leftmost variants.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>
#include <gsl/gsl_rng.h>

#include "sim/rbtree.h"

struct item {
	struct rb_node rb;
	int key;
	uint32_t id; /* insertion order: ties must come out in this order */
	bool live;
};

/* Caller's ordering as in CFQ's service tree: equal keys go right, so a
 * duplicate lands after every node already holding that key. */
static void item_insert(struct rb_root_cached *t, struct item *it)
{
	struct rb_node **link = &t->root.node, *parent = NULL;
	bool leftmost = true;

	while (*link) {
		struct item *cur = rb_entry(*link, struct item, rb);
		parent = *link;
		if (it->key < cur->key) {
			link = &parent->left;
		} else {
			link = &parent->right;
			leftmost = false;
		}
	}
	rb_link_node(&it->rb, parent, link);
	rb_insert_color_cached(&it->rb, t, leftmost);
	it->live = true;
}

static void item_erase(struct rb_root_cached *t, struct item *it)
{
	rb_erase_cached(&it->rb, t);
	rb_clear_node(&it->rb);
	it->live = false;
}

/* Returns the black height of the subtree (NULL leaves count 1) and counts
 * its nodes; fails the test on any broken invariant. */
static int check_subtree(const struct rb_node *n, const struct rb_node *parent, size_t *count)
{
	if (!n)
		return 1;
	assert_ptr_equal(n->parent, parent);
	assert_true(n->color == RB_RED || n->color == RB_BLACK);
	if (n->color == RB_RED) {
		assert_true(n->left == NULL || n->left->color == RB_BLACK);
		assert_true(n->right == NULL || n->right->color == RB_BLACK);
	}
	(*count)++;
	int hl = check_subtree(n->left, n, count);
	int hr = check_subtree(n->right, n, count);
	assert_int_equal(hl, hr);
	return hl + (n->color == RB_BLACK);
}

static size_t check_tree(const struct rb_root_cached *t)
{
	size_t count = 0;
	if (t->root.node)
		assert_int_equal(t->root.node->color, RB_BLACK);
	check_subtree(t->root.node, NULL, &count);
	assert_ptr_equal(t->leftmost, rb_first(&t->root));
	return count;
}

static int cmp_key_id(const void *a, const void *b)
{
	const struct item *x = *(const struct item *const *)a;
	const struct item *y = *(const struct item *const *)b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Walk the tree forwards and backwards and compare with the live items
 * sorted by (key, insertion order). */
static void check_against_sorted(const struct rb_root_cached *t, struct item *pool, size_t npool,
				 struct item **scratch)
{
	size_t n = 0;
	for (size_t i = 0; i < npool; i++)
		if (pool[i].live)
			scratch[n++] = &pool[i];
	qsort(scratch, n, sizeof(*scratch), cmp_key_id);

	assert_int_equal(check_tree(t), n);
	size_t i = 0;
	for (struct rb_node *r = rb_first(&t->root); r; r = rb_next(r), i++) {
		assert_true(i < n);
		assert_ptr_equal(rb_entry(r, struct item, rb), scratch[i]);
	}
	assert_int_equal(i, n);
	for (struct rb_node *r = rb_last(&t->root); r; r = rb_prev(r)) {
		assert_true(i > 0);
		assert_ptr_equal(rb_entry(r, struct item, rb), scratch[--i]);
	}
	assert_int_equal(i, 0);
}

static void test_rbtree_empty(void **state)
{
	struct rb_root_cached t = RB_ROOT_CACHED;
	assert_true(RB_EMPTY_ROOT(&t.root));
	assert_null(rb_first(&t.root));
	assert_null(rb_last(&t.root));
	assert_null(rb_first_cached(&t));

	struct item a = { .key = 1 };
	item_insert(&t, &a);
	assert_ptr_equal(rb_first_cached(&t), &a.rb);
	assert_null(rb_next(&a.rb));
	assert_null(rb_prev(&a.rb));
	item_erase(&t, &a);
	assert_true(RB_EMPTY_ROOT(&t.root));
	assert_null(rb_first_cached(&t));
	assert_true(RB_EMPTY_NODE(&a.rb));
	assert_null(rb_next(&a.rb)); /* a cleared node has no neighbours */
}

/* Ascending insertion, the worst case for an unbalanced tree: height must
 * stay within the red-black bound 2 log2(n + 1). */
static int height(const struct rb_node *n)
{
	if (!n)
		return 0;
	int l = height(n->left), r = height(n->right);
	return 1 + (l > r ? l : r);
}

static void test_rbtree_ascending_balanced(void **state)
{
	enum { N = 1 << 14 };
	struct item *pool = calloc(N, sizeof(*pool));
	struct rb_root_cached t = RB_ROOT_CACHED;
	for (uint32_t i = 0; i < N; i++) {
		pool[i].key = (int)i;
		pool[i].id = i;
		item_insert(&t, &pool[i]);
	}
	assert_int_equal(check_tree(&t), N);
	/* 2 log2(N + 1) is just over 28 for N = 2^14 */
	assert_true(height(t.root.node) <= 28);
	assert_ptr_equal(rb_first_cached(&t), &pool[0].rb);
	assert_ptr_equal(rb_last(&t.root), &pool[N - 1].rb);
	/* descending erase from the right end keeps the leftmost */
	for (int i = N - 1; i >= N / 2; i--)
		item_erase(&t, &pool[i]);
	assert_int_equal(check_tree(&t), N / 2);
	assert_ptr_equal(rb_first_cached(&t), &pool[0].rb);
	free(pool);
}

/* Equal keys: every duplicate goes to the right of the existing ones, so
 * the in-order walk yields them in insertion order, also after erasing
 * some from the middle (two-child erase moves the successor up). */
static void test_rbtree_duplicates_in_insertion_order(void **state)
{
	enum { N = 300 };
	struct item pool[N] = { 0 };
	struct item *scratch[N];
	struct rb_root_cached t = RB_ROOT_CACHED;
	for (uint32_t i = 0; i < N; i++) {
		pool[i].key = (int)(i % 3); /* 100 copies of each of 0, 1, 2 */
		pool[i].id = i;
		item_insert(&t, &pool[i]);
		check_tree(&t);
	}
	check_against_sorted(&t, pool, N, scratch);
	assert_ptr_equal(rb_first_cached(&t), &pool[0].rb); /* first key-0 item */
	for (uint32_t i = 0; i < N; i += 7) {
		item_erase(&t, &pool[i]);
		check_tree(&t);
	}
	check_against_sorted(&t, pool, N, scratch);
	assert_ptr_equal(rb_first_cached(&t), &pool[3].rb); /* pool[0] is gone */
}

/* Random insert/erase on a small key range with the invariants checked
 * after every single operation (exercises every fix-up case). */
static void test_rbtree_random_small_every_op(void **state)
{
	enum { N = 512, OPS = 20000 };
	struct item pool[N] = { 0 };
	struct item *scratch[N];
	struct rb_root_cached t = RB_ROOT_CACHED;
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 42);
	uint32_t next_id = 0;

	for (int op = 0; op < OPS; op++) {
		struct item *it = &pool[gsl_rng_uniform_int(r, N)];
		if (it->live) {
			item_erase(&t, it);
		} else {
			it->key = (int)gsl_rng_uniform_int(r, 64);
			it->id = next_id++;
			item_insert(&t, it);
		}
		check_tree(&t);
		if (op % 500 == 0)
			check_against_sorted(&t, pool, N, scratch);
	}
	check_against_sorted(&t, pool, N, scratch);
	gsl_rng_free(r);
}

/* 10^5 keys inserted and erased in random order against a sorted array,
 * full invariant check every 2500 operations and at the end. */
static void test_rbtree_random_1e5(void **state)
{
	enum { N = 100000 };
	struct item *pool = calloc(N, sizeof(*pool));
	struct item **scratch = calloc(N, sizeof(*scratch));
	uint32_t *live = calloc(N, sizeof(*live)); /* indices of live items */
	uint32_t nlive = 0, ninserted = 0;
	struct rb_root_cached t = RB_ROOT_CACHED;
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 7);
	int ops = 0;

	while (ninserted < N || nlive > 0) {
		/* insert with probability 0.6 while there is something left */
		bool ins = ninserted < N && (nlive == 0 || gsl_rng_uniform(r) < 0.6);
		if (ins) {
			struct item *it = &pool[ninserted];
			it->key = (int)gsl_rng_uniform_int(r, 30000); /* many duplicates */
			it->id = ninserted;
			item_insert(&t, it);
			live[nlive++] = ninserted++;
		} else {
			uint32_t k = (uint32_t)gsl_rng_uniform_int(r, nlive);
			item_erase(&t, &pool[live[k]]);
			live[k] = live[--nlive];
		}
		assert_ptr_equal(rb_first_cached(&t), rb_first(&t.root));
		if (++ops % 2500 == 0)
			check_against_sorted(&t, pool, N, scratch);
	}
	assert_int_equal(ops, 2 * N);
	assert_true(RB_EMPTY_ROOT(&t.root));
	assert_null(rb_first_cached(&t));
	gsl_rng_free(r);
	free(live);
	free(scratch);
	free(pool);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rbtree_empty),
		cmocka_unit_test(test_rbtree_ascending_balanced),
		cmocka_unit_test(test_rbtree_duplicates_in_insertion_order),
		cmocka_unit_test(test_rbtree_random_small_every_op),
		cmocka_unit_test(test_rbtree_random_1e5),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
