/* A virtio-blk disk of a KVM guest whose back end is a host I/O stack: the
 * guest's block layer hands a request to this device; the guest kicks the
 * virtqueue (an MMIO write that exits to KVM, whose ioeventfd wakes the
 * VMM's I/O thread: QEMU's virtio-blk, hw/block/virtio-blk.c, or crosvm's
 * devices/src/virtio/block), the VMM pops the descriptor chain and does the
 * I/O on a disk image file through a second, nested instance of the upper
 * stack (models/stack/stack.c stack_create_nested: the host's page cache,
 * file system, block queue and device, and the host's own completion path);
 * cache=writeback reads and writes the image through the host page cache,
 * cache=none opens it O_DIRECT (QEMU's -drive cache= modes: writeback is
 * the default, none = O_DIRECT). The VMM pushes the used element and
 * signals the guest (irqfd); the guest's completion path
 * (models/completion/) then takes the interrupt, whose injection and the
 * halted vCPU's wake-up this device adds through irq_delivery_ns, or polls
 * the used ring (Linux 5.19+ virtio_blk poll_queues) and pays neither.
 *
 * Host I/O runs on a pool of host worker tasks, as QEMU's aio=threads
 * thread pool (util/thread-pool.c, 64 threads at most) and crosvm's
 * blocking pool: each takes the next popped request, so requests overlap
 * up to the pool's size. Guest flushes (REQ_FLUSH/FUA) become fdatasync of
 * the image; discards are dropped (QEMU's default discard=ignore).
 *
 * Left out: virtqueue notification suppression while the VMM polls
 * (EVENT_IDX, QEMU's IOThread poll-max-ns), interrupt coalescing, several
 * virtqueues, vhost-user back ends, a vCPU that has other work when its task
 * sleeps (the interrupt path always finds it halted), the host CPU of the
 * exits (charged to the guest's CPU model instead), guest memory pinning.
 * Costs and their sources: the parameter table below; docs/virt.md.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "models/block/block.h"
#include "models/block/elevator.h"
#include "models/completion/completion.h"
#include "models/device/device.h"
#include "models/stack/stack.h"
#include "models/virt/virtio_blk.h"
#include "sim/sim.h"

/* -------------------------------------------------------------- tunables */

enum vblk_cache { VBLK_WRITEBACK = 0, VBLK_NONE };
static const char *const vblk_cache_names[] = { "writeback", "none", NULL };

struct vblk_worker;

struct vblk {
	/* tunables */
	int cache;
	int64_t notify_exit_ns;  /* guest kick: VM exit, ioeventfd, VM entry */
	int64_t backend_wake_ns; /* ioeventfd to the VMM's I/O thread running */
	int64_t vq_pop_ns;       /* host CPU: pop and map the descriptor chain */
	int64_t vq_push_ns;      /* host CPU: used element, irqfd signal */
	int64_t inject_ns;       /* irqfd to the vector pending in the guest */
	int64_t vcpu_wake_ns;    /* halted vCPU (HLT/WFI exit) back in guest mode */
	int64_t eoi_exit_ns;     /* the guest's EOI traps (no APICv / vGIC EOI trap) */
	int64_t bounce_ns_per_kib; /* pVM: copy through the swiotlb bounce buffer */
	int64_t queue_depth;
	int64_t workers;
	uint64_t image_bytes;
	double host_cache_warm;

	/* the host */
	struct device *dev;      /* this (the guest's) device */
	struct device *hdev;
	struct blk_queue *hq;
	struct stack *hs;
	struct stack_file *img;
	struct vblk_worker *w;
	uint32_t nw;
	struct list_head popped; /* kicked, waiting for a worker (rq->dev_node) */

	struct virtio_blk_stats st;
};

struct vblk_worker {
	struct vblk *vb;
	struct stack_task *t;
	struct io_request *cur;
	int phase;               /* the next step of cur (enum vblk_phase) */
	bool idle;               /* its source returned -1 and no kick since */
	int64_t t_start;
};

enum vblk_phase { PH_POP = 0, PH_DATA, PH_SYNC, PH_PUSH, PH_DONE };

#define VB_OFF(f) offsetof(struct vblk, f)

