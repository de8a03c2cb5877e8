/* Common trace code: the fixed input buffer every reader streams through,
 * the reader registry and format detection, and the blkparse vocabulary
 * (action letters, rwbs strings) shared by readers and the writer.
 *
 * Letters and rwbs order follow blktrace 1.2.0 blkparse.c / blkparse_fmt.c
 * (fill_rwbs: [F]lush, D|W|R|N, [F]ua, [A]head, [S]ync, [M]eta).
 */
#define _GNU_SOURCE /* fopencookie */
#include "traces/trace.h"
#include "sim/config.h"

#include <errno.h>
#include <lzma.h>
#include <stdarg.h>
#include <zlib.h>
#include <zstd.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "models/block/request.h"
#include "traces/trace_int.h"

/* ---- input buffer ----------------------------------------------------- */

/* Raw input for a compressed stream: the decoder reads it in chunks. */
#define TRACE_ZIN_BUF (64u * 1024u)
/* liblzma's memory limit: xz -9 needs 65 MiB to decode (xz(1), "Memory
 * usage"); anything above this is refused rather than swapped. */
#define TRACE_XZ_MEMLIMIT (256ull << 20)

static const uint8_t gz_magic[] = { 0x1f, 0x8b };
static const uint8_t xz_magic[] = { 0xfd, '7', 'z', 'X', 'Z', 0x00 };
static const uint8_t zstd_magic[] = { 0x28, 0xb5, 0x2f, 0xfd };

int trace_zkind_of(const uint8_t *buf, size_t len)
{
	if (len >= sizeof(gz_magic) && !memcmp(buf, gz_magic, sizeof(gz_magic)))
		return TRACE_Z_GZIP;
	if (len >= sizeof(xz_magic) && !memcmp(buf, xz_magic, sizeof(xz_magic)))
		return TRACE_Z_XZ;
	if (len >= sizeof(zstd_magic) && !memcmp(buf, zstd_magic, sizeof(zstd_magic)))
		return TRACE_Z_ZSTD;
	return TRACE_Z_NONE;
}

const char *trace_zkind_name(int zkind)
{
	switch (zkind) {
	case TRACE_Z_GZIP: return "gzip";
	case TRACE_Z_XZ: return "xz";
	case TRACE_Z_ZSTD: return "zstd";
	default: return "none";
	}
}

static void z_free(struct trace_src *s)
{
	if (!s->z)
		return;
	switch (s->zkind) {
	case TRACE_Z_GZIP:
		inflateEnd(s->z);
		free(s->z);
		break;
	case TRACE_Z_XZ:
		lzma_end(s->z);
		free(s->z);
		break;
	case TRACE_Z_ZSTD:
		ZSTD_freeDStream(s->z);
		break;
	default:
		break;
	}
	s->z = NULL;
}

static int z_init(struct trace_src *s, int kind, struct sim_error *err)
{
	s->zkind = kind;
	switch (kind) {
	case TRACE_Z_GZIP: {
		z_stream *zs = calloc(1, sizeof(*zs));
		/* 15 + 32: any window, gzip or zlib header detected */
		if (!zs || inflateInit2(zs, 15 + 32) != Z_OK) {
			free(zs);
			return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory (gzip)", s->name);
		}
		s->z = zs;
		return 0;
	}
	case TRACE_Z_XZ: {
		lzma_stream *ls = malloc(sizeof(*ls));
		if (ls)
			*ls = (lzma_stream)LZMA_STREAM_INIT;
		if (!ls || lzma_stream_decoder(ls, TRACE_XZ_MEMLIMIT, LZMA_CONCATENATED) != LZMA_OK) {
			free(ls);
			return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory (xz)", s->name);
		}
		s->z = ls;
		return 0;
	}
	case TRACE_Z_ZSTD: {
		ZSTD_DStream *zd = ZSTD_createDStream();
		if (!zd || ZSTD_isError(ZSTD_initDStream(zd))) {
			ZSTD_freeDStream(zd);
			return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory (zstd)", s->name);
		}
		s->z = zd;
		return 0;
	}
	default:
		return 0;
	}
}

/* Refill the raw input of a compressed fd source. */
static int zin_fill(struct trace_src *s, struct sim_error *err)
{
	if (s->zin_eof || s->fd < 0)
		return 0;
	if (s->zin_pos) {
		memmove(s->zin, s->zin + s->zin_pos, s->zin_len - s->zin_pos);
		s->zin_len -= s->zin_pos;
		s->zin_pos = 0;
	}
	while (s->zin_len < s->zin_cap) {
		ssize_t r = read(s->fd, s->zin + s->zin_len, s->zin_cap - s->zin_len);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return sim_errorf(err, SIM_E_IO, "%s: %s", s->name, strerror(errno));
		}
		if (r == 0) {
			s->zin_eof = true;
			break;
		}
		s->zin_len += (size_t)r;
		break;
	}
	return 0;
}

