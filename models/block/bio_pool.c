/* The bio pool (models/block/block.h): the allocation side of bios, as
 * bio_alloc_bioset in Linux block/bio.c, for the objects the upper stack
 * wraps around a struct bio (struct stack_bio). Slabs grow on demand and are
 * kept until the pool is destroyed; the last freed object is reused first.
 */
#include <stdlib.h>
#include <string.h>

#include "models/block/block.h"

#define LINK(p, o) (*(void **)((char *)(o) + (p)->link_off))

void bio_pool_init(struct bio_pool *p, size_t size, size_t link_off, uint32_t per_slab)
{
	memset(p, 0, sizeof(*p));
	p->size = size;
	p->link_off = link_off;
	p->per_slab = per_slab;
}

void *bio_pool_alloc(struct bio_pool *p)
{
	if (!p->free) {
		void **slabs = realloc(p->slabs, (p->nslabs + 1) * sizeof(*slabs));
		if (!slabs)
			return NULL;
		p->slabs = slabs;
		char *slab = calloc(p->per_slab, p->size);
		if (!slab)
			return NULL;
		p->slabs[p->nslabs++] = slab;
		for (uint32_t i = 0; i < p->per_slab; i++) {
			void *o = slab + (size_t)i * p->size;
			LINK(p, o) = p->free;
			p->free = o;
		}
	}
	void *o = p->free;
	p->free = LINK(p, o);
	memset(o, 0, p->size);
	p->live++;
	return o;
}

void bio_pool_free(struct bio_pool *p, void *obj)
{
	LINK(p, obj) = p->free;
	p->free = obj;
	p->live--;
}

void bio_pool_destroy(struct bio_pool *p)
{
	for (uint32_t i = 0; i < p->nslabs; i++)
		free(p->slabs[i]);
	free(p->slabs);
	p->slabs = NULL;
	p->nslabs = 0;
	p->free = NULL;
}
