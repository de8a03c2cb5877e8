/* A kernel build's job slot (`make -j4` on four cores, the workload of the
 * LKML October 2007 LatencyTOP report, docs/papers.md §5). Each compile
 * unit: make forks and execs the compiler driver, cc1 and as (CPU only:
 * fork_exec, an ASSUMPTION of 0.5-5 ms; the binaries are taken as cached
 * and their page faults are not modelled), opens and reads the .c file
 * whole (cpp reads a file in one read of its size), opens, reads and
 * closes headers_per_unit headers drawn uniformly from the tree's shared
 * pool, computes cpu_per_unit, creates the .o and writes it in
 * write_chunk_bytes writes (stdio's buffer), and closes it. Sources and
 * headers exist at the start (not cached); their sizes are exponential
 * around the means. Every number here is an ASSUMPTION with its range in
 * the parameter table: the thread gives no workload figures. Nothing is
 * fsynced (make and gcc do not).
 * Left out: the link steps, directory lookups, make's own reads of
 * Makefiles and .cmd dependency files, temporary files in /tmp.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "models/stack/stack.h"
#include "traces/workloads/kbuild.h"

const struct cfg_param kbuild_params[] = {
	{ "units", CFG_T_INT, offsetof(struct kbuild_p, units), "", "100", 1, 1e6, "scenario",
	  "compile units this job slot builds", NULL },
	{ "source_bytes", CFG_T_SIZE, offsetof(struct kbuild_p, source_bytes), "KiB", "16KiB", 0.5,
	  1e6, "ASSUMPTION (4-64 KiB): mean size of a kernel .c file", "mean .c size (exponential)",
	  NULL },
	{ "headers", CFG_T_INT, offsetof(struct kbuild_p, headers), "", "2000", 1, 1e6,
	  "ASSUMPTION (1000-5000): headers a 2.6.23 x86 build touches",
	  "header files in the tree's pool (shared by every slot)", NULL },
	{ "headers_per_unit", CFG_T_INT, offsetof(struct kbuild_p, headers_per_unit), "", "60", 0,
	  1e5, "ASSUMPTION (20-200): #include closure of one kernel .c file",
	  "headers one compile opens and reads", NULL },
	{ "header_bytes", CFG_T_SIZE, offsetof(struct kbuild_p, header_bytes), "KiB", "8KiB", 0.5,
	  1e6, "ASSUMPTION (2-16 KiB)", "mean header size (exponential)", NULL },
	{ "object_bytes", CFG_T_SIZE, offsetof(struct kbuild_p, object_bytes), "KiB", "24KiB", 0.5,
	  1e6, "ASSUMPTION (8-64 KiB): a .o of a 16 KiB .c", "mean .o size (exponential)", NULL },
	{ "write_chunk_bytes", CFG_T_SIZE, offsetof(struct kbuild_p, write_chunk_bytes), "KiB",
	  "4KiB", 0.5, 1e6, "glibc stdio BUFSIZ-sized writes of as (RECALL: st_blksize 4 KiB)",
	  "size of each write() of the .o", NULL },
	{ "cpu_per_unit", CFG_T_TIME, offsetof(struct kbuild_p, cpu_per_unit_ns), "ms", "400ms", 0,
	  1e7, "ASSUMPTION (100 ms-2 s): cc1 + as on a 2007 desktop core",
	  "compile CPU time of one unit", NULL },
	{ "fork_exec", CFG_T_TIME, offsetof(struct kbuild_p, fork_exec_ns), "ms", "2ms", 0, 1e6,
	  "ASSUMPTION (0.5-5 ms): fork + exec of gcc, cc1 and as, binaries cached",
	  "process-creation CPU time per unit", NULL },
	CFG_PARAM_END,
};

struct kbuild_unit {
	struct stack_file *src, *obj;
	uint64_t src_bytes, obj_bytes;
	uint32_t first_header; /* index into hdr_pick */
};

struct kbuild {
	struct kbuild_p p;
	struct kbuild_unit *units;
	struct stack_file **headers;  /* the tree's pool */
	uint32_t *hdr_pick;           /* units * headers_per_unit indices into headers */
	int64_t u;                    /* current unit */
	int step;
	int64_t h;                    /* header of the unit */
	uint64_t wpos;
};

static uint64_t kbuild_size(gsl_rng *rng, uint64_t mean)
{
	double b = gsl_ran_exponential(rng, (double)mean);
	uint64_t v = (uint64_t)b;
	return v < 512 ? 512 : v;
}

