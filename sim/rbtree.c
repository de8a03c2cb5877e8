/* Red-black tree rebalancing with the Linux kernel's interface (see rbtree.h).
 *
 * The algorithm is the textbook one (Cormen, Leiserson, Rivest and Stein,
 * "Introduction to Algorithms", 3rd ed., ch. 13: RB-INSERT-FIXUP,
 * RB-TRANSPLANT, RB-DELETE, RB-DELETE-FIXUP), adapted to NULL leaves: where
 * CLRS relies on the sentinel's parent pointer during delete fix-up, the
 * parent of the (possibly NULL) doubly black node is carried explicitly.
 * Behaviour follows the kernel's lib/rbtree.c: the caller owns ordering and
 * placement (rb_link_node), rb_erase does not clear the erased node, and
 * rb_next/rb_prev return NULL for a node marked empty with rb_clear_node.
 * Left out: augmented trees and rb_replace_node, which no model uses.
 */
#include "sim/rbtree.h"

/* ---- helpers ---------------------------------------------------------- */

static inline bool rb_is_black(const struct rb_node *n)
{
	return n == NULL || n->color == RB_BLACK; /* NULL leaves are black */
}

static inline bool rb_is_red(const struct rb_node *n)
{
	return n != NULL && n->color == RB_RED;
}

/* Make new take old's place under old's parent (or as the root). */
static inline void rb_replace_child(struct rb_node *old, struct rb_node *new,
				    struct rb_node *parent, struct rb_root *root)
{
	if (parent == NULL)
		root->node = new;
	else if (parent->left == old)
		parent->left = new;
	else
		parent->right = new;
}

/* x's right child y becomes x's parent. */
static void rb_rotate_left(struct rb_node *x, struct rb_root *root)
{
	struct rb_node *y = x->right;
	struct rb_node *p = x->parent;

	x->right = y->left;
	if (y->left)
		y->left->parent = x;
	y->parent = p;
	rb_replace_child(x, y, p, root);
	y->left = x;
	x->parent = y;
}

/* x's left child y becomes x's parent. */
static void rb_rotate_right(struct rb_node *x, struct rb_root *root)
{
	struct rb_node *y = x->left;
	struct rb_node *p = x->parent;

	x->left = y->right;
	if (y->right)
		y->right->parent = x;
	y->parent = p;
	rb_replace_child(x, y, p, root);
	y->right = x;
	x->parent = y;
}

/* ---- insert ----------------------------------------------------------- */

/* node has just been linked as a red leaf; restore the red rule (a red
 * node has no red child) walking up, at most two rotations. */
void rb_insert_color(struct rb_node *node, struct rb_root *root)
{
	struct rb_node *parent;

	while ((parent = node->parent) != NULL && parent->color == RB_RED) {
		/* parent is red so it is not the root: gparent exists */
		struct rb_node *gparent = parent->parent;

		if (parent == gparent->left) {
			struct rb_node *uncle = gparent->right;
			if (rb_is_red(uncle)) {
				/* recolour and push the violation up two levels */
				parent->color = RB_BLACK;
				uncle->color = RB_BLACK;
				gparent->color = RB_RED;
				node = gparent;
				continue;
			}
			if (node == parent->right) {
				rb_rotate_left(parent, root);
				node = parent;
				parent = node->parent;
			}
			parent->color = RB_BLACK;
			gparent->color = RB_RED;
			rb_rotate_right(gparent, root);
		} else {
			struct rb_node *uncle = gparent->left;
			if (rb_is_red(uncle)) {
				parent->color = RB_BLACK;
				uncle->color = RB_BLACK;
				gparent->color = RB_RED;
				node = gparent;
				continue;
			}
			if (node == parent->left) {
				rb_rotate_right(parent, root);
				node = parent;
				parent = node->parent;
			}
			parent->color = RB_BLACK;
			gparent->color = RB_RED;
			rb_rotate_left(gparent, root);
		}
		break; /* after the rotation the subtree top is black */
	}
	root->node->color = RB_BLACK;
}

/* ---- erase ------------------------------------------------------------ */

/* x (possibly NULL) under parent carries an extra black; push it up or
 * absorb it with at most three rotations. */
