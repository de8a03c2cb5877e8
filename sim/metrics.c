/* Run metrics by task class (see metrics.h): per-operation counters and
 * latency distributions, btt-style block latencies (names after blktrace's
 * btt: Q2G, G2I, I2D, D2C, Q2C), wait causes in the manner of LatencyTOP
 * (count, total and maximum per cause) and named regions, and their
 * serialisation into the "classes", "waits" and "regions" parts of the
 * docs/architecture.md §5 result document.
 *
 * Memory is fixed per class except for the regions array, which grows with
 * the number of regions the workload declares (not with run length).
 */
#include "sim/metrics.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "sim/assert.h"
#include "sim/error.h"

const char *const sim_class_names[SIM_NCLASS] = { "fg", "bg" };
const char *const sim_op_names[SIM_NOP] = { "read", "write", "fsync", "fault" };
const char *const sim_btt_names[SIM_NBTT] = { "q2g_ns", "g2i_ns", "i2d_ns", "d2c_ns", "q2c_ns" };
const char *const sim_wait_names[SIM_NWAIT] = {
	"pagecache_lock", "read_io", "writeback", "get_request", "dirty_throttle", "direct_reclaim",
	"fsync_io",       "journal", "cpu",       "policy",      "sync_io",
	"checkpoint",     "fs_gc",   "congestion_wait", "isolation_throttle", "vm_writeout_throttle",
	"reclaim_throttle", "zone_lock", "tree_lock", "page_lock", "journal_locked",
	"journal_buffer", "journal_ordered", "journal_discard",
};

/* ---- life cycle ------------------------------------------------------- */

void sim_metrics_init(struct sim_metrics *m)
{
	memset(m, 0, sizeof(*m));
	for (int c = 0; c < SIM_NCLASS; c++) {
		m->cls[c].first_ns = INT64_MAX;
		m->cls[c].last_ns = INT64_MIN;
		for (int op = 0; op < SIM_NOP; op++)
			stats_dist_init(&m->cls[c].op[op].lat);
		for (int b = 0; b < SIM_NBTT; b++)
			stats_dist_init(&m->cls[c].btt[b]);
	}
}

void sim_metrics_free(struct sim_metrics *m)
{
	for (int c = 0; c < SIM_NCLASS; c++) {
		for (int op = 0; op < SIM_NOP; op++)
			stats_dist_free(&m->cls[c].op[op].lat);
		for (int b = 0; b < SIM_NBTT; b++)
			stats_dist_free(&m->cls[c].btt[b]);
	}
	for (uint32_t i = 0; i < m->nregions; i++) {
		free(m->regions[i].name);
		free(m->regions[i].task);
	}
	free(m->regions);
	memset(m, 0, sizeof(*m));
}

/* ---- recording -------------------------------------------------------- */

/* A histogram allocation failure cannot be returned from the void
 * recorders; keep the first one for the caller to check. */
static inline void metrics_note(struct sim_metrics *m, int rc)
{
	if (__builtin_expect(rc != 0, 0) && m->error == 0)
		m->error = rc;
}

void sim_metrics_op(struct sim_metrics *m, enum sim_class c, enum sim_op op, uint64_t bytes,
		    int64_t lat_ns)
{
	SIM_ASSERT((unsigned)c < SIM_NCLASS && (unsigned)op < SIM_NOP);
	struct sim_opstat *s = &m->cls[c].op[op];
	s->count++;
	s->bytes += bytes;
	metrics_note(m, stats_dist_add(&s->lat, lat_ns));
	if (m->clock) {
		struct sim_class_metrics *cm = &m->cls[c];
		int64_t now = *m->clock;
		if (now - lat_ns < cm->first_ns)
			cm->first_ns = now - lat_ns;
		if (now > cm->last_ns)
			cm->last_ns = now;
	}
}

