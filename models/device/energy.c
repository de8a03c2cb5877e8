/* Device energy: the storage device's draw as three states and a cost per
 * request (docs/energy.md).
 *
 *   busy  (a command in flight): each served request costs
 *         cmd_{read,write}_uj + bytes/KiB x {read,write}_nj_per_kib;
 *         nothing else is charged while busy, so that overlapping commands
 *         of a queued device are not counted twice.
 *   idle  (nothing in flight, awake): idle_mw, until sleep_after.
 *   sleep (idle longer than sleep_after): sleep_mw, and wake_uj once when
 *         the next command wakes the device.
 * The sleep state is the device's power management after an idle timeout:
 * on UFS the host controller's auto-hibernate (UFSHCI AHIT; Linux
 * drivers/scsi/ufs/ufshcd.c ufshcd_init sets 150 ms when the host supports
 * it), on eMMC the card's runtime suspend (Linux mmc_blk_probe sets the
 * card's autosuspend delay to 3000 ms; mmc_runtime_suspend puts the card to
 * sleep with CMD5 only on hosts with MMC_CAP_AGGRESSIVE_PM).
 *
 * The defaults are one published measurement turned into the terms above,
 * an upper bound: Li et al., "On the Energy Overhead of Mobile Storage
 * Systems", USENIX FAST 2014, §1-2: an eMMC 4.5 part delivering about
 * 70 MB/s sequential read, 40 MB/s sequential write, 4000 random-read and
 * 2000 random-write 4 KiB IOPS at under 250 mW peak. Per KiB: 250 mW /
 * 70 MB/s = 3657 nJ read, 250 mW / 40 MB/s = 6400 nJ written; per command:
 * 250 mW / 4000 IOPS = 62.5 uJ per 4 KiB read less its 4 KiB (14.6 uJ) =
 * 47.9 uJ; 250 mW / 2000 IOPS = 125 uJ per 4 KiB write less 25.6 uJ =
 * 99.4 uJ. Idle, sleep and wake-up figures are recalled datasheet orders
 * of magnitude, stated with their ranges in docs/energy.md.
 * The model never schedules an event: the sleep state is found when an idle
 * period closes (or when the result is written), so timing is untouched.
 * Left out: the sleep state's exit latency (the device model serves the
 * next command as if awake), write-buffer flushes and garbage collection
 * the device runs while idle, the link's own low-power states (M-PHY
 * STALL/SLEEP) apart from hibernate.
 */
#include "models/device/energy.h"

#include <stddef.h>
#include <string.h>

#include <jansson.h>

#define EN_OFF(f) offsetof(struct device_energy_params, f)

const struct cfg_param device_energy_params_table[] = {
	{ "read_nj_per_kib", CFG_T_DOUBLE, EN_OFF(read_nj_per_kib), "nJ", "3657", 0, 1e7,
	  "Li et al., FAST'14 §1-2 (eMMC 4.5): < 250 mW peak at ~70 MB/s sequential read "
	  "-> 250 mW / 70 MB/s x 1024 B; an upper bound (peak power)",
	  "energy per KiB read", NULL },
	{ "write_nj_per_kib", CFG_T_DOUBLE, EN_OFF(write_nj_per_kib), "nJ", "6400", 0, 1e7,
	  "Li et al., FAST'14 §1-2 (eMMC 4.5): < 250 mW peak at ~40 MB/s sequential write "
	  "-> 250 mW / 40 MB/s x 1024 B; an upper bound (peak power)",
	  "energy per KiB written", NULL },
	{ "cmd_read_uj", CFG_T_DOUBLE, EN_OFF(cmd_read_uj), "uJ", "47.9", 0, 1e6,
	  "Li et al., FAST'14 (eMMC 4.5): 250 mW / 4000 random-read IOPS = 62.5 uJ per 4 KiB "
	  "read, less 4 KiB x read_nj_per_kib",
	  "energy per read command beside its bytes", NULL },
	{ "cmd_write_uj", CFG_T_DOUBLE, EN_OFF(cmd_write_uj), "uJ", "99.4", 0, 1e6,
	  "Li et al., FAST'14 (eMMC 4.5): 250 mW / 2000 random-write IOPS = 125 uJ per 4 KiB "
	  "write, less 4 KiB x write_nj_per_kib",
	  "energy per write, flush or discard command beside its bytes", NULL },
	{ "idle_mw", CFG_T_DOUBLE, EN_OFF(idle_mw), "mW", "1", 0, 1e5,
	  "[RECALL] ASSUMED 0.5-50: eMMC/UFS datasheets' standby currents (hundreds of uA on "
	  "VCC 3.3 V and VCCQ 1.8 V) at the low end; a controller kept awake by background "
	  "work at the high end",
	  "power awake with no command in flight", NULL },
	{ "sleep_mw", CFG_T_DOUBLE, EN_OFF(sleep_mw), "mW", "0.3", 0, 1e5,
	  "[RECALL] ASSUMED 0.05-1: eMMC sleep (CMD5) lets the host cut VCC; VCCQ keeps "
	  "~100 uA at 1.8 V; UFS hibernate keeps the link and controller in retention",
	  "power in the sleep / hibernate state", NULL },
	{ "sleep_after_ms", CFG_T_TIME, EN_OFF(sleep_after_ns), "ms", "3000", 0, 3.6e6,
	  "Linux mmc_blk_probe: card autosuspend delay 3000 ms (eMMC); UFS presets: 150 ms, "
	  "ufshcd_init's default auto-hibernate idle timer; 0 = never sleeps",
	  "idle time before the sleep state", NULL },
	{ "wake_uj", CFG_T_DOUBLE, EN_OFF(wake_uj), "uJ", "0", 0, 1e6,
	  "ASSUMED 0-100: the exit energy is in no source read; 0 counts none",
	  "energy of one exit from the sleep state", NULL },
	CFG_PARAM_END,
};