/* Decompress into dst[0..room); returns bytes produced (0 = end of data)
 * or a negative code. */
static long z_read(struct trace_src *s, uint8_t *dst, size_t room, struct sim_error *err)
{
	const char *kname = trace_zkind_name(s->zkind);
	size_t produced = 0;

	while (produced == 0) {
		if (s->z_end)
			return 0;
		if (s->zin_pos == s->zin_len) {
			int rc = zin_fill(s, err);
			if (rc)
				return rc;
		}
		bool in_end = s->zin_pos == s->zin_len && (s->zin_eof || s->fd < 0);
		const uint8_t *in = s->zin + s->zin_pos;
		size_t avail = s->zin_len - s->zin_pos, used = 0;

		if (s->zkind == TRACE_Z_GZIP) {
			z_stream *zs = s->z;
			zs->next_in = (Bytef *)in;
			zs->avail_in = (uInt)(avail > UINT32_MAX ? UINT32_MAX : avail);
			zs->next_out = dst;
			zs->avail_out = (uInt)(room > UINT32_MAX ? UINT32_MAX : room);
			int zr = inflate(zs, Z_NO_FLUSH);
			used = (size_t)(zs->next_in - in);
			produced = (size_t)(zs->next_out - dst);
			if (zr == Z_STREAM_END) {
				/* Concatenated members (gzip -c a b, pigz): start again
				 * when more input follows. */
				s->zin_pos += used;
				if (s->zin_pos == s->zin_len)
					(void)zin_fill(s, err);
				if (s->zin_pos == s->zin_len) {
					s->z_end = true;
				} else if (inflateReset(zs) != Z_OK) {
					return sim_errorf(err, SIM_E_INPUT, "%s: corrupt %s data", s->name, kname);
				}
				continue;
			}
			if (zr == Z_BUF_ERROR && in_end && !produced)
				goto cut;
			if (zr == Z_NEED_DICT || zr == Z_DATA_ERROR || zr == Z_MEM_ERROR)
				goto corrupt;
		} else if (s->zkind == TRACE_Z_XZ) {
			lzma_stream *ls = s->z;
			ls->next_in = in;
			ls->avail_in = avail;
			ls->next_out = dst;
			ls->avail_out = room;
			lzma_ret lr = lzma_code(ls, in_end ? LZMA_FINISH : LZMA_RUN);
			used = (size_t)(ls->next_in - in);
			produced = (size_t)(ls->next_out - dst);
			if (lr == LZMA_OK && in_end && !used && !produced) {
				goto cut; /* FINISH and no progress: the stream is cut */
			} else if (lr == LZMA_STREAM_END) {
				s->z_end = true;
			} else if (lr == LZMA_MEMLIMIT_ERROR) {
				return sim_errorf(err, SIM_E_INPUT, "%s: xz data needs more than %llu MiB to decode",
						  s->name, TRACE_XZ_MEMLIMIT >> 20);
			} else if (lr != LZMA_OK) {
				if (lr == LZMA_BUF_ERROR && in_end)
					goto cut;
				goto corrupt;
			}
		} else {
			ZSTD_inBuffer ib = { in, avail, 0 };
			ZSTD_outBuffer ob = { dst, room, 0 };
			size_t zr = ZSTD_decompressStream(s->z, &ob, &ib);
			if (ZSTD_isError(zr))
				goto corrupt;
			used = ib.pos;
			produced = ob.pos;
			if (used || produced)
				s->z_frame_open = zr != 0;
			if (in_end && !produced && !used) {
				if (s->z_frame_open)
					goto cut;
				s->z_end = true;
			}
		}
		s->zin_pos += used;
		if (!produced && !used && in_end) {
			if (s->zkind == TRACE_Z_GZIP)
				goto cut;
			s->z_end = true;
		}
	}
	return (long)produced;
cut:
	return sim_errorf(err, SIM_E_INPUT, "%s: byte offset %llu: %s data ends early (truncated file)",
			  s->name, (unsigned long long)(s->base + s->len), kname);
corrupt:
	return sim_errorf(err, SIM_E_INPUT, "%s: byte offset %llu: corrupt %s data", s->name,
			  (unsigned long long)(s->base + s->len), kname);
}

/* Raw read of the fd into dst; 0 at end. */
static long fd_read(struct trace_src *s, uint8_t *dst, size_t room, struct sim_error *err)
{
	for (;;) {
		ssize_t r = read(s->fd, dst, room);
		if (r >= 0)
			return (long)r;
		if (errno != EINTR)
			return sim_errorf(err, SIM_E_IO, "%s: %s", s->name, strerror(errno));
	}
}