void sim_metrics_wait(struct sim_metrics *m, enum sim_class c, enum sim_wait w, int64_t ns)
{
	SIM_ASSERT((unsigned)c < SIM_NCLASS && (unsigned)w < SIM_NWAIT);
	SIM_ASSERT(ns >= 0);
	if (ns < 0)
		ns = 0;
	struct sim_waitstat *s = &m->cls[c].wait[w];
	s->count++;
	s->total_ns += ns;
	if (ns > s->max_ns)
		s->max_ns = ns;
}

static char *metrics_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

int sim_metrics_region(struct sim_metrics *m, const char *name, const char *task, int64_t start_ns,
		       int64_t duration_ns, double device_j, double cpu_j)
{
	if (m->nregions == m->cap_regions) {
		uint32_t cap = m->cap_regions ? 2 * m->cap_regions : 8;
		struct sim_region *r = realloc(m->regions, sizeof(*r) * cap);
		if (!r)
			return SIM_E_NOMEM;
		m->regions = r;
		m->cap_regions = cap;
	}
	struct sim_region *r = &m->regions[m->nregions];
	r->name = metrics_strdup(name ? name : "");
	r->task = metrics_strdup(task ? task : "");
	if (!r->name || !r->task) {
		free(r->name);
		free(r->task);
		return SIM_E_NOMEM;
	}
	r->start_ns = start_ns;
	r->duration_ns = duration_ns;
	r->device_j = device_j;
	r->cpu_j = cpu_j;
	m->nregions++;
	return 0;
}

/* ---- JSON ------------------------------------------------------------- */

/* A JSON string for a name that may come from a trace (task comm) and so
 * need not be UTF-8: jansson rejects such strings, so non-ASCII bytes are
 * then replaced by '?'. */