/* Anchors. SplitX (Landau, Ben-Yehuda, Gordon, WIOV'11), Table 1 on a
 * Xeon X5570 2.93 GHz, KVM 2.6.34: the direct cost of one exit (world
 * switch out and back) is 2,000 cycles, 0.68 us, and handling plus cache
 * pollution can be an order of magnitude more [SRC: the paper's text as
 * stored]. KVM's halt polling keeps a halted vCPU's host thread spinning
 * up to halt_poll_ns, 200 us on x86 and 500 us on arm64 (KVM_HALT_POLL_NS_
 * DEFAULT, arch/x86 and arch/arm64 include/asm/kvm_host.h) [SRC], longer
 * than one host-cache read, so the vCPU is woken from the poll loop, not
 * rescheduled. Everything else: [RECALL] or assumed, with ranges in
 * docs/virt.md and the platforms' assumptions:. The defaults are the
 * desktop's (configs/platforms/desktop-kvm.yaml); the phone's pKVM costs
 * are in configs/platforms/pixel-pkvm.yaml. */
static const struct cfg_param vblk_params[] = {
	{ "cache", CFG_T_ENUM, VB_OFF(cache), "", "writeback", CFG_NO_RANGE,
	  "QEMU -drive cache= (QEMU manual, block drivers: writeback default, none = "
	  "O_DIRECT); crosvm opens the image buffered unless --block o_direct=true",
	  "host access to the image: writeback (through the host page cache) or none (O_DIRECT)",
	  vblk_cache_names },
	{ "notify_exit_us", CFG_T_TIME, VB_OFF(notify_exit_ns), "us", "1.5", 0, 1e4,
	  "SplitX WIOV'11: 0.68 us direct exit cost, up to ~10x with handling; assumed 1.5 "
	  "(range 0.7-7) for an ioeventfd exit",
	  "guest virtqueue kick: VM exit, KVM ioeventfd, VM entry (guest vCPU time)", NULL },
	{ "backend_wake_us", CFG_T_TIME, VB_OFF(backend_wake_ns), "us", "2", 0, 1e5,
	  "[RECALL] host try_to_wake_up of the I/O thread on an idle core, as completion.wakeup_us "
	  "plus the eventfd read; range 0 (IOThread polling) - 10",
	  "ioeventfd signal to the VMM's I/O thread popping the queue", NULL },
	{ "vq_pop_us", CFG_T_TIME, VB_OFF(vq_pop_ns), "us", "1", 0, 1e4,
	  "[RECALL] virtqueue_pop + request set-up in QEMU virtio-blk; assumed, range 0.5-3",
	  "host CPU to pop one descriptor chain and build the request", NULL },
	{ "vq_push_us", CFG_T_TIME, VB_OFF(vq_push_ns), "us", "0.5", 0, 1e4,
	  "[RECALL] virtqueue_push + virtio_notify (irqfd write); assumed, range 0.2-2",
	  "host CPU to push the used element and signal the guest", NULL },
	{ "inject_us", CFG_T_TIME, VB_OFF(inject_ns), "us", "0.5", 0, 1e4,
	  "[RECALL] irqfd -> kvm_set_msi -> posted interrupt (APICv); assumed, range 0.2-2",
	  "interrupt injection latency (interrupt path only)", NULL },
	{ "vcpu_wake_us", CFG_T_TIME, VB_OFF(vcpu_wake_ns), "us", "2", 0, 1e5,
	  "halt polling catches the wake-up (KVM_HALT_POLL_NS_DEFAULT 200 us x86 [SRC]): HLT exit + "
	  "poll + entry, assumed 2 (range 1-5); without halt polling a host schedule and C-state "
	  "exit, 10-50 [RECALL]",
	  "halted vCPU back in guest mode (interrupt and guest-timer wake-ups)", NULL },
	{ "eoi_exit_us", CFG_T_TIME, VB_OFF(eoi_exit_ns), "us", "0", 0, 1e4,
	  "APICv virtualises EOI (no exit) [RECALL]; without it one more exit (see notify_exit_us)",
	  "exit taken by the guest's end-of-interrupt write (interrupt path only)", NULL },
	{ "bounce_ns_per_kib", CFG_T_TIME, VB_OFF(bounce_ns_per_kib), "ns", "0", 0, 1e6,
	  "0: a normal VM shares its memory with the VMM; a protected VM (pKVM) bounces virtio "
	  "buffers through a shared swiotlb pool [RECALL]",
	  "guest CPU per KiB copied through the bounce buffer (reads after, writes before)", NULL },
	{ "queue_depth", CFG_T_INT, VB_OFF(queue_depth), "", "256", 1, 65536,
	  "[RECALL] QEMU virtio-blk queue-size 256 (since 5.0); the guest's tag set is the ring",
	  "requests the guest may have outstanding (virtqueue size)", NULL },
	{ "workers", CFG_T_INT, VB_OFF(workers), "", "64", 1, 1024,
	  "[RECALL] QEMU util/thread-pool.c max_threads 64 (aio=threads)",
	  "host worker threads doing the image I/O (requests in flight on the host)", NULL },
	{ "image_bytes", CFG_T_SIZE, VB_OFF(image_bytes), "GiB", "8GiB", 0.001, 1e6,
	  "scenario: a raw image holding the guest file system (configs/platforms/desktop-kvm.yaml)",
	  "size of the disk image file on the host (guest capacity)", NULL },
	{ "host_cache_warm", CFG_T_DOUBLE, VB_OFF(host_cache_warm), "", "0", 0, 1,
	  "scenario: HotStorage'24 reads 'from the host cache' (1)",
	  "fraction of the image in the host page cache at t = 0 (from its start)", NULL },
	CFG_PARAM_END,
};