int trace_src_open(struct trace_src *s, const char *path, size_t bufsize, struct sim_error *err)
{
	struct stat st;
	bool is_stdin = !strcmp(path, "-");

	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", is_stdin ? "stdin" : path);
	s->fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0)
		return sim_errorf(err, errno == ENOENT ? SIM_E_INPUT : SIM_E_IO, "%s: %s", path,
				  strerror(errno));
	s->own_fd = !is_stdin;
	if (fstat(s->fd, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			trace_src_close(s);
			return sim_errorf(err, SIM_E_INPUT, "%s: is a directory, not a trace", path);
		}
		s->is_regular = S_ISREG(st.st_mode) && !is_stdin;
	}
	s->buf = malloc(bufsize);
	s->own_buf = true;
	if (!s->buf) {
		trace_src_close(s);
		return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", path);
	}
	s->cap = bufsize;
	/* Sniff compression from the first bytes; they stay in the buffer. */
	while (s->len < sizeof(xz_magic) && !s->eof) {
		long r = fd_read(s, s->buf + s->len, s->cap - s->len, err);
		if (r < 0) {
			trace_src_close(s);
			return (int)r;
		}
		if (r == 0)
			s->eof = true;
		s->len += (size_t)r;
	}
	int kind = trace_zkind_of(s->buf, s->len);
	if (kind != TRACE_Z_NONE) {
		s->zin_cap = TRACE_ZIN_BUF > s->len ? TRACE_ZIN_BUF : s->len;
		s->zin = malloc(s->zin_cap);
		if (!s->zin) {
			trace_src_close(s);
			return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", path);
		}
		memcpy(s->zin, s->buf, s->len);
		s->zin_len = s->len;
		s->zin_eof = s->eof;
		s->len = 0;
		s->eof = false;
		int rc = z_init(s, kind, err);
		if (rc) {
			trace_src_close(s);
			return rc;
		}
	}
	return 0;
}

void trace_src_open_mem(struct trace_src *s, const void *buf, size_t len, const char *name)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name ? name : "<memory>");
	s->fd = -1;
	s->buf = (uint8_t *)buf;
	s->cap = s->len = len;
	s->eof = true;
}

int trace_src_open_mem_z(struct trace_src *s, const void *buf, size_t len, const char *name,
			 struct sim_error *err)
{
	int kind = trace_zkind_of(buf, len);

	trace_src_open_mem(s, buf, len, name);
	if (kind == TRACE_Z_NONE)
		return 0;
	s->zin = (uint8_t *)buf;
	s->zin_len = len;
	s->zin_eof = true;
	s->buf = malloc(TRACE_SRC_BUF);
	if (!s->buf) {
		s->zin = NULL;
		return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", s->name);
	}
	s->own_buf = true;
	s->cap = TRACE_SRC_BUF;
	s->len = 0;
	s->eof = false;
	return z_init(s, kind, err);
}

void trace_src_close(struct trace_src *s)
{
	z_free(s);
	if (s->fd >= 0 && s->own_fd)
		close(s->fd);
	if (s->own_buf)
		free(s->buf);
	if (s->fd >= 0)
		free(s->zin);
	s->zin = NULL;
	s->fd = -1;
	s->buf = NULL;
	s->own_buf = false;
	s->own_fd = false;
}

void trace_src_move(struct trace_src *dst, struct trace_src *src)
{
	*dst = *src;
	memset(src, 0, sizeof(*src));
	src->fd = -1;
}

long trace_src_fill_more(struct trace_src *s, size_t n, struct sim_error *err)
{
	if (s->len - s->pos >= n || s->eof)
		return (long)(s->len - s->pos < n ? s->len - s->pos : n);
	/* Compact, then read until n bytes or end of input. */
	if (s->pos) {
		memmove(s->buf, s->buf + s->pos, s->len - s->pos);
		s->base += s->pos;
		s->len -= s->pos;
		s->pos = 0;
	}
	while (s->len < n && !s->eof) {
		long r = s->z ? z_read(s, s->buf + s->len, s->cap - s->len, err)
			      : fd_read(s, s->buf + s->len, s->cap - s->len, err);
		if (r < 0)
			return r;
		if (r == 0)
			s->eof = true;
		s->len += (size_t)r;
	}
	return (long)(s->len < n ? s->len : n);
}

int trace_src_getline(struct trace_src *s, const char **line, size_t *len, struct sim_error *err)
{
	size_t scanned = 0;

	for (;;) {
		uint8_t *start = s->buf + s->pos;
		size_t avail = s->len - s->pos;
		uint8_t *nl = scanned < avail ? memchr(start + scanned, '\n', avail - scanned) : NULL;

		if (nl || (s->eof && avail)) {
			size_t l = nl ? (size_t)(nl - start) : avail;
			s->pos += nl ? l + 1 : l;
			s->line++;
			if (l > TRACE_LINE_MAX)
				return sim_errorf(err, SIM_E_INPUT, "%s:%llu: line longer than %u bytes",
						  s->name, (unsigned long long)s->line, TRACE_LINE_MAX);
			if (memchr(start, '\0', l))
				return sim_errorf(err, SIM_E_INPUT, "%s:%llu: NUL byte in a text line",
						  s->name, (unsigned long long)s->line);
			if (l && start[l - 1] == '\r')
				l--;
			*line = (const char *)start;
			*len = l;
			return 1;
		}
		if (s->eof)
			return 0;
		if (avail > TRACE_LINE_MAX + 1)
			return sim_errorf(err, SIM_E_INPUT, "%s:%llu: line longer than %u bytes",
					  s->name, (unsigned long long)s->line + 1, TRACE_LINE_MAX);
		scanned = avail;
		long r = trace_src_fill(s, avail + 1, err);
		if (r < 0)
			return (int)r;
	}
}

