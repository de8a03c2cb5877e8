/* UFS host controller queueing mode, SDB or MCQ (models/device/ufs_host.h).
 *
 * Sources (read, not copied):
 *  - drivers/ufs/core/ufs-mcq.c, Linux 6.6 and the android14-6.1 GKI tree
 *    as vendors ship it (Samsung Galaxy S24 Exynos kernel 6.1.93 carries
 *    the same file): ufshcd_mcq_decide_queue_depth = min(MAC, bQueueDepth);
 *    ufshcd_mcq_config_nr_queues: the module parameters rw_queues (0 =
 *    num_possible_cpus; else 2..nr_cpus), read_queues (0), poll_queues (1)
 *    are taken first, default queues get min(remaining, rw_queues, nr_cpus);
 *    more queues than MCQCap.MAXQ + 1 fails; ufshcd_mcq_init sets
 *    host_tagset = 1 (one tag set shared by every hardware queue).
 *  - drivers/ufs/core/ufshcd.c (6.6): is_mcq_supported() = the controller's
 *    MCQ capability and the use_mcq_mode parameter (default true);
 *    ufshcd_alloc_mcq sets nutrs and can_queue = nutrs - UFSHCD_NUM_RESERVED
 *    (1); a failure of it disables MCQ and the host goes on in SDB mode.
 *  - MAC: ufs-qcom.h and ufs-mediatek.c MAX_SUPP_MAC 64. MAXQ: the Tensor
 *    G5 host driver (ufs-google.h, Pixel 10) MAXQ 16. The Pixel 8/9 host
 *    (ufs-exynos.c of google-modules/soc/gs, zuma/zumapro) implements none
 *    of the MCQ variant ops (get_hba_mac, mcq_config_resource), so it runs
 *    SDB whatever the device.
 * The check that not every queue is a poll queue is later mainline; the
 * android14-6.1 version lacks it and would configure no default queue,
 * which cannot run, so it is kept here.
 */
#include "models/device/ufs_host.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

static const char *const ufs_host_modes[] = { "auto", "sdb", "mcq", NULL };

#define UH_OFF(f) offsetof(struct ufs_host_params, f)

static const struct cfg_param ufs_host_params_table[] = {
	{ "mode", CFG_T_ENUM, UH_OFF(mode), "", "auto", CFG_NO_RANGE,
	  "ufshcd.c is_mcq_supported(): MCQ when the controller supports it and use_mcq_mode "
	  "(default true); sdb = use_mcq_mode=0; mcq = require it",
	  "queueing mode: auto (the kernel's choice), sdb, mcq", ufs_host_modes },
	{ "mcq_supported", CFG_T_BOOL, UH_OFF(mcq_supported), "", "false", CFG_NO_RANGE,
	  "UFSHCI 4.0 CAP.MCQS plus the vendor MCQ ops; UFSHCI 2.x/3.x controllers have no MCQ",
	  "the host controller (and its driver) can run MCQ", NULL },
	{ "maxq", CFG_T_INT, UH_OFF(maxq), "", "16", 1, 256,
	  "Tensor G5 host driver ufs-google.h MAXQ 16 (MCQCap.MAXQ is 8 bits, 0-based)",
	  "hardware queues the controller offers (MCQCap.MAXQ + 1)", NULL },
	{ "mac", CFG_T_INT, UH_OFF(mac), "", "64", 1, 512,
	  "ufs-qcom.h / ufs-mediatek.c MAX_SUPP_MAC 64",
	  "max active commands of the controller (get_hba_mac)", NULL },
	{ "rw_queues", CFG_T_INT, UH_OFF(rw_queues), "", "0", 0, 256,
	  "ufs-mcq.c module parameter rw_queues: 0 = num_possible_cpus(); else 2..nr_cpus",
	  "interrupt-driven read/write (default type) queues", NULL },
	{ "read_queues", CFG_T_INT, UH_OFF(read_queues), "", "0", 0, 256,
	  "ufs-mcq.c module parameter read_queues, default 0",
	  "queues for reads only (HCTX_TYPE_READ)", NULL },
	{ "poll_queues", CFG_T_INT, UH_OFF(poll_queues), "", "1", 0, 256,
	  "ufs-mcq.c module parameter poll_queues, default 1 (Samsung's 6.1 tree sets 0)",
	  "polled queues (HCTX_TYPE_POLL, REQ_POLLED I/O only)", NULL },
	CFG_PARAM_END,
};

int ufs_host_create(struct cfg_node *node, struct ufs_host **out, struct sim_error *err)
{
	struct ufs_host *h;
	int rc;

	*out = NULL;
	if (!node)
		return 0;
	if (node->kind != CFG_MAP)
		return cfg_errorf(err, node, "host must be a map (mode, mcq_supported, maxq, mac, "
				  "rw_queues, read_queues, poll_queues)");
	h = calloc(1, sizeof(*h));
	if (!h)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory creating the UFS host");
	node->used = true;
	h->node = node;
	rc = cfg_apply(ufs_host_params_table, node, &h->p, err);
	if (rc) {
		free(h);
		return rc;
	}
	if (h->p.mode == UFS_HOST_MCQ && !h->p.mcq_supported) {
		struct cfg_node *m = cfg_get(node, "mode");

		free(h);
		return cfg_errorf(err, m ? m : node, "mode mcq needs a controller with MCQ "
				  "(mcq_supported: true); ufshcd would run SDB");
	}
	*out = h;
	return 0;
}

void ufs_host_destroy(struct ufs_host *h)
{
	free(h);
}

