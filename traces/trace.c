/* Common trace code: the fixed input buffer every reader streams through,
 * the reader registry and format detection, and the blkparse vocabulary
 * (action letters, rwbs strings) shared by readers and the writer.
 *
 * Letters and rwbs order follow blktrace 1.2.0 blkparse.c / blkparse_fmt.c
 * (fill_rwbs: [F]lush, D|W|R|N, [F]ua, [A]head, [S]ync, [M]eta).
 */
#include "traces/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "models/block/request.h"
#include "traces/trace_int.h"

/* ---- input buffer ----------------------------------------------------- */

int trace_src_open(struct trace_src *s, const char *path, size_t bufsize, struct sim_error *err)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", path);
	s->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0)
		return sim_errorf(err, SIM_E_IO, "%s: %s", path, strerror(errno));
	s->buf = malloc(bufsize);
	if (!s->buf) {
		close(s->fd);
		s->fd = -1;
		return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", path);
	}
	s->cap = bufsize;
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

void trace_src_close(struct trace_src *s)
{
	if (s->fd >= 0) {
		close(s->fd);
		free(s->buf);
	}
	s->fd = -1;
	s->buf = NULL;
}

long trace_src_fill(struct trace_src *s, size_t n, struct sim_error *err)
{
	if (s->len - s->pos >= n || s->eof)
		return (long)(s->len - s->pos < n ? s->len - s->pos : n);
	/* Compact, then read until n bytes or end of file. */
	if (s->pos) {
		memmove(s->buf, s->buf + s->pos, s->len - s->pos);
		s->base += s->pos;
		s->len -= s->pos;
		s->pos = 0;
	}
	while (s->len < n && !s->eof) {
		ssize_t r = read(s->fd, s->buf + s->len, s->cap - s->len);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return sim_errorf(err, SIM_E_IO, "%s: %s", s->name, strerror(errno));
		}
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
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;

	if (fd < 0)
		return -1;
	while (got < n) {
		ssize_t r = read(fd, buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	return (long)got;
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

int trace_open_auto(const char *path, const struct trace_opts *opts, struct trace_reader *r,
		    struct sim_error *err)
{
	uint8_t buf[TRACE_PROBE_BYTES];
	struct stat st;
	const char *probe_path = path;
	char first[4096];
	long n;

	r->ops = NULL;
	r->state = NULL;
	/* A per-CPU set given by its base name: probe its first file. */
	if (stat(path, &st) < 0) {
		snprintf(first, sizeof(first), "%s.blktrace.0", path);
		if (stat(first, &st) < 0)
			return sim_errorf(err, SIM_E_IO, "%s: %s", path, strerror(errno));
		probe_path = first;
	}
	if (S_ISDIR(st.st_mode))
		return sim_errorf(err, SIM_E_INPUT, "%s: is a directory, not a trace", probe_path);
	n = trace_src_peek_file(probe_path, buf, sizeof(buf));
	if (n < 0)
		return sim_errorf(err, SIM_E_IO, "%s: %s", probe_path, strerror(errno));
	const struct trace_reader_ops *ops = detect(buf, (size_t)n);
	if (!ops)
		return sim_errorf(err, SIM_E_INPUT, "%s: byte offset 0: not a known trace format "
				  "(blktrace, blkparse text, DiskSim/MQSim ASCII, ftrace text)", path);
	int rc = ops->open(path, opts, &r->state, err);
	if (rc)
		return rc;
	r->ops = ops;
	return 0;
}

int trace_open_mem_auto(const void *buf, size_t len, const char *name, const struct trace_opts *opts,
			struct trace_reader *r, struct sim_error *err)
{
	const struct trace_reader_ops *ops =
		detect(buf, len < TRACE_PROBE_BYTES ? len : TRACE_PROBE_BYTES);

	r->ops = NULL;
	r->state = NULL;
	if (!ops)
		return sim_errorf(err, SIM_E_INPUT, "%s: byte offset 0: not a known trace format "
				  "(blktrace, blkparse text, DiskSim/MQSim ASCII, ftrace text)", name);
	int rc = ops->open_mem(buf, len, name, opts, &r->state, err);
	if (rc)
		return rc;
	r->ops = ops;
	return 0;
}

void trace_close(struct trace_reader *r)
{
	if (r->ops && r->state)
		r->ops->close(r->state);
	r->ops = NULL;
	r->state = NULL;
}