long trace_src_peek_file(const char *path, uint8_t *buf, size_t n)
{
	struct trace_src s;
	struct sim_error err;
	long got;

	if (trace_src_open(&s, path, n + 64 > TRACE_SRC_BUF ? n + 64 : TRACE_SRC_BUF, &err))
		return -1;
	got = trace_src_fill(&s, n, &err);
	if (got > 0)
		memcpy(buf, s.buf + s.pos, (size_t)got);
	trace_src_close(&s);
	return got < 0 ? -1 : got;
}

/* stdio over a source, for readers written against FILE (ftrace). */
static ssize_t src_cookie_read(void *c, char *buf, size_t size)
{
	struct trace_src *s = c;
	struct sim_error err;
	long got = trace_src_fill(s, size < s->cap ? size : s->cap, &err);

	if (got < 0) {
		errno = EIO;
		return -1;
	}
	memcpy(buf, s->buf + s->pos, (size_t)got);
	s->pos += (size_t)got;
	return got;
}

static int src_cookie_close(void *c)
{
	trace_src_close(c);
	free(c);
	return 0;
}

FILE *trace_src_fopen(struct trace_src *heap_src)
{
	cookie_io_functions_t io = { .read = src_cookie_read, .close = src_cookie_close };
	return fopencookie(heap_src, "r", io);
}

