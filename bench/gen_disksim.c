/* Deterministic generator of DiskSim 4.0 ASCII request lists for the
 * replay benchmarks: one request per line,
 *
 *     arrival_ms  devno  lba  size_sectors  flags
 *
 * with the arrival in milliseconds printed with six decimals (exact
 * nanoseconds) and flags bit 0 = read, as DiskSim's "ascii" input reads
 * them (traces/disksim.c). --mqsim prints the MQSim/SSDSim dialect
 * instead: integer nanoseconds and type 1 = read, 0 = write.
 *
 * The mix is a phone-like one the flash presets sustain without an
 * unbounded queue at the default rate: 70 % reads; reads 4 KiB random
 * (80 %) or 64-256 KiB continuing one sequential stream (20 %); writes
 * 4 KiB random (70 %) or 128 KiB continuing another stream (30 %); LBAs in
 * the first 32 GiB. Gaps between arrivals are uniform on [1, 2*mean) ns
 * from xorshift64 (no libm, so the bytes are the same on every machine).
 * The output is a pure function of the arguments.
 *
 * usage: gen_disksim [-n REQUESTS] [-g MEAN_GAP_US] [-s SEED] [--mqsim]
 * Writes to stdout.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GEN_SPACE_SECTORS (32ull << 21) /* 32 GiB in 512-byte sectors */

static uint64_t gen_next(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* Uniform on [0, n), n > 0; the modulo bias (< n / 2^64) is irrelevant here. */
static uint64_t gen_below(uint64_t *s, uint64_t n)
{
	return gen_next(s) % n;
}

static int gen_usage(void)
{
	fprintf(stderr, "usage: gen_disksim [-n REQUESTS] [-g MEAN_GAP_US] [-s SEED] [--mqsim]\n");
	return 2;
}

int main(int argc, char **argv)
{
	uint64_t n = 1000000, gap_us = 250, seed = 1;
	int mqsim = 0;

	for (int i = 1; i < argc; i++) {
		char *end;
		if (!strcmp(argv[i], "--mqsim")) {
			mqsim = 1;
			continue;
		}
		if (i + 1 >= argc || argv[i][0] != '-' || strlen(argv[i]) != 2)
			return gen_usage();
		uint64_t v = strtoull(argv[i + 1], &end, 10);
		if (*end || end == argv[i + 1])
			return gen_usage();
		switch (argv[i][1]) {
		case 'n': n = v; break;
		case 'g': gap_us = v; break;
		case 's': seed = v; break;
		default: return gen_usage();
		}
		i++;
	}
	if (gap_us == 0 || gap_us > 1000000000)
		return gen_usage();

	static char obuf[1 << 16];
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	uint64_t s = 0x9e3779b97f4a7c15ull ^ (seed * 0xbf58476d1ce4e5b9ull);
	if (!s)
		s = 1;
	uint64_t t = 0, rseq = 1u << 20, wseq = GEN_SPACE_SECTORS / 2;
	uint64_t span = 2 * gap_us * 1000 - 1;

	for (uint64_t i = 0; i < n; i++) {
		t += 1 + gen_below(&s, span);
		int read = gen_below(&s, 10) < 7;
		uint64_t lba, sectors;
		if (read && gen_below(&s, 10) < 8) {
			sectors = 8;
			lba = gen_below(&s, GEN_SPACE_SECTORS / 8) * 8;
		} else if (read) {
			sectors = 128u << gen_below(&s, 3); /* 64, 128, 256 KiB */
			if (rseq + sectors > GEN_SPACE_SECTORS)
				rseq = 1u << 20;
			lba = rseq;
			rseq += sectors;
		} else if (gen_below(&s, 10) < 7) {
			sectors = 8;
			lba = gen_below(&s, GEN_SPACE_SECTORS / 8) * 8;
		} else {
			sectors = 256;
			if (wseq + sectors > GEN_SPACE_SECTORS)
				wseq = GEN_SPACE_SECTORS / 2;
			lba = wseq;
			wseq += sectors;
		}
		if (mqsim)
			printf("%" PRIu64 " 0 %" PRIu64 " %" PRIu64 " %d\n", t, lba, sectors, read);
		else
			printf("%" PRIu64 ".%06" PRIu64 " 0 %" PRIu64 " %" PRIu64 " %d\n", t / 1000000,
			       t % 1000000, lba, sectors, read);
	}
	return fflush(stdout) ? 1 : 0;
}
