/* What a block trace says of the stack it was recorded on, for the model
 * `workload fit` writes when --device or --scheduler is not given.
 *
 * Only what the trace proves is used, and each choice is printed with its
 * reason. The device: MMC_BLOCK_MAJOR 179 is an (e)MMC card
 * (include/uapi/linux/major.h), so an eMMC preset; the SCSI disk majors
 * (8, 65-71, 128-135) are UFS on a phone but SATA or SAS on a desktop, and
 * 259 (BLOCK_EXT_MAJOR) holds both NVMe namespaces and the high partitions
 * of an mmcblk, so those say nothing. The block layer: Linux 5.0 removed the
 * legacy request path and its schedulers (cfq, deadline, noop), and blk-mq
 * gives a single-hardware-queue device mq-deadline by default
 * (block/elevator.c, elevator_get_default), which every phone eMMC and
 * pre-MCQ UFS host is; before 4.16 the MMC driver had no blk-mq path and the
 * Kconfig default scheduler was cfq. Between 4.16 and 5.0 either can run
 * (scsi_mod.use_blk_mq), so the release says nothing there. Vendors change
 * the scheduler at boot (gs101 Pixels set bfq in init.gs101.storage.rc):
 * the reason says so, --scheduler overrides.
 */
#include "sim/cli/fit_era.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static bool scsi_major(uint32_t m)
{
	return m == 8 || (m >= 65 && m <= 71) || (m >= 128 && m <= 135);
}

void fit_era_pick(uint32_t major, const char *release, struct fit_era *out)
{
	memset(out, 0, sizeof(*out));
	if (major == 179) {
		out->device = "emmc51";
		snprintf(out->device_why, sizeof(out->device_why),
			 "the trace's device is major 179, an MMC card (include/uapi/linux/major.h): "
			 "eMMC 5.1 assumed (--device emmc45 for a 2012-14 phone)");
	} else if (scsi_major(major)) {
		snprintf(out->device_why, sizeof(out->device_why),
			 "the trace's device is major %u, a SCSI disk: UFS on a phone, SATA or SAS "
			 "elsewhere, so the default stays", major);
	}
	int maj = 0, min = 0;
	if (!release || sscanf(release, "%d.%d", &maj, &min) != 2)
		return;
	if (maj >= 5) {
		out->scheduler = "mq-deadline";
		snprintf(out->scheduler_why, sizeof(out->scheduler_why),
			 "recorded on Linux %s: blk-mq only since 5.0, mq-deadline the default for one "
			 "hardware queue (block/elevator.c); vendors may set another at boot (gs101 "
			 "Pixels: bfq), --scheduler overrides", release);
	} else if (maj < 4 || (maj == 4 && min < 16)) {
		out->scheduler = "cfq";
		snprintf(out->scheduler_why, sizeof(out->scheduler_why),
			 "recorded on Linux %s: the single-queue block layer, cfq the Kconfig default "
			 "(block/Kconfig.iosched)", release);
	} else {
		snprintf(out->scheduler_why, sizeof(out->scheduler_why),
			 "recorded on Linux %s: blk-mq or the single queue (scsi_mod.use_blk_mq), the "
			 "trace does not say which, so the default stays", release);
	}
}