static json_t *metrics_json_str(const char *s)
{
	json_t *j = json_string(s);
	if (j)
		return j;
	char *t = metrics_strdup(s);
	if (!t)
		return NULL;
	for (char *p = t; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	j = json_string(t);
	free(t);
	return j;
}

/* json_object_set_new and json_array_append_new take the reference even on
 * failure and fail on a NULL value, so errors just accumulate. */
int sim_metrics_fio_keys(struct json_t *o, uint64_t count, uint64_t bytes, int64_t runtime_ns)
{
	double s = runtime_ns > 0 ? (double)runtime_ns / 1e9 : 0;
	int err = 0;
	err |= json_object_set_new(o, "total_ios", json_integer((json_int_t)count));
	err |= json_object_set_new(o, "io_bytes", json_integer((json_int_t)bytes));
	err |= json_object_set_new(o, "io_kbytes", json_integer((json_int_t)(bytes >> 10)));
	err |= json_object_set_new(o, "runtime", json_integer((json_int_t)(runtime_ns / 1000000)));
	err |= json_object_set_new(o, "iops", json_real(s > 0 ? (double)count / s : 0));
	err |= json_object_set_new(o, "bw_bytes",
				   json_integer((json_int_t)(s > 0 ? (double)bytes / s : 0)));
	err |= json_object_set_new(o, "bw",
				   json_integer((json_int_t)(s > 0 ? (double)bytes / 1024 / s : 0)));
	return err;
}

/* lat_ns is the op's whole latency, from the call to its return. fio splits
 * it into submission (slat) and completion (clat) latency; the model issues
 * synchronously at the call, so slat is not modelled and clat_ns repeats
 * lat_ns, which is what fio reports for a synchronous engine up to slat. */
static json_t *metrics_opstat_json(const struct sim_opstat *s, int64_t runtime_ns)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	int err = 0;
	err |= json_object_set_new(o, "count", json_integer((json_int_t)s->count));
	err |= json_object_set_new(o, "bytes", json_integer((json_int_t)s->bytes));
	err |= json_object_set_new(o, "lat_ns", stats_dist_to_json(&s->lat));
	err |= json_object_set_new(o, "clat_ns", stats_dist_to_json(&s->lat));
	err |= sim_metrics_fio_keys(o, s->count, s->bytes, runtime_ns);
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* CLASS object of docs/architecture.md §5 for one class (also usable per task). */
struct json_t *sim_metrics_class_json(const struct sim_class_metrics *cm)
{
	json_t *o = json_object(), *btt = json_object();
	int err = !o || !btt;
	int64_t runtime = cm->last_ns > cm->first_ns ? cm->last_ns - cm->first_ns : 0;
	for (int op = 0; op < SIM_NOP && !err; op++)
		err |= json_object_set_new(o, sim_op_names[op],
					   metrics_opstat_json(&cm->op[op], runtime));
	if (!err)
		err |= json_object_set_new(o, "runtime_ns", json_integer(runtime));
	for (int b = 0; b < SIM_NBTT && !err; b++)
		err |= json_object_set_new(btt, sim_btt_names[b], stats_dist_to_json(&cm->btt[b]));
	if (!err) {
		err |= json_object_set_new(o, "btt", btt);
		btt = NULL;
	}
	if (err) {
		json_decref(btt);
		json_decref(o);
		return NULL;
	}
	return o;
}

struct json_t *sim_metrics_classes_json(const struct sim_metrics *m)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	for (int c = 0; c < SIM_NCLASS; c++) {
		if (json_object_set_new(o, sim_class_names[c], sim_metrics_class_json(&m->cls[c]))) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

struct json_t *sim_metrics_waits_json(const struct sim_metrics *m)
{
	json_t *a = json_array();
	if (!a)
		return NULL;
	for (int w = 0; w < SIM_NWAIT; w++) {
		for (int c = 0; c < SIM_NCLASS; c++) {
			const struct sim_waitstat *s = &m->cls[c].wait[w];
			if (s->count == 0)
				continue;
			json_t *e = json_object();
			int err = !e;
			if (e) {
				err |= json_object_set_new(e, "cause", json_string(sim_wait_names[w]));
				err |= json_object_set_new(e, "class", json_string(sim_class_names[c]));
				err |= json_object_set_new(e, "count", json_integer((json_int_t)s->count));
				err |= json_object_set_new(e, "total_ns", json_integer(s->total_ns));
				err |= json_object_set_new(e, "max_ns", json_integer(s->max_ns));
			}
			if (err) {
				json_decref(e);
				json_decref(a);
				return NULL;
			}
			if (json_array_append_new(a, e)) {
				json_decref(a);
				return NULL;
			}
		}
	}
	return a;
}

/* The region list, with each region's energy or without. */
static struct json_t *regions_json(const struct sim_metrics *m, bool energy)
{
	json_t *a = json_array();
	if (!a)
		return NULL;
	for (uint32_t i = 0; i < m->nregions; i++) {
		const struct sim_region *r = &m->regions[i];
		json_t *e = json_object();
		int err = !e;
		if (e) {
			err |= json_object_set_new(e, "name", metrics_json_str(r->name));
			err |= json_object_set_new(e, "task", metrics_json_str(r->task));
			err |= json_object_set_new(e, "start_ns", json_integer(r->start_ns));
			err |= json_object_set_new(e, "duration_ns", json_integer(r->duration_ns));
		}
		if (e && energy) {
			err |= json_object_set_new(e, "device_j", json_real(r->device_j));
			err |= json_object_set_new(e, "cpu_j", json_real(r->cpu_j));
			err |= json_object_set_new(e, "total_j", json_real(r->device_j + r->cpu_j));
		}
		if (err) {
			json_decref(e);
			json_decref(a);
			return NULL;
		}
		if (json_array_append_new(a, e)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

struct json_t *sim_metrics_regions_json(const struct sim_metrics *m)
{
	return regions_json(m, false);
}

struct json_t *sim_metrics_region_energy_json(const struct sim_metrics *m)
{
	return regions_json(m, true);
}