static uint32_t min3u(uint32_t a, uint32_t b, uint32_t c)
{
	uint32_t m = a < b ? a : b;

	return m < c ? m : c;
}

/* ufshcd_mcq_config_nr_queues(): NULL, or why it fails. */
static const char *ufs_host_nr_queues(struct ufs_host *h, uint32_t nr_cpus)
{
	const struct ufs_host_params *p = &h->p;
	uint32_t maxq = (uint32_t)p->maxq, rem = maxq, rw = (uint32_t)p->rw_queues;
	uint32_t tot = (uint32_t)(p->read_queues + p->poll_queues + p->rw_queues);

	if (maxq < tot)
		return "more queues asked for than the controller has (maxq)";
	if (maxq == (uint32_t)p->poll_queues)
		return "at least one queue must not be a poll queue";
	h->nr_queues[UFS_HCTX_DEFAULT] = h->nr_queues[UFS_HCTX_READ] = 0;
	h->nr_queues[UFS_HCTX_POLL] = 0;
	if (rw) {
		h->nr_queues[UFS_HCTX_DEFAULT] = rw;
		rem -= rw;
	} else {
		rw = nr_cpus;
	}
	if (p->poll_queues) {
		h->nr_queues[UFS_HCTX_POLL] = (uint32_t)p->poll_queues;
		rem -= (uint32_t)p->poll_queues;
	}
	if (p->read_queues) {
		h->nr_queues[UFS_HCTX_READ] = (uint32_t)p->read_queues;
		rem -= (uint32_t)p->read_queues;
	}
	if (!h->nr_queues[UFS_HCTX_DEFAULT])
		h->nr_queues[UFS_HCTX_DEFAULT] = min3u(rem, rw, nr_cpus);
	h->nr_hw_queues = 0;
	for (int t = 0; t < UFS_HCTX_TYPES; t++)
		h->nr_hw_queues += h->nr_queues[t];
	return NULL;
}

/* An input error at the host map's key (or the map itself). */
static int ufs_host_errorf(const struct ufs_host *h, struct sim_error *err, const char *key,
			   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int ufs_host_errorf(const struct ufs_host *h, struct sim_error *err, const char *key,
			   const char *fmt, ...)
{
	struct cfg_node *n = cfg_get(h->node, key);
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n || h->node)
		return cfg_errorf(err, n ? n : h->node, "%s", msg);
	return sim_errorf(err, SIM_E_INPUT, "device.host.%s: %s", key, msg);
}

int ufs_host_config(struct ufs_host *h, uint32_t bqueuedepth, uint32_t nr_cpus,
		    struct sim_error *err)
{
	const struct ufs_host_params *p = &h->p;
	const char *why = NULL;

	h->mcq = false;
	h->why = NULL;
	h->nr_hw_queues = 1;
	h->nr_queues[UFS_HCTX_DEFAULT] = 1;
	h->nr_queues[UFS_HCTX_READ] = h->nr_queues[UFS_HCTX_POLL] = 0;
	if (!p->mcq_supported || p->mode == UFS_HOST_SDB)
		return 0;
	/* rw_queue_count_set(): 2..num_possible_cpus() */
	if (p->rw_queues && (p->rw_queues < 2 || p->rw_queues > nr_cpus))
		return ufs_host_errorf(h, err, "rw_queues", "%lld is out of range (0 = one per CPU, "
				       "or 2..%u)", (long long)p->rw_queues, nr_cpus);
	if (p->read_queues > nr_cpus)
		return ufs_host_errorf(h, err, "read_queues", "may not exceed the CPU count (%u)",
				       nr_cpus);
	if (p->poll_queues > nr_cpus)
		return ufs_host_errorf(h, err, "poll_queues", "may not exceed the CPU count (%u)",
				       nr_cpus);
	why = ufs_host_nr_queues(h, nr_cpus);
	if (!why && bqueuedepth == 0)
		why = "the device reports no bQueueDepth (no shared queueing)";
	if (why) {
		h->nr_hw_queues = 1;
		h->nr_queues[UFS_HCTX_DEFAULT] = 1;
		h->nr_queues[UFS_HCTX_READ] = h->nr_queues[UFS_HCTX_POLL] = 0;
		if (p->mode == UFS_HOST_MCQ)
			return ufs_host_errorf(h, err, "mode", "MCQ cannot be configured: %s", why);
		h->why = why;
		return 0;
	}
	h->mcq = true;
	h->nutrs = (uint32_t)p->mac < bqueuedepth ? (uint32_t)p->mac : bqueuedepth;
	h->can_queue = h->nutrs > UFS_HOST_NUM_RESERVED ? h->nutrs - UFS_HOST_NUM_RESERVED : 1;
	return 0;
}

struct json_t *ufs_host_to_json(const struct ufs_host *h)
{
	json_t *o = json_object(), *q = json_object();

	json_object_set_new(o, "mode", json_string(h->mcq ? "mcq" : "sdb"));
	if (h->why)
		json_object_set_new(o, "mcq_disabled", json_string(h->why));
	json_object_set_new(o, "params", cfg_params_to_json(ufs_host_params_table, &h->p));
	json_object_set_new(q, "default", json_integer(h->nr_queues[UFS_HCTX_DEFAULT]));
	json_object_set_new(q, "read", json_integer(h->nr_queues[UFS_HCTX_READ]));
	json_object_set_new(q, "poll", json_integer(h->nr_queues[UFS_HCTX_POLL]));
	json_object_set_new(o, "queues", q);
	if (h->mcq) {
		json_object_set_new(o, "nutrs", json_integer(h->nutrs));
		json_object_set_new(o, "can_queue", json_integer(h->can_queue));
	}
	return o;
}