/* --------------------------------------------------------------- helpers */

static void vblk_charge_guest(struct vblk *vb, int64_t ns)
{
	struct sim *sim = vb->dev->sim;
	if (ns > 0 && sim->cpu_ops)
		sim->cpu_ops->charge(sim->cpu_ctx, ns);
}

static int64_t vblk_bounce_ns(const struct vblk *vb, const struct io_request *rq)
{
	return vb->bounce_ns_per_kib * (int64_t)(rq_bytes(rq) >> 10);
}

static void vblk_done(struct sim *sim, struct sim_event *ev)
{
	(void)sim;
	struct io_request *rq = container_of(ev, struct io_request, dev_event);
	struct device *dev = rq->dev_priv;
	device_complete(dev, rq);
}

/* The worker finished rq's last host step: the used element is pushed. */
static void vblk_finish(struct vblk_worker *w)
{
	struct vblk *vb = w->vb;
	struct io_request *rq = w->cur;
	int64_t now = sim_now(vb->dev->sim);
	vb->st.host_ns += now - w->t_start;
	w->cur = NULL;
	int64_t bounce = req_is_write(rq->flags) ? 0 : vblk_bounce_ns(vb, rq);
	vblk_charge_guest(vb, bounce);
	sim_event_init(&rq->dev_event, vblk_done);
	sim_at(vb->dev->sim, &rq->dev_event, now + bounce);
}

/* Byte offset of rq in the image; a guest sector past the image wraps
 * (counted), so a too-small image shows in the result, not as a crash. */
static uint64_t vblk_offset(struct vblk *vb, const struct io_request *rq)
{
	uint64_t off = rq->sector << SECTOR_SHIFT, len = rq_bytes(rq);
	if (off + len > vb->image_bytes) {
		vb->st.wrapped++;
		off = (off % (vb->image_bytes - len)) & ~(uint64_t)(SECTOR_SIZE - 1);
	}
	return off;
}

/* The worker's op source: called when its previous op has completed. */
static int vblk_worker_next(struct stack_task *t, struct stack_op *op, void *ctx)
{
	(void)t;
	struct vblk_worker *w = ctx;
	struct vblk *vb = w->vb;
	for (;;) {
		if (!w->cur) {
			if (list_empty(&vb->popped)) {
				w->idle = true;
				return -1;
			}
			w->cur = list_first_entry(&vb->popped, struct io_request, dev_node);
			list_del_init(&w->cur->dev_node);
			w->phase = PH_POP;
			w->t_start = sim_now(vb->dev->sim);
		}
		struct io_request *rq = w->cur;
		memset(op, 0, sizeof(*op));
		switch (w->phase++) {
		case PH_POP:
			if (vb->vq_pop_ns <= 0)
				continue;
			op->kind = STACK_OP_CPU;
			op->ns = vb->vq_pop_ns;
			return 1;
		case PH_DATA:
			if (rq->nr_sectors == 0)
				continue;
			if (rq->flags & REQ_DISCARD) {
				vb->st.discards++;
				continue;
			}
			op->kind = req_is_write(rq->flags) ? STACK_OP_WRITE : STACK_OP_READ;
			op->file = vb->img;
			op->off = vblk_offset(vb, rq);
			op->len = rq_bytes(rq);
			op->flags = vb->cache == VBLK_NONE ? STACK_OPF_DIRECT : 0;
			vb->st.host_ops++;
			return 1;
		case PH_SYNC:
			if (!(rq->flags & (REQ_FLUSH | REQ_FUA)))
				continue;
			op->kind = STACK_OP_FDATASYNC;
			op->file = vb->img;
			vb->st.flushes++;
			return 1;
		case PH_PUSH:
			if (vb->vq_push_ns <= 0)
				continue;
			op->kind = STACK_OP_CPU;
			op->ns = vb->vq_push_ns;
			return 1;
		default:
			vblk_finish(w);
			continue;
		}
	}
}

