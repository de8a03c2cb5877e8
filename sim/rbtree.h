/* Intrusive red-black tree with the Linux kernel's interface
 * (include/linux/rbtree.h, lib/rbtree.c): the caller walks down comparing
 * its own keys, links the new node with rb_link_node(), then rebalances
 * with rb_insert_color(). Nodes are embedded in their owners.
 */
#ifndef SIM_RBTREE_H
#define SIM_RBTREE_H

#include <stdbool.h>
#include <stddef.h>

#include "sim/list.h" /* container_of */

struct rb_node {
	struct rb_node *parent;
	struct rb_node *left, *right;
	int color; /* RB_RED or RB_BLACK */
};

struct rb_root {
	struct rb_node *node;
};

/* A tree that also caches its leftmost node (the kernel's rb_root_cached,
 * used by CFQ's service trees). */
struct rb_root_cached {
	struct rb_root root;
	struct rb_node *leftmost;
};

#define RB_RED 0
#define RB_BLACK 1
#define RB_ROOT ((struct rb_root){ NULL })
#define RB_ROOT_CACHED ((struct rb_root_cached){ { NULL }, NULL })
#define rb_entry(ptr, type, member) container_of(ptr, type, member)
#define RB_EMPTY_ROOT(r) ((r)->node == NULL)
/* A node not in any tree points to itself (set by rb_clear_node). */
#define RB_EMPTY_NODE(n) ((n)->parent == (n))

static inline void rb_clear_node(struct rb_node *n) { n->parent = n; }

static inline void rb_link_node(struct rb_node *node, struct rb_node *parent, struct rb_node **link)
{
	node->parent = parent;
	node->left = node->right = NULL;
	node->color = RB_RED;
	*link = node;
}

void rb_insert_color(struct rb_node *node, struct rb_root *root);
void rb_erase(struct rb_node *node, struct rb_root *root);
struct rb_node *rb_first(const struct rb_root *root);
struct rb_node *rb_last(const struct rb_root *root);
struct rb_node *rb_next(const struct rb_node *node);
struct rb_node *rb_prev(const struct rb_node *node);

/* Cached variants: leftmost says whether the new node went down only left. */
void rb_insert_color_cached(struct rb_node *node, struct rb_root_cached *root, bool leftmost);
void rb_erase_cached(struct rb_node *node, struct rb_root_cached *root);
static inline struct rb_node *rb_first_cached(const struct rb_root_cached *r) { return r->leftmost; }

#endif