int device_energy_init(struct device_energy *e, struct cfg_node *node, struct sim_error *err)
{
	memset(e, 0, sizeof(*e));
	if (node && node->kind != CFG_MAP)
		return cfg_errorf(err, node, "`energy` must be a map of the device's energy keys");
	int rc = cfg_apply(device_energy_params_table, node, &e->p, err);
	if (rc)
		return rc;
	e->idle = true;
	e->idle_since = 0;
	return 0;
}

double device_energy_idle_period_j(const struct device_energy_params *p, int64_t ns)
{
	if (ns <= 0)
		return 0;
	int64_t awake = ns, asleep = 0;
	if (p->sleep_after_ns > 0 && ns > p->sleep_after_ns) {
		awake = p->sleep_after_ns;
		asleep = ns - p->sleep_after_ns;
	}
	return p->idle_mw * 1e-3 * (double)awake * 1e-9 + p->sleep_mw * 1e-3 * (double)asleep * 1e-9;
}

double device_energy_request_j(const struct device_energy_params *p, bool write, uint64_t bytes)
{
	double kib = (double)bytes / 1024.0;
	if (write)
		return p->cmd_write_uj * 1e-6 + kib * p->write_nj_per_kib * 1e-9;
	return p->cmd_read_uj * 1e-6 + kib * p->read_nj_per_kib * 1e-9;
}

/* The split of an idle period of ns into its awake and asleep parts. */
static void idle_split(const struct device_energy_params *p, int64_t ns, int64_t *awake,
		       int64_t *asleep)
{
	*awake = ns;
	*asleep = 0;
	if (p->sleep_after_ns > 0 && ns > p->sleep_after_ns) {
		*awake = p->sleep_after_ns;
		*asleep = ns - p->sleep_after_ns;
	}
}

void device_energy_busy(struct device_energy *e, int64_t now)
{
	if (!e->idle)
		return;
	int64_t awake, asleep;
	idle_split(&e->p, now - e->idle_since, &awake, &asleep);
	e->idle_ns += awake;
	e->sleep_ns += asleep;
	e->idle_j += e->p.idle_mw * 1e-3 * (double)awake * 1e-9;
	e->sleep_j += e->p.sleep_mw * 1e-3 * (double)asleep * 1e-9;
	if (asleep > 0) {
		e->sleeps++;
		e->wake_j += e->p.wake_uj * 1e-6;
	}
	e->idle = false;
}

void device_energy_idle(struct device_energy *e, int64_t now)
{
	e->idle = true;
	e->idle_since = now;
}

void device_energy_request(struct device_energy *e, bool write, uint64_t bytes,
			   enum sim_class cls)
{
	e->active_j[cls] += device_energy_request_j(&e->p, write, bytes);
	e->requests[cls]++;
}

void device_energy_at(const struct device_energy *e, int64_t now, struct device_energy_total *t)
{
	memset(t, 0, sizeof(*t));
	for (int c = 0; c < SIM_NCLASS; c++) {
		t->by_class_j[c] = e->active_j[c];
		t->active_j += e->active_j[c];
	}
	t->idle_j = e->idle_j;
	t->sleep_j = e->sleep_j;
	t->wake_j = e->wake_j;
	t->idle_ns = e->idle_ns;
	t->sleep_ns = e->sleep_ns;
	t->sleeps = e->sleeps;
	if (e->idle && now > e->idle_since) {
		int64_t awake, asleep;
		idle_split(&e->p, now - e->idle_since, &awake, &asleep);
		t->idle_ns += awake;
		t->sleep_ns += asleep;
		t->idle_j += e->p.idle_mw * 1e-3 * (double)awake * 1e-9;
		t->sleep_j += e->p.sleep_mw * 1e-3 * (double)asleep * 1e-9;
		t->sleeps += asleep > 0; /* asleep now: the state was entered */
	}
}

double device_energy_total_j(const struct device_energy_total *t)
{
	return t->active_j + t->idle_j + t->sleep_j + t->wake_j;
}

json_t *device_energy_json(const struct device_energy *e, int64_t now)
{
	struct device_energy_total t;
	device_energy_at(e, now, &t);
	json_t *o = json_object();
	json_object_set_new(o, "total_j", json_real(device_energy_total_j(&t)));
	json_object_set_new(o, "active_j", json_real(t.active_j));
	json_object_set_new(o, "idle_j", json_real(t.idle_j));
	json_object_set_new(o, "sleep_j", json_real(t.sleep_j));
	json_object_set_new(o, "wake_j", json_real(t.wake_j));
	json_object_set_new(o, "idle_ns", json_integer((json_int_t)t.idle_ns));
	json_object_set_new(o, "sleep_ns", json_integer((json_int_t)t.sleep_ns));
	json_object_set_new(o, "sleeps", json_integer((json_int_t)t.sleeps));
	json_object_set_new(o, "params", cfg_params_to_json(device_energy_params_table, &e->p));
	return o;
}