/* The VMM's I/O thread has the kick: the request is popped for a worker. */
static void vblk_kicked(struct sim *sim, struct sim_event *ev)
{
	(void)sim;
	struct io_request *rq = container_of(ev, struct io_request, dev_event);
	struct device *dev = rq->dev_priv;
	struct vblk *vb = dev->priv;
	list_add_tail(&rq->dev_node, &vb->popped);
	for (uint32_t i = 0; i < vb->nw; i++) {
		if (vb->w[i].idle) {
			vb->w[i].idle = false;
			stack_task_kick(vb->w[i].t);
			return;
		}
	}
	/* every worker busy: the first to finish takes it */
}

/* ----------------------------------------------------------------- hooks */

static void vblk_submit(struct device *dev, struct io_request *rq)
{
	struct vblk *vb = dev->priv;
	int64_t bounce = req_is_write(rq->flags) ? vblk_bounce_ns(vb, rq) : 0;
	vb->st.requests++;
	vb->st.exits++;
	vb->st.front_ns += vb->notify_exit_ns + vb->backend_wake_ns + bounce;
	vblk_charge_guest(vb, vb->notify_exit_ns + bounce);
	rq->dev_priv = dev;
	sim_event_init(&rq->dev_event, vblk_kicked);
	sim_after(dev->sim, &rq->dev_event, bounce + vb->notify_exit_ns + vb->backend_wake_ns);
}

static int64_t vblk_irq_delivery(struct device *dev, bool timer)
{
	struct vblk *vb = dev->priv;
	if (timer) {
		vb->st.timer_wakes++;
		return vb->vcpu_wake_ns;
	}
	vb->st.injections++;
	if (vb->eoi_exit_ns > 0)
		vb->st.exits++;
	return vb->inject_ns + vb->vcpu_wake_ns + vb->eoi_exit_ns;
}

static int vblk_host_create(struct device *dev, struct cfg_node *node, struct sim_error *err)
{
	struct vblk *vb = dev->priv;
	struct sim *sim = dev->sim;
	struct cfg_node *hn = cfg_get(node, "host_stack");
	if (!hn || hn->kind != CFG_MAP)
		return cfg_errorf(err, hn ? hn : node,
				  "virtio-blk needs `host_stack:`, a map of the host's sections "
				  "(device, block, scheduler, completion, memory, ...)");
	cfg_mark_used(hn, false);
	struct cfg_node *hd = cfg_get(hn, "device");
	if (!hd || hd->kind != CFG_MAP)
		return cfg_errorf(err, hd ? hd : hn, "host_stack.device: expected a device map "
				  "(e.g. {include: ../devices/nvme.yaml})");
	cfg_mark_used(hd, false);
	int rc = device_create(sim, hd, &vb->hdev, err);
	if (rc)
		return rc;
	struct completion *cpl;
	rc = completion_attach(sim, vb->hdev, cfg_get(hn, "completion"), &cpl, err);
	if (rc)
		return rc;
	const char *sched = NULL;
	struct cfg_node *sn = cfg_get(hn, "scheduler"), *ssec = NULL;
	if (sn) {
		sched = cfg_get_str(hn, "scheduler");
		if (!sched || !elevator_find(sched))
			return cfg_errorf(err, sn, "unknown scheduler (see `mobisim list schedulers`)");
		if ((ssec = cfg_get(hn, sched)))
			cfg_mark_used(ssec, false);
	}
	struct cfg_node *bn = cfg_get(hn, "block");
	if (bn)
		cfg_mark_used(bn, false);
	rc = blk_queue_create(sim, vb->hdev, bn, sched, ssec, &vb->hq, err);
	if (rc)
		return rc;
	blk_queue_set_nested(vb->hq);
	rc = stack_create_nested(sim, vb->hq, hn, &vb->hs, err);
	if (rc)
		return rc;
	vb->img = stack_file_get(vb->hs, "disk.img", vb->image_bytes, err);
	if (!vb->img)
		return err->code ? err->code : SIM_E_NOMEM;
	if (vb->host_cache_warm > 0) {
		uint64_t np = (uint64_t)(vb->host_cache_warm *
					 (double)(vb->image_bytes >> STACK_PAGE_SHIFT) + 0.5);
		rc = stack_file_prefill(vb->hs, vb->img, np, 0, err);
		if (rc)
			return rc;
	}
	vb->nw = (uint32_t)vb->workers;
	vb->w = calloc(vb->nw, sizeof(*vb->w));
	if (!vb->w)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	for (uint32_t i = 0; i < vb->nw; i++) {
		struct vblk_worker *w = &vb->w[i];
		w->vb = vb;
		struct stack_op_source src = { .next = vblk_worker_next, .ctx = w };
		struct stack_task_attr a = { .name = "vmm-blk-worker" };
		w->t = stack_task_create(vb->hs, &a, &src, err);
		if (!w->t)
			return err->code ? err->code : SIM_E_NOMEM;
		stack_task_start(w->t, 0);
	}
	return 0;
}

