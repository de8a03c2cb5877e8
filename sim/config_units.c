/* Configuration, units: times, sizes and rates written with a unit ("5ms",
 * "4KiB", "200MB/s") or bare in a declared unit, parsed to ns, bytes and
 * bytes/s with overflow and range checks; plain integers, reals, booleans. */
#include "sim/config.h"
#include "sim/config_int.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ----------------------------------------------------------------- units */

struct unit {
	const char *name;
	double mult;   /* base units (ns, bytes, bytes/s) per one of this unit */
};

static const struct unit time_units[] = {
	{ "ns", 1.0 },
	{ "us", 1e3 }, { "\xc2\xb5s", 1e3 }, { "\xce\xbcs", 1e3 }, /* micro sign, Greek mu */
	{ "ms", 1e6 },
	{ "s", 1e9 },
	{ "min", 60e9 },
	{ NULL, 0 },
};

static const struct unit size_units[] = {
	{ "B", 1.0 },
	{ "KiB", 1024.0 }, { "MiB", 1048576.0 }, { "GiB", 1073741824.0 },
	{ "TiB", 1099511627776.0 },
	{ "KB", 1e3 }, { "kB", 1e3 }, { "MB", 1e6 }, { "GB", 1e9 }, { "TB", 1e12 },
	{ "sectors", 512.0 }, { "sector", 512.0 },
	{ NULL, 0 },
};

static const struct unit rate_units[] = {
	{ "B/s", 1.0 },
	{ "KB/s", 1e3 }, { "kB/s", 1e3 }, { "MB/s", 1e6 }, { "GB/s", 1e9 },
	{ "KiB/s", 1024.0 }, { "MiB/s", 1048576.0 }, { "GiB/s", 1073741824.0 },
	{ "bps", 1.0 / 8 }, { "Kbps", 1e3 / 8 }, { "kbps", 1e3 / 8 }, { "Mbps", 1e6 / 8 },
	{ "Gbps", 1e9 / 8 },
	{ NULL, 0 },
};

static const struct unit *unit_find(const struct unit *tab, const char *name)
{
	for (; tab->name; tab++)
		if (strcmp(tab->name, name) == 0)
			return tab;
	return NULL;
}

/* A quantity: decimal number (sign, digits, fraction, exponent), optional
 * blanks, optional unit. On success *num is the number, *is_int says it
 * was written without fraction or exponent (then *inum holds it exactly),
 * and unit receives the (possibly empty) unit text. */
static bool split_quantity(const char *s, double *num, bool *is_int, long long *inum, bool *int_ovf,
			   char *unit, size_t unit_len)
{
	if (!s)
		return false;
	while (isspace((unsigned char)*s))
		s++;
	const char *p = s;
	if (*p == '+' || *p == '-')
		p++;
	const char *digits = p;
	while (isdigit((unsigned char)*p))
		p++;
	bool int_digits = p > digits;
	bool frac = false;
	if (*p == '.') {
		p++;
		const char *fd = p;
		while (isdigit((unsigned char)*p))
			p++;
		if (!int_digits && p == fd)
			return false;
		frac = true;
	} else if (!int_digits) {
		return false;
	}
	if ((*p == 'e' || *p == 'E') &&
	    (isdigit((unsigned char)p[1]) ||
	     ((p[1] == '+' || p[1] == '-') && isdigit((unsigned char)p[2])))) {
		p += 2;
		while (isdigit((unsigned char)*p))
			p++;
		frac = true;
	}
	size_t nlen = (size_t)(p - s);
	char numbuf[64];
	if (nlen >= sizeof(numbuf))
		return false;
	memcpy(numbuf, s, nlen);
	numbuf[nlen] = '\0';
	errno = 0;
	*num = strtod(numbuf, NULL);
	if (!isfinite(*num))
		return false;
	*is_int = !frac;
	*int_ovf = false;
	if (!frac) {
		errno = 0;
		*inum = strtoll(numbuf, NULL, 10);
		*int_ovf = errno == ERANGE;
	}
	while (isspace((unsigned char)*p))
		p++;
	size_t ulen = strlen(p);
	while (ulen && isspace((unsigned char)p[ulen - 1]))
		ulen--;
	if (ulen >= unit_len)
		return false;
	memcpy(unit, p, ulen);
	unit[ulen] = '\0';
	return true;
}