void trace_diag_note(struct trace_diag *d, const char *fmt, ...)
{
	va_list ap;

	if (!d)
		return;
	d->notes_total++;
	if (d->nnotes >= TRACE_DIAG_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(d->notes[d->nnotes++], TRACE_DIAG_NOTE_LEN, fmt, ap);
	va_end(ap);
}

/* ---- blkparse vocabulary ---------------------------------------------- */

static const char action_letters[TRACE_A_NR_BLOCK] = {
	[TRACE_A_NONE] = '?',
	[TRACE_A_QUEUE] = 'Q', [TRACE_A_BACKMERGE] = 'M', [TRACE_A_FRONTMERGE] = 'F',
	[TRACE_A_GETRQ] = 'G', [TRACE_A_SLEEPRQ] = 'S', [TRACE_A_REQUEUE] = 'R',
	[TRACE_A_ISSUE] = 'D', [TRACE_A_COMPLETE] = 'C', [TRACE_A_PLUG] = 'P',
	[TRACE_A_UNPLUG_IO] = 'U', [TRACE_A_UNPLUG_TIMER] = 'T', [TRACE_A_INSERT] = 'I',
	[TRACE_A_SPLIT] = 'X', [TRACE_A_BOUNCE] = 'B', [TRACE_A_REMAP] = 'A',
	[TRACE_A_ABORT] = '?', [TRACE_A_DRV_DATA] = '?',
};

char trace_action_letter(uint16_t action)
{
	if (action == TRACE_A_MESSAGE)
		return 'm';
	if (action < TRACE_A_NR_BLOCK)
		return action_letters[action];
	return '?';
}

uint16_t trace_action_from_letter(char c)
{
	if (c == 'm')
		return TRACE_A_MESSAGE;
	for (uint16_t a = 1; a < TRACE_A_NR_BLOCK; a++)
		if (action_letters[a] == c && c != '?')
			return a;
	return TRACE_A_NONE;
}

void trace_rwbs(const struct trace_rec *rec, char buf[8])
{
	static const char dirc[] = { 'N', 'R', 'W', 'D' };
	int i = 0;

	if (rec->flags & REQ_FLUSH)
		buf[i++] = 'F';
	buf[i++] = dirc[rec->dir & 3];
	if (rec->flags & REQ_FUA)
		buf[i++] = 'F';
	if (rec->flags & REQ_RAHEAD)
		buf[i++] = 'A';
	if (rec->flags & REQ_SYNC)
		buf[i++] = 'S';
	if (rec->flags & REQ_META)
		buf[i++] = 'M';
	buf[i] = '\0';
}

int trace_rwbs_parse(const char *s, size_t len, struct trace_rec *rec)
{
	size_t i = 0;
	uint32_t flags = 0;

	if (len == 0 || len > 7)
		return -1;
	/* A leading F is a flush only when another direction letter follows. */
	if (s[0] == 'F' && len > 1 && strchr("DWRN", s[1])) {
		flags |= REQ_FLUSH;
		i++;
	}
	switch (s[i]) {
	case 'D': rec->dir = TRACE_DIR_DISCARD; flags |= REQ_WRITE; break;
	case 'W': rec->dir = TRACE_DIR_WRITE; flags |= REQ_WRITE; break;
	case 'R': rec->dir = TRACE_DIR_READ; break;
	case 'N': rec->dir = TRACE_DIR_NONE; break;
	default: return -1;
	}
	for (i++; i < len; i++) {
		switch (s[i]) {
		case 'F': flags |= REQ_FUA; break;
		case 'A': flags |= REQ_RAHEAD; break;
		case 'S': flags |= REQ_SYNC; break;
		case 'M': flags |= REQ_META; break;
		case 'E': break; /* secure erase (newer kernels' rwbs); no REQ_ bit here */
		default: return -1;
		}
	}
	rec->flags = flags;
	return 0;
}

/* ---- registry and detection ------------------------------------------- */

static const struct trace_reader_ops *const registry[] = {
	&trace_blktrace_ops,
	&trace_blkparse_ops,
	&trace_disksim_ops,
	&trace_ftrace_ops,
	&trace_csv_ops,
	&trace_fio_ops,
	&trace_perfetto_ops,
	&trace_tracecmd_ops,
	&trace_systrace_ops,
	NULL,
};

const struct trace_reader_ops *const *trace_reader_registry(void)
{
	return registry;
}

const struct trace_reader_ops *trace_reader_find(const char *name)
{
	for (size_t i = 0; registry[i]; i++)
		if (!strcmp(registry[i]->name, name))
			return registry[i];
	return NULL;
}

static const struct trace_reader_ops *detect(const uint8_t *buf, size_t len)
{
	const struct trace_reader_ops *best = NULL;
	int best_conf = 0;

	for (size_t i = 0; registry[i]; i++) {
		int c = registry[i]->probe(buf, len);
		if (c > best_conf) {
			best_conf = c;
			best = registry[i];
		}
	}
	return best;
}

/* Every format a reader accepts, for "not a known trace format". */
#define TRACE_FORMATS_HELP                                                                   \
	"blktrace binary (one file, a per-CPU set NAME.blktrace.N or a blkparse -d dump), "     \
	"blkparse text, ftrace text (trace, trace_pipe, trace-cmd report), systrace/atrace "    \
	"HTML, trace-cmd trace.dat, Perfetto protobuf, DiskSim/MQSim ASCII, MSR Cambridge or "  \
	"SNIA CSV, phone block CSV (proces,device,rw_flag,sector,size,timestamp), fio iolog "   \
	"v2/v3; gzip, xz or zstd of any of them"

static int unknown_format(const char *name, int zkind, struct sim_error *err)
{
	return sim_errorf(err, SIM_E_INPUT, "%s: byte offset 0: not a known trace format%s%s%s. "
			  "Readers: " TRACE_FORMATS_HELP ". Any other text request list reads with "
			  "--columns (a scenario's workload.columns), e.g. "
			  "time=1:us,op=2,offset=3:sector,size=4:sector,sep=ws (docs/traces.md)", name,
			  zkind ? " (after " : "", zkind ? trace_zkind_name(zkind) : "",
			  zkind ? " decompression)" : "");
}

/* opts with diag pointed at r's own record unless the caller gave one. */
static void opts_for(const struct trace_opts *opts, struct trace_reader *r, struct trace_opts *o)
{
	memset(o, 0, sizeof(*o));
	if (opts)
		*o = *opts;
	if (!o->diag)
		o->diag = &r->diag;
	r->window = o->window;
	r->gap = o->gap;
	r->segment = o->segment;
	r->segment_gap_ns = o->segment_gap_ns ? o->segment_gap_ns
			    : o->gap.max_ns ? o->gap.max_ns : TRACE_CLOCK_JUMP_NS;
}

bool trace_comm_tid_split(const char *s, const char *e, const char **dash, int32_t *tid)
{
	const char *d = e;
	while (d > s && (unsigned)(d[-1] - '0') < 10u)
		d--;
	if (d == e || e - d > 10 || d - s < 2 || d[-1] != '-')
		return false;
	int64_t v = 0;
	for (const char *p = d; p < e; p++)
		v = v * 10 + (p[0] - '0');
	if (v > INT32_MAX)
		return false;
	*dash = d - 1;
	*tid = (int32_t)v;
	return true;
}

int trace_window_parse(struct trace_window *w, bool to, const char *text, const char *opt,
		       struct sim_error *err)
{
	bool abs = text[0] == '@';
	int64_t ns;
	if (cfg_parse_time_ns(text + abs, "s", &ns, err) || ns < 0)
		return sim_errorf(err, SIM_E_INPUT, "%s '%s': expected a time from the trace's first "
				  "record (10s, 250ms) or @TIME on the recording's clock", opt, text);
	if (to) {
		w->to_ns = ns;
		w->flags |= TRACE_WIN_TO | (abs ? TRACE_WIN_TO_ABS : 0);
	} else {
		w->from_ns = ns;
		w->flags |= TRACE_WIN_FROM | (abs ? TRACE_WIN_FROM_ABS : 0);
	}
	if ((w->flags & TRACE_WIN_FROM) && (w->flags & TRACE_WIN_TO) &&
	    !!(w->flags & TRACE_WIN_FROM_ABS) == !!(w->flags & TRACE_WIN_TO_ABS) && w->to_ns < w->from_ns)
		return sim_errorf(err, SIM_E_INPUT, "%s '%s': the window ends before it starts", opt, text);
	return 0;
}

int trace_segment_parse(uint32_t *seg, const char *text, const char *opt, struct sim_error *err)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(text, &end, 10);
	if (errno || end == text || *end || text[0] == '-' || v < 1 || v > UINT32_MAX)
		return sim_errorf(err, SIM_E_INPUT, "%s '%s': expected a capture segment's number, "
				  "1 for the first (segments are cut at gaps longer than --max-gap, "
				  "or an hour)", opt, text);
	*seg = (uint32_t)v;
	return 0;
}