static void vblk_destroy(struct device *dev)
{
	struct vblk *vb = dev->priv;
	if (vb->hs)
		stack_destroy(vb->hs);
	if (vb->hq)
		blk_queue_destroy(vb->hq);
	if (vb->hdev)
		device_destroy(vb->hdev);
	free(vb->w);
	vb->hs = NULL;
	vb->hq = NULL;
	vb->hdev = NULL;
	vb->w = NULL;
}

static int vblk_init(struct device *dev, struct cfg_node *node, struct sim_error *err)
{
	struct vblk *vb = dev->priv;
	vb->dev = dev;
	list_init(&vb->popped);
	dev->queue_depth = (uint32_t)vb->queue_depth;
	dev->capacity_bytes = vb->image_bytes;
	int rc = vblk_host_create(dev, node, err);
	if (rc)
		vblk_destroy(dev); /* the core frees priv without calling destroy */
	return rc;
}

static void vblk_stats_json(const struct device *dev, json_t *obj)
{
	const struct vblk *vb = dev->priv;
	const struct virtio_blk_stats *st = &vb->st;
	json_t *v = json_object();
	json_object_set_new(v, "requests", json_integer((json_int_t)st->requests));
	json_object_set_new(v, "host_ops", json_integer((json_int_t)st->host_ops));
	json_object_set_new(v, "flushes", json_integer((json_int_t)st->flushes));
	json_object_set_new(v, "discards", json_integer((json_int_t)st->discards));
	json_object_set_new(v, "exits", json_integer((json_int_t)st->exits));
	json_object_set_new(v, "injections", json_integer((json_int_t)st->injections));
	json_object_set_new(v, "timer_wakes", json_integer((json_int_t)st->timer_wakes));
	json_object_set_new(v, "wrapped", json_integer((json_int_t)st->wrapped));
	double n = st->requests ? (double)st->requests : 1;
	json_object_set_new(v, "front_ns_mean", json_real((double)st->front_ns / n));
	json_object_set_new(v, "host_ns_mean", json_real((double)st->host_ns / n));
	json_object_set_new(obj, "virtio", v);
	json_t *h = json_object();
	json_object_set_new(h, "device", device_to_json(vb->hdev));
	if (vb->hdev->cpl)
		json_object_set_new(h, "completion", completion_to_json(vb->hdev->cpl));
	json_object_set_new(h, "pagecache", stack_to_json(vb->hs));
	json_object_set_new(h, "stack", stack_stats_json(vb->hs));
	json_object_set_new(obj, "host", h);
}

/* ------------------------------------------------------------ public API */

const struct virtio_blk_stats *virtio_blk_stats(const struct device *dev)
{
	return dev->ops == &virtio_blk_device_ops ? &((const struct vblk *)dev->priv)->st : NULL;
}

struct device *virtio_blk_host_device(const struct device *dev)
{
	return dev->ops == &virtio_blk_device_ops ? ((const struct vblk *)dev->priv)->hdev : NULL;
}

struct stack *virtio_blk_host_stack(const struct device *dev)
{
	return dev->ops == &virtio_blk_device_ops ? ((const struct vblk *)dev->priv)->hs : NULL;
}

const struct device_ops virtio_blk_device_ops = {
	.name = "virtio-blk",
	.summary = "KVM guest disk: VM exits, virtqueue, a host stack (page cache, fs, block, "
		   "device) below, interrupt injection (docs/virt.md)",
	.params = vblk_params,
	.priv_size = sizeof(struct vblk),
	.init = vblk_init,
	.destroy = vblk_destroy,
	.submit = vblk_submit,
	.irq_delivery_ns = vblk_irq_delivery,
	.stats_json = vblk_stats_json,
};
