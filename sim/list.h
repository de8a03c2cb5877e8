/* Intrusive doubly linked lists in the style of the kernel's list_head
 * (include/linux/list.h): the node lives inside its owner and is reached
 * with container_of, so linking allocates nothing.
 */
#ifndef SIM_LIST_H
#define SIM_LIST_H

#include <stdbool.h>
#include <stddef.h>

#define container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name) { &(name), &(name) }

static inline void list_init(struct list_head *h) { h->next = h->prev = h; }
static inline bool list_empty(const struct list_head *h) { return h->next == h; }

static inline void list_insert_between(struct list_head *n, struct list_head *prev,
				       struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}

/* Insert n right after h (push front when h is the head). */
static inline void list_add(struct list_head *n, struct list_head *h)
{
	list_insert_between(n, h, h->next);
}

/* Insert n right before h (push back when h is the head). */
static inline void list_add_tail(struct list_head *n, struct list_head *h)
{
	list_insert_between(n, h->prev, h);
}

/* Unlink n and leave it self-linked, so list_empty(n) says "not on a list". */
static inline void list_del_init(struct list_head *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	list_init(n);
}

static inline void list_move_tail(struct list_head *n, struct list_head *h)
{
	list_del_init(n);
	list_add_tail(n, h);
}

static inline void list_move(struct list_head *n, struct list_head *h)
{
	list_del_init(n);
	list_add(n, h);
}

/* Move every node of from to the tail of to; from becomes empty. */
static inline void list_splice_tail_init(struct list_head *from, struct list_head *to)
{
	if (list_empty(from))
		return;
	struct list_head *first = from->next, *last = from->prev;
	first->prev = to->prev;
	to->prev->next = first;
	last->next = to;
	to->prev = last;
	list_init(from);
}

#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(h, type, member) list_entry((h)->next, type, member)
#define list_last_entry(h, type, member) list_entry((h)->prev, type, member)

#define list_for_each(pos, h) for (pos = (h)->next; pos != (h); pos = pos->next)
#define list_for_each_safe(pos, tmp, h) \
	for (pos = (h)->next, tmp = pos->next; pos != (h); pos = tmp, tmp = pos->next)

#endif