/* Which capture segment rec begins or continues (diag.segments counts
 * them): a step between consecutive recorded times longer than the
 * threshold, either way, starts the next. */
static uint32_t segment_of(struct trace_reader *r, const struct trace_rec *rec)
{
	struct trace_diag *d = &r->diag;
	int64_t t = rec->time_ns;
	if (!r->seg_have) {
		r->seg_have = true;
		d->segments = 1;
	} else {
		/* in 128 bits: recorded times may lie far apart */
		__int128 step = (__int128)t - r->seg_last;
		if (step < 0)
			step = -step;
		if (step > r->segment_gap_ns && d->segments < UINT32_MAX)
			d->segments++;
	}
	r->seg_last = t;
	return d->segments;
}

/* Whether rec lies outside r's window (relative bounds from the first record read). */
static bool outside_window(struct trace_reader *r, const struct trace_rec *rec)
{
	const struct trace_window *w = &r->window;
	if (!w->flags)
		return false;
	if (!r->have_t0) {
		r->have_t0 = true;
		r->t0 = rec->time_ns;
	}
	if (w->flags & TRACE_WIN_FROM) {
		int64_t from = w->flags & TRACE_WIN_FROM_ABS ? w->from_ns : r->t0 + w->from_ns;
		if (rec->time_ns < from)
			return true;
	}
	if (w->flags & TRACE_WIN_TO) {
		int64_t to = w->flags & TRACE_WIN_TO_ABS ? w->to_ns : r->t0 + w->to_ns;
		if (rec->time_ns > to)
			return true;
	}
	return false;
}

/* What the format records of who issued an I/O, unless the reader said. */
static void set_identity(const struct trace_opts *o, const struct trace_reader_ops *ops)
{
	if (o->diag && !o->diag->identity_set)
		o->diag->identity = ops->identity;
}

/* The reader is open as ops: what it records, and the process filter's
 * state. On an error the reader is closed. */
static int reader_opened(struct trace_reader *r, const struct trace_reader_ops *ops,
			 const struct trace_opts *o, const char *path, struct sim_error *err)
{
	r->ops = ops;
	set_identity(o, ops);
	r->diag.format = ops->name;
	if (o->diag)
		o->diag->format = ops->name;
	if (!o->keep)
		return 0;
	int rc = trace_filter_create(o->keep, path, o->diag ? o->diag : &r->diag, &r->filter, err);
	if (rc) {
		trace_close(r);
		return rc;
	}
	trace_fg_describe(o->keep, r->diag.filter, sizeof(r->diag.filter));
	return 0;
}

static void reader_reset(struct trace_reader *r)
{
	memset(r, 0, sizeof(*r));
	r->diag.min_ns = INT64_MAX;
	r->diag.max_ns = INT64_MIN;
}

int trace_open_auto(const char *path, const struct trace_opts *opts, struct trace_reader *r,
		    struct sim_error *err)
{
	struct trace_opts o;
	struct stat st;
	int rc;