static void rb_erase_fixup(struct rb_node *x, struct rb_node *parent, struct rb_root *root)
{
	while (x != root->node && rb_is_black(x)) {
		if (x == parent->left) {
			/* x's side is one black short, so the sibling exists */
			struct rb_node *w = parent->right;
			if (w->color == RB_RED) {
				w->color = RB_BLACK;
				parent->color = RB_RED;
				rb_rotate_left(parent, root);
				w = parent->right;
			}
			if (rb_is_black(w->left) && rb_is_black(w->right)) {
				w->color = RB_RED;
				x = parent;
				parent = x->parent;
				continue;
			}
			if (rb_is_black(w->right)) {
				w->left->color = RB_BLACK;
				w->color = RB_RED;
				rb_rotate_right(w, root);
				w = parent->right;
			}
			w->color = parent->color;
			parent->color = RB_BLACK;
			w->right->color = RB_BLACK;
			rb_rotate_left(parent, root);
		} else {
			struct rb_node *w = parent->left;
			if (w->color == RB_RED) {
				w->color = RB_BLACK;
				parent->color = RB_RED;
				rb_rotate_right(parent, root);
				w = parent->left;
			}
			if (rb_is_black(w->left) && rb_is_black(w->right)) {
				w->color = RB_RED;
				x = parent;
				parent = x->parent;
				continue;
			}
			if (rb_is_black(w->left)) {
				w->right->color = RB_BLACK;
				w->color = RB_RED;
				rb_rotate_left(w, root);
				w = parent->left;
			}
			w->color = parent->color;
			parent->color = RB_BLACK;
			w->left->color = RB_BLACK;
			rb_rotate_right(parent, root);
		}
		x = root->node;
		break;
	}
	if (x)
		x->color = RB_BLACK;
}

/* Unlink node from root and rebalance. node's own fields are left as they
 * were (as in the kernel); call rb_clear_node if RB_EMPTY_NODE must hold. */
void rb_erase(struct rb_node *node, struct rb_root *root)
{
	struct rb_node *x, *xparent;
	int removed_color;

	if (node->left == NULL || node->right == NULL) {
		/* at most one child: splice node out */
		x = node->left ? node->left : node->right;
		xparent = node->parent;
		removed_color = node->color;
		rb_replace_child(node, x, xparent, root);
		if (x)
			x->parent = xparent;
	} else {
		/* two children: the successor y (leftmost of the right subtree)
		 * takes node's place and colour; y's old slot loses a node */
		struct rb_node *y = node->right;
		while (y->left)
			y = y->left;
		removed_color = y->color;
		x = y->right;
		if (y->parent == node) {
			xparent = y;
		} else {
			xparent = y->parent;
			xparent->left = x;
			if (x)
				x->parent = xparent;
			y->right = node->right;
			y->right->parent = y;
		}
		y->parent = node->parent;
		rb_replace_child(node, y, node->parent, root);
		y->left = node->left;
		y->left->parent = y;
		y->color = node->color;
	}
	if (removed_color == RB_BLACK)
		rb_erase_fixup(x, xparent, root);
}

/* ---- traversal -------------------------------------------------------- */

struct rb_node *rb_first(const struct rb_root *root)
{
	struct rb_node *n = root->node;
	if (!n)
		return NULL;
	while (n->left)
		n = n->left;
	return n;
}

struct rb_node *rb_last(const struct rb_root *root)
{
	struct rb_node *n = root->node;
	if (!n)
		return NULL;
	while (n->right)
		n = n->right;
	return n;
}

/* In-order successor; NULL at the end or for a cleared node. */
struct rb_node *rb_next(const struct rb_node *node)
{
	const struct rb_node *parent;

	if (RB_EMPTY_NODE(node))
		return NULL;
	if (node->right) {
		node = node->right;
		while (node->left)
			node = node->left;
		return (struct rb_node *)node;
	}
	/* climb while we come from a right child */
	while ((parent = node->parent) != NULL && node == parent->right)
		node = parent;
	return (struct rb_node *)parent;
}

/* In-order predecessor; NULL at the start or for a cleared node. */
struct rb_node *rb_prev(const struct rb_node *node)
{
	const struct rb_node *parent;

	if (RB_EMPTY_NODE(node))
		return NULL;
	if (node->left) {
		node = node->left;
		while (node->right)
			node = node->right;
		return (struct rb_node *)node;
	}
	while ((parent = node->parent) != NULL && node == parent->left)
		node = parent;
	return (struct rb_node *)parent;
}

/* ---- cached leftmost -------------------------------------------------- */

void rb_insert_color_cached(struct rb_node *node, struct rb_root_cached *root, bool leftmost)
{
	if (leftmost)
		root->leftmost = node;
	rb_insert_color(node, &root->root);
}

void rb_erase_cached(struct rb_node *node, struct rb_root_cached *root)
{
	if (root->leftmost == node)
		root->leftmost = rb_next(node);
	rb_erase(node, &root->root);
}