/* Shared by time and size: quantity -> integer count of base units in
 * [lo, hi]. Integers times integral multipliers are computed exactly in
 * 128-bit arithmetic (no reliance on long double being wider than double);
 * fractions go through long double and are rounded to nearest.
 * Returns 0, or 1 for bad syntax/unknown unit, 2 for out of [lo, hi],
 * 3 for negative when !allow_neg, 4 for an unknown bare unit. */
static int parse_integral(const char *s, const struct unit *tab, const char *bare_unit,
			  bool allow_neg, __int128 lo, __int128 hi, __int128 *out)
{
	double num;
	bool is_int, ovf;
	long long inum = 0;
	char unit[32];
	if (!split_quantity(s, &num, &is_int, &inum, &ovf, unit, sizeof(unit)))
		return 1;
	const struct unit *u;
	if (!unit[0]) {
		const char *b = bare_unit && *bare_unit ? bare_unit : tab[0].name;
		u = unit_find(tab, b);
		if (!u)
			return 4;
	} else {
		u = unit_find(tab, unit);
		if (!u)
			return 1;
	}
	if (num < 0 && !allow_neg)
		return 3;
	__int128 v;
	if (is_int && !ovf && u->mult == floor(u->mult) && u->mult < 1e18) {
		v = (__int128)inum * (__int128)(long long)u->mult; /* |v| < 2^123 */
	} else {
		long double x = roundl((long double)num * (long double)u->mult);
		/* compare as long double against powers of two, exact in any format */
		if (!(x > -0x1p100L && x < 0x1p100L))
			return 2;
		v = (__int128)x;
	}
	if (v < lo || v > hi)
		return 2;
	*out = v;
	return 0;
}

int cfg_parse_time_ns(const char *s, const char *bare_unit, int64_t *out, struct sim_error *err)
{
	__int128 v;
	int r = parse_integral(s, time_units, bare_unit, true, INT64_MIN, INT64_MAX, &v);
	switch (r) {
	case 0:
		*out = (int64_t)v;
		return 0;
	case 2:
		return sim_errorf(err, SIM_E_INPUT,
				  "'%s' is too large a time (more than 2^63 ns, about 292 years)", s);
	case 4:
		return sim_errorf(err, SIM_E_INPUT, "unknown bare time unit '%s' (internal)",
				  bare_unit);
	default:
		return sim_errorf(err, SIM_E_INPUT,
				  "'%s': expected a time like 100us, 8ms, 2s (units ns, us, ms, s, min)",
				  s ? s : "");
	}
}

int cfg_parse_size_bytes(const char *s, const char *bare_unit, uint64_t *out, struct sim_error *err)
{
	__int128 v;
	int r = parse_integral(s, size_units, bare_unit, false, 0, UINT64_MAX, &v);
	switch (r) {
	case 0:
		*out = (uint64_t)v;
		return 0;
	case 2:
		return sim_errorf(err, SIM_E_INPUT, "'%s' is too large a size (2^64 bytes or more)",
				  s);
	case 3:
		return sim_errorf(err, SIM_E_INPUT, "'%s': a size cannot be negative", s);
	case 4:
		return sim_errorf(err, SIM_E_INPUT, "unknown bare size unit '%s' (internal)",
				  bare_unit);
	default:
		return sim_errorf(err, SIM_E_INPUT,
				  "'%s': expected a size like 4096, 4KiB, 512MiB, 8sectors (units B, KiB, MiB, GiB, TiB, KB, MB, GB, TB, sectors of 512 B)",
				  s ? s : "");
	}
}