	reader_reset(r);
	opts_for(opts, r, &o);
	/* A per-CPU set given by its base name: the blktrace reader opens it. */
	if (strcmp(path, "-") && stat(path, &st) < 0) {
		char first[4200];
		int e = errno;
		snprintf(first, sizeof(first), "%s.blktrace.0", path);
		if (stat(first, &st) < 0)
			return sim_errorf(err, e == ENOENT ? SIM_E_INPUT : SIM_E_IO, "%s: %s", path,
					  strerror(e));
		rc = trace_blktrace_ops.open(path, &o, &r->state, err);
		if (rc)
			return rc;
		return reader_opened(r, &trace_blktrace_ops, &o, path, err);
	}
	/* Open once and probe the first bytes in the reader's own buffer, so a
	 * pipe is never read twice. */
	struct trace_src *src = malloc(sizeof(*src));
	if (!src)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	rc = trace_src_open(src, path, TRACE_SRC_BUF, err);
	if (rc) {
		free(src);
		return rc;
	}
	long n = trace_src_fill(src, TRACE_PROBE_BYTES, err);
	if (n < 0) {
		trace_src_close(src);
		free(src);
		return (int)n;
	}
	const struct trace_reader_ops *ops = detect(src->buf + src->pos, (size_t)n);
	if (!ops) {
		rc = unknown_format(src->name, src->zkind, err);
		trace_src_close(src);
		free(src);
		return rc;
	}
	if (ops->open_src) {
		rc = ops->open_src(src, &o, &r->state, err);
		if (rc)
			trace_src_close(src);
		free(src);
	} else {
		/* A reader without a stream entry: regular files only. */
		bool plain = src->is_regular && src->zkind == TRACE_Z_NONE;
		trace_src_close(src);
		free(src);
		if (!plain)
			return sim_errorf(err, SIM_E_INPUT, "%s: the %s reader reads regular, "
					  "uncompressed files only", path, ops->name);
		rc = ops->open(path, &o, &r->state, err);
	}
	if (rc)
		return rc;
	return reader_opened(r, ops, &o, path, err);
}

int trace_open_named(const char *path, const char *format, const struct trace_opts *opts,
		     struct trace_reader *r, struct sim_error *err)
{
	if (!format)
		return trace_open_auto(path, opts, r, err);
	const struct trace_reader_ops *ops = trace_reader_find(format);
	struct trace_opts o;
	int rc;

	reader_reset(r);
	if (!ops)
		return sim_errorf(err, SIM_E_INPUT, "unknown trace format '%s'", format);
	opts_for(opts, r, &o);
	if (ops->open_src && !strcmp(path, "-")) {
		struct trace_src *src = malloc(sizeof(*src));
		if (!src)
			return sim_errorf(err, SIM_E_NOMEM, "out of memory");
		rc = trace_src_open(src, path, TRACE_SRC_BUF, err);
		if (!rc) {
			rc = ops->open_src(src, &o, &r->state, err);
			if (rc)
				trace_src_close(src);
		}
		free(src);
	} else {
		rc = ops->open(path, &o, &r->state, err);
	}
	if (rc)
		return rc;
	return reader_opened(r, ops, &o, path, err);
}

int trace_open_mem_auto(const void *buf, size_t len, const char *name, const struct trace_opts *opts,
			struct trace_reader *r, struct sim_error *err)
{
	struct trace_opts o;
	int rc;

	reader_reset(r);
	opts_for(opts, r, &o);
	int zkind = trace_zkind_of(buf, len);
	if (zkind != TRACE_Z_NONE) {
		/* Compressed memory (fuzzing the decompression path): stream it. */
		struct trace_src *src = malloc(sizeof(*src));
		if (!src)
			return sim_errorf(err, SIM_E_NOMEM, "out of memory");
		rc = trace_src_open_mem_z(src, buf, len, name, err);
		long n = rc ? rc : trace_src_fill(src, TRACE_PROBE_BYTES, err);
		if (n < 0) {
			trace_src_close(src);
			free(src);
			return (int)n;
		}
		const struct trace_reader_ops *ops = detect(src->buf + src->pos, (size_t)n);
		if (!ops || !ops->open_src) {
			rc = ops ? sim_errorf(err, SIM_E_INPUT, "%s: the %s reader reads uncompressed input only",
					      name, ops->name)
				 : unknown_format(name, zkind, err);
			trace_src_close(src);
			free(src);
			return rc;
		}
		rc = ops->open_src(src, &o, &r->state, err);
		if (rc)
			trace_src_close(src);
		free(src);
		return rc ? rc : reader_opened(r, ops, &o, name, err);
	}
	const struct trace_reader_ops *ops =
		detect(buf, len < TRACE_PROBE_BYTES ? len : TRACE_PROBE_BYTES);
	if (!ops)
		return unknown_format(name, TRACE_Z_NONE, err);
	rc = ops->open_mem(buf, len, name, &o, &r->state, err);
	if (rc)
		return rc;
	return reader_opened(r, ops, &o, name, err);
}

/* --max-gap on the records handed out: a forward step of more than max_ns
 * past the latest time so far is compressed to max_ns (this and every
 * later record move back by the excess) or ends the trace (true). */
static bool gap_apply(struct trace_reader *r, struct trace_rec *rec)
{
	struct trace_diag *d = &r->diag;
	int64_t t = rec->time_ns;
	if (!r->gap_have) {
		r->gap_have = true;
		r->gap_first = r->gap_last = t;
	} else if (t > r->gap_last) {
		/* in 128 bits: recorded times may lie far apart */
		__int128 step = (__int128)t - r->gap_last;
		if (step > r->gap.max_ns) {
			int64_t excess = step - r->gap.max_ns > INT64_MAX ? INT64_MAX
									  : (int64_t)(step - r->gap.max_ns);
			d->gaps++;
			int64_t len = step > INT64_MAX ? INT64_MAX : (int64_t)step;
			if (len > d->max_gap_ns)
				d->max_gap_ns = len;
			if (r->gap.mode == TRACE_GAP_CUT) {
				d->gap_cut = true;
				d->gap_cut_at_ns = r->gap_last - r->gap_first;
				r->gap_done = true;
				return true;
			}
			r->gap_shift = excess > INT64_MAX - r->gap_shift ? INT64_MAX : r->gap_shift + excess;
			d->gap_removed_ns = r->gap_shift;
		}
		r->gap_last = t;
	}
	rec->time_ns = t - r->gap_shift;
	return false;
}