int kbuild_create(struct stack *s, const char *key, const struct kbuild_p *p, gsl_rng *rng,
		  struct kbuild **out, struct sim_error *err)
{
	char name[300];
	struct kbuild *k = calloc(1, sizeof(*k));
	if (!k)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	k->p = *p;
	k->units = calloc((size_t)p->units, sizeof(*k->units));
	k->headers = calloc((size_t)p->headers, sizeof(*k->headers));
	k->hdr_pick = calloc((size_t)(p->units * p->headers_per_unit) + 1, sizeof(*k->hdr_pick));
	if (!k->units || !k->headers || !k->hdr_pick) {
		kbuild_free(k);
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	}
	/* the pool's sizes come from a stream of their own, so every slot
	 * finds the same tree whichever slot names a header first */
	gsl_rng *hr = gsl_rng_alloc(gsl_rng_mt19937);
	if (!hr) {
		kbuild_free(k);
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	}
	gsl_rng_set(hr, 2007);
	for (int64_t i = 0; i < p->headers; i++) {
		snprintf(name, sizeof(name), "linux/include/h%05lld.h", (long long)i);
		uint64_t sz = kbuild_size(hr, p->header_bytes);
		k->headers[i] = stack_file_find(s, name);
		if (!k->headers[i])
			k->headers[i] = stack_file_get(s, name, sz, err);
		if (!k->headers[i]) {
			gsl_rng_free(hr);
			kbuild_free(k);
			return err->code;
		}
	}
	gsl_rng_free(hr);
	for (int64_t u = 0; u < p->units; u++) {
		struct kbuild_unit *ku = &k->units[u];
		ku->src_bytes = kbuild_size(rng, p->source_bytes);
		ku->obj_bytes = kbuild_size(rng, p->object_bytes);
		snprintf(name, sizeof(name), "%s/src/u%05lld.c", key, (long long)u);
		ku->src = stack_file_get(s, name, ku->src_bytes, err);
		snprintf(name, sizeof(name), "%s/obj/u%05lld.o", key, (long long)u);
		ku->obj = ku->src ? stack_file_get(s, name, 0, err) : NULL;
		if (!ku->obj) {
			kbuild_free(k);
			return err->code;
		}
		ku->first_header = (uint32_t)(u * p->headers_per_unit);
		for (int64_t h = 0; h < p->headers_per_unit; h++)
			k->hdr_pick[ku->first_header + h] =
				(uint32_t)gsl_rng_uniform_int(rng, (unsigned long)p->headers);
	}
	*out = k;
	return 0;
}

static void kb_op(struct stack_op *op, enum stack_op_kind kind, struct stack_file *f, uint64_t off,
		  uint64_t len)
{
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	op->file = f;
	op->off = off;
	op->len = len;
}

/* Steps of a unit, in order. */
enum { KB_FORK, KB_OPEN_SRC, KB_READ_SRC, KB_CLOSE_SRC, KB_HDR_OPEN, KB_HDR_READ, KB_HDR_CLOSE,
       KB_COMPILE, KB_CREATE_OBJ, KB_WRITE_OBJ, KB_CLOSE_OBJ };

int kbuild_next(struct kbuild *k, struct stack_op *op)
{
	for (;;) {
		if (k->u >= k->p.units)
			return 0;
		struct kbuild_unit *ku = &k->units[k->u];
		struct stack_file *hf = k->h < k->p.headers_per_unit
						? k->headers[k->hdr_pick[ku->first_header + k->h]]
						: NULL;
		switch (k->step) {
		case KB_FORK:
			k->step = KB_OPEN_SRC;
			if (!k->p.fork_exec_ns)
				continue;
			kb_op(op, STACK_OP_CPU, NULL, 0, 0);
			op->ns = k->p.fork_exec_ns;
			return 1;
		case KB_OPEN_SRC:
			k->step = KB_READ_SRC;
			kb_op(op, STACK_OP_OPEN, ku->src, 0, 0);
			return 1;
		case KB_READ_SRC:
			k->step = KB_CLOSE_SRC;
			kb_op(op, STACK_OP_READ, ku->src, 0, ku->src_bytes);
			return 1;
		case KB_CLOSE_SRC:
			k->step = KB_HDR_OPEN;
			k->h = 0;
			kb_op(op, STACK_OP_CLOSE, ku->src, 0, 0);
			return 1;
		case KB_HDR_OPEN:
			if (!hf) {
				k->step = KB_COMPILE;
				continue;
			}
			k->step = KB_HDR_READ;
			kb_op(op, STACK_OP_OPEN, hf, 0, 0);
			return 1;
		case KB_HDR_READ:
			k->step = KB_HDR_CLOSE;
			kb_op(op, STACK_OP_READ, hf, 0, stack_file_size(hf));
			return 1;
		case KB_HDR_CLOSE:
			k->step = KB_HDR_OPEN;
			k->h++;
			kb_op(op, STACK_OP_CLOSE, hf, 0, 0);
			return 1;
		case KB_COMPILE:
			k->step = KB_CREATE_OBJ;
			if (!k->p.cpu_per_unit_ns)
				continue;
			kb_op(op, STACK_OP_CPU, NULL, 0, 0);
			op->ns = k->p.cpu_per_unit_ns;
			return 1;
		case KB_CREATE_OBJ:
			k->step = KB_WRITE_OBJ;
			k->wpos = 0;
			kb_op(op, STACK_OP_CREATE, ku->obj, 0, 0);
			return 1;
		case KB_WRITE_OBJ: {
			if (k->wpos >= ku->obj_bytes) {
				k->step = KB_CLOSE_OBJ;
				continue;
			}
			uint64_t len = k->p.write_chunk_bytes;
			if (len > ku->obj_bytes - k->wpos)
				len = ku->obj_bytes - k->wpos;
			kb_op(op, STACK_OP_WRITE, ku->obj, k->wpos, len);
			k->wpos += len;
			return 1;
		}
		default:
			k->step = KB_FORK;
			k->u++;
			kb_op(op, STACK_OP_CLOSE, ku->obj, 0, 0);
			return 1;
		}
	}
}

void kbuild_free(struct kbuild *k)
{
	if (!k)
		return;
	free(k->units);
	free(k->headers);
	free(k->hdr_pick);
	free(k);
}