int cfg_parse_rate_bps(const char *s, const char *bare_unit, double *out, struct sim_error *err)
{
	double num;
	bool is_int, ovf;
	long long inum;
	char unit[32];
	const struct unit *u = NULL;
	if (split_quantity(s, &num, &is_int, &inum, &ovf, unit, sizeof(unit))) {
		const char *b = unit[0] ? unit : bare_unit && *bare_unit ? bare_unit : "B/s";
		u = unit_find(rate_units, b);
		if (!u && !unit[0])
			return sim_errorf(err, SIM_E_INPUT, "unknown bare rate unit '%s' (internal)",
					  bare_unit);
	}
	if (!u)
		return sim_errorf(err, SIM_E_INPUT,
				  "'%s': expected a rate like 400MB/s, 1.5GiB/s, 100Mbps (units B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s, bps, Kbps, Mbps, Gbps)",
				  s ? s : "");
	double v = num * u->mult;
	if (!isfinite(v))
		return sim_errorf(err, SIM_E_INPUT, "'%s' is too large a rate", s);
	*out = v;
	return 0;
}

int cfg_parse_int(const char *s, int64_t *out, struct sim_error *err)
{
	char buf[64];
	size_t len = s ? strlen(s) : 0;
	while (len && isspace((unsigned char)*s))
		s++, len--;
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	if (!len || len >= sizeof(buf))
		goto bad;
	memcpy(buf, s, len);
	buf[len] = '\0';
	const char *p = buf;
	if (*p == '+' || *p == '-')
		p++;
	int base = 10;
	if (p == buf && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		base = 16;
	if (base == 10 ? !isdigit((unsigned char)*p) : !isxdigit((unsigned char)p[2]))
		goto bad;
	errno = 0;
	char *end;
	long long v = strtoll(buf, &end, base);
	if (*end)
		goto bad;
	if (errno == ERANGE)
		return sim_errorf(err, SIM_E_INPUT,
				  "'%s' is out of range for a 64-bit integer [%lld, %lld]", buf,
				  LLONG_MIN, LLONG_MAX);
	*out = v;
	return 0;
bad:
	return sim_errorf(err, SIM_E_INPUT, "'%s': expected an integer like 42 or -1 or 0x1f",
			  s ? s : "");
}

int cfg_parse_double(const char *s, double *out, struct sim_error *err)
{
	double num;
	bool is_int, ovf;
	long long inum;
	char unit[8];
	if (!split_quantity(s, &num, &is_int, &inum, &ovf, unit, sizeof(unit)) || unit[0])
		return sim_errorf(err, SIM_E_INPUT,
				  "'%s': expected a finite number like 0.5, 3 or 1e-3", s ? s : "");
	*out = num;
	return 0;
}

int cfg_parse_bool(const char *s, bool *out, struct sim_error *err)
{
	static const char *const yes[] = { "true", "yes", "on", "1", NULL };
	static const char *const no[] = { "false", "no", "off", "0", NULL };
	if (s) {
		for (int i = 0; yes[i]; i++) {
			if (strcasecmp(s, yes[i]) == 0) {
				*out = true;
				return 0;
			}
			if (strcasecmp(s, no[i]) == 0) {
				*out = false;
				return 0;
			}
		}
	}
	return sim_errorf(err, SIM_E_INPUT, "'%s': expected a boolean (true/false, yes/no, on/off, 1/0)",
			  s ? s : "");
}

/* Multiplier of a table unit in base units (1 if unknown or empty). */
double cfg_unit_mult(const struct cfg_param *p)
{
	const struct unit *tab = p->type == CFG_T_TIME ? time_units :
				 p->type == CFG_T_SIZE ? size_units :
				 p->type == CFG_T_RATE ? rate_units : NULL;
	if (!tab || !p->unit || !*p->unit)
		return 1.0;
	const struct unit *u = unit_find(tab, p->unit);
	return u ? u->mult : 1.0;
}

/* A time, size or rate parameter must name a unit its parser knows. */
bool cfg_unit_known(const struct cfg_param *p)
{
	const struct unit *tab = p->type == CFG_T_TIME ? time_units :
				 p->type == CFG_T_SIZE ? size_units :
				 p->type == CFG_T_RATE ? rate_units : NULL;
	return !tab || !p->unit || !*p->unit || unit_find(tab, p->unit);
}