int trace_next(struct trace_reader *r, struct trace_rec *rec, struct sim_error *err)
{
	struct trace_diag *d = &r->diag;
	int rc;

	if (r->gap_done)
		return 0;
	for (;;) {
		rc = r->ops->next(r->state, rec, err);
		if (rc == 0 && r->segment > d->segments)
			return sim_errorf(err, SIM_E_INPUT, "capture segment %u asked for: the trace has %u "
					  "(cut at steps between records longer than %.9g s)", r->segment,
					  d->segments, (double)r->segment_gap_ns / 1e9);
		if (rc != 1)
			return rc;
		if (r->segment) {
			uint32_t seg = segment_of(r, rec);
			if (seg < r->segment) {
				d->outside_segment++;
				continue;
			}
			if (seg > r->segment) {
				d->segment_done = true;
				r->gap_done = true;
				return 0;
			}
		}
		if (outside_window(r, rec)) {
			d->outside_window++;
			continue;
		}
		if (r->filter) {
			int keep = trace_filter_pass(r->filter, rec, d, err);
			if (keep < 0)
				return keep;
			if (!keep)
				continue;
		}
		break;
	}
	if (r->gap.max_ns && gap_apply(r, rec))
		return 0;
	if (d->events) {
		/* in 128 bits: any two recorded times have a difference */
		__int128 step = (__int128)rec->time_ns - d->last_ns;
		int64_t mag = step < 0 ? (-step > INT64_MAX ? INT64_MAX : (int64_t)-step)
				       : (step > INT64_MAX ? INT64_MAX : (int64_t)step);
		if (step < 0) {
			d->backwards++;
			if (mag > d->max_backwards_ns)
				d->max_backwards_ns = mag;
		} else if (mag > TRACE_CLOCK_JUMP_NS) {
			d->jumps++;
			if (mag > d->max_jump_ns)
				d->max_jump_ns = mag;
		}
	}
	d->events++;
	d->last_ns = rec->time_ns;
	if (rec->time_ns < d->min_ns)
		d->min_ns = rec->time_ns;
	if (rec->time_ns > d->max_ns)
		d->max_ns = rec->time_ns;
	return 1;
}

int trace_diag_print(const struct trace_diag *d, const char *prefix, FILE *f)
{
	int n = 0;

	for (unsigned i = 0; i < d->nnotes; i++, n++)
		fprintf(f, "mobisim: warning: %s\n", d->notes[i]);
	if (d->notes_total > d->nnotes) {
		fprintf(f, "mobisim: warning: %s: %llu more warnings like these\n", prefix,
			(unsigned long long)(d->notes_total - d->nnotes));
		n++;
	}
	if (d->backwards) {
		fprintf(f, "mobisim: warning: %s: time goes backwards %llu times (by up to %.9f s)\n",
			prefix, (unsigned long long)d->backwards, (double)d->max_backwards_ns / 1e9);
		n++;
	}
	if (d->jumps) {
		fprintf(f, "mobisim: warning: %s: %llu gaps longer than %lld s between consecutive events "
			   "(largest %.0f s): %s\n", prefix,
			(unsigned long long)d->jumps, (long long)(TRACE_CLOCK_JUMP_NS / 1000000000LL),
			(double)d->max_jump_ns / 1e9, trace_jump_guess(d->format));
		n++;
	}
	if (trace_filter_kept_nothing(d)) {
		fprintf(f, "mobisim: warning: %s: the process filter (%s) matched none of the %llu "
			   "requests: nothing kept (the names and ids the trace holds: `mobisim trace "
			   "stat %s`)\n", prefix, d->filter, (unsigned long long)d->dropped_requests, prefix);
		n++;
	}
	return n;
}

const char *trace_jump_guess(const char *format)
{
	const struct trace_reader_ops *ops = format ? trace_reader_find(format) : NULL;
	if (ops && ops->cpus)
		return "a clock offset between CPUs, or a pause in the recording? (--max-gap, a "
		       "replay's workload.max_gap, compresses or cuts such gaps)";
	return "a pause in the recording, or traces joined end to end? (--max-gap, a replay's "
	       "workload.max_gap, compresses or cuts such gaps)";
}

void trace_close(struct trace_reader *r)
{
	if (r->ops && r->state)
		r->ops->close(r->state);
	trace_filter_free(r->filter);
	r->filter = NULL;
	r->ops = NULL;
	r->state = NULL;
}
