/* Launch profiles and the per-app LBA-to-extent tree (see launchprof.h).
 * The tree follows FAST (USENIX FAST'11 §4): the block trace gives LBAs,
 * the prefetcher needs (file, offset) for posix_fadvise, so every extent
 * of every file the app opened is put in a red-black tree keyed by its
 * first sector.
 */
#include "models/launch/launchprof.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "models/stack/stack.h"
#include "sim/results.h"

#define LPROF_SECTOR 512u
#define LPROF_PAGE 4096u

/* ------------------------------------------------------------ records */

struct lprof_app *lprof_app_get(struct lprof *pr, const char *name)
{
	for (size_t i = 0; i < pr->napps; i++)
		if (strcmp(pr->apps[i]->name, name) == 0)
			return pr->apps[i];
	if (pr->napps == pr->cap) {
		size_t cap = pr->cap ? pr->cap * 2 : 8;
		struct lprof_app **n = realloc(pr->apps, cap * sizeof(*n));
		if (!n)
			return NULL;
		pr->apps = n;
		pr->cap = cap;
	}
	struct lprof_app *a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->name = strdup(name);
	if (!a->name) {
		free(a);
		return NULL;
	}
	pr->apps[pr->napps++] = a;
	return a;
}

const struct lprof_app *lprof_find(const struct lprof *pr, const char *name)
{
	for (size_t i = 0; i < pr->napps; i++)
		if (strcmp(pr->apps[i]->name, name) == 0)
			return pr->apps[i];
	return NULL;
}

int lprof_push(struct lprof_app *a, const struct lprof_piece *pc)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 64;
		struct lprof_piece *n = realloc(a->p, cap * sizeof(*n));
		if (!n)
			return SIM_E_NOMEM;
		a->p = n;
		a->cap = cap;
	}
	a->p[a->n++] = *pc;
	if (pc->seq + 1 > a->nreq)
		a->nreq = pc->seq + 1;
	return 0;
}

void lprof_app_clear(struct lprof_app *a)
{
	a->n = 0;
	a->nreq = 0;
}

int lprof_check_app(const struct lprof_app *a, const char *path, struct sim_error *err)
{
	if (!a || a->unresolved == 0)
		return 0;
	return sim_errorf(err, SIM_E_INPUT,
			  "%s:%d: file '%s' of app %s does not exist in this scenario (%u pieces; "
			  "profile recorded on another workload?)",
			  path, a->missing_line, a->missing_file ? a->missing_file : "?", a->name,
			  a->unresolved);
}

void lprof_free(struct lprof *pr)
{
	for (size_t i = 0; i < pr->napps; i++) {
		free(pr->apps[i]->missing_file);
		free(pr->apps[i]->name);
		free(pr->apps[i]->p);
		free(pr->apps[i]);
	}
	free(pr->apps);
	memset(pr, 0, sizeof(*pr));
}

/* --------------------------------------------------------------- file */

int lprof_save(const struct lprof *pr, const char *path, struct sim_error *err)
{
	/* the profile's directory (one level, e.g. out/) is created if absent */
	char *dir = strdup(path);
	if (!dir)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = 0;
		(void)mkdir(dir, 0777);
	}
	free(dir);
	/* an O_EXCL temporary renamed into place (sim/results.h) */
	struct results_out *out;
	int rc = results_out_open(path, &out, err);
	if (rc)
		return rc;
	FILE *f = results_out_file(out);
	fprintf(f, "# mobisim launch profile 1\n# app\tseq\tkind\tfile\toff_bytes\tlen_bytes\tlba\n");
	for (size_t i = 0; i < pr->napps; i++) {
		const struct lprof_app *a = pr->apps[i];
		for (size_t k = 0; k < a->n; k++) {
			const struct lprof_piece *p = &a->p[k];
			fprintf(f, "%s\t%" PRIu32 "\t%s\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n",
				a->name, p->seq, p->kind == LPROF_META ? "meta" : "data",
				stack_file_name(p->file), p->off, p->len, p->lba);
		}
	}
	return results_out_commit(out, err);
}

static int parse_u64(const char *s, uint64_t *out)
{
	if (!s || !*s)
		return -1;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || s[0] == '-')
		return -1;
	*out = v;
	return 0;
}

/* A loaded piece at the file's current layout. The piece was one run of
 * sectors when it was recorded; in this run the file may lie elsewhere and
 * in other pieces (another seed places files differently), so it becomes
 * one piece per run of contiguous sectors here, as FAST's fadvise of
 * (file, offset) reads wherever the file is now. Pages past the file's end
 * keep the recorded sectors. */
static int push_resolved(struct lprof_app *a, struct stack_file *sf, uint64_t off, uint64_t len,
			 uint64_t lba, uint32_t seq, uint8_t kind)
{
	struct lprof_piece p = { .file = sf, .off = off, .len = len, .seq = seq, .kind = kind };
	if (stack_file_is_blockdev(sf)) {
		p.lba = off / LPROF_SECTOR;
		return lprof_push(a, &p);
	}
	uint64_t end = off + len, cur = off;
	while (cur < end) {
		uint64_t page = cur & ~(uint64_t)(LPROF_PAGE - 1), next = page + LPROF_PAGE;
		uint64_t first = stack_file_lba(sf, cur);
		if (first == UINT64_MAX) {
			p.off = cur;
			p.len = end - cur;
			p.lba = lba + (cur - off) / LPROF_SECTOR;
			return lprof_push(a, &p);
		}
		while (next < end && stack_file_lba(sf, next) == first + (next - page) / LPROF_SECTOR)
			next += LPROF_PAGE;
		if (next > end)
			next = end;
		p.off = cur;
		p.len = next - cur;
		p.lba = first;
		if (lprof_push(a, &p))
			return SIM_E_NOMEM;
		cur = next;
	}
	return 0;
}

int lprof_load(struct lprof *pr, const char *path, struct stack *s, struct sim_error *err)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return sim_errorf(err, SIM_E_IO, "%s: cannot read: %s", path, strerror(errno));
	char line[4096];
	int lineno = 0, rc = 0;
	struct lprof_app *last = NULL;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		size_t l = strlen(line);
		if (l == sizeof(line) - 1 && line[l - 1] != '\n') {
			rc = sim_errorf(err, SIM_E_INPUT, "%s:%d: line too long", path, lineno);
			break;
		}
		while (l > 0 && (line[l - 1] == '\n' || line[l - 1] == '\r'))
			line[--l] = 0;
		if (l == 0 || line[0] == '#')
			continue;
		char *fld[8];
		int nf = 0;
		char *save = NULL;
		for (char *t = strtok_r(line, "\t", &save); t && nf < 8; t = strtok_r(NULL, "\t", &save))
			fld[nf++] = t;
		if (nf != 7) {
			rc = sim_errorf(err, SIM_E_INPUT,
					"%s:%d: expected 7 tab-separated fields (app seq kind file "
					"off_bytes len_bytes lba), got %d",
					path, lineno, nf);
			break;
		}
		uint64_t seq, off, len, lba;
		if (parse_u64(fld[1], &seq) || seq > UINT32_MAX || parse_u64(fld[4], &off) ||
		    parse_u64(fld[5], &len) || parse_u64(fld[6], &lba) || len == 0) {
			rc = sim_errorf(err, SIM_E_INPUT,
					"%s:%d: seq, off_bytes, len_bytes (> 0) and lba must be "
					"unsigned integers",
					path, lineno);
			break;
		}
		uint8_t kind;
		if (strcmp(fld[2], "data") == 0)
			kind = LPROF_DATA;
		else if (strcmp(fld[2], "meta") == 0)
			kind = LPROF_META;
		else {
			rc = sim_errorf(err, SIM_E_INPUT, "%s:%d: kind must be data or meta, got '%s'",
					path, lineno, fld[2]);
			break;
		}
		if (!last || strcmp(last->name, fld[0]) != 0) {
			last = lprof_app_get(pr, fld[0]);
			if (!last) {
				rc = sim_errorf(err, SIM_E_NOMEM, "out of memory");
				break;
			}
		}
		struct stack_file *sf = stack_file_find(s, fld[3]);
		if (!sf) {
			if (last->unresolved++ == 0) {
				last->missing_line = lineno;
				last->missing_file = strdup(fld[3]);
				if (!last->missing_file) {
					rc = sim_errorf(err, SIM_E_NOMEM, "out of memory");
					break;
				}
			}
			continue;
		}
		if (push_resolved(last, sf, off, len, lba, (uint32_t)seq, kind)) {
			rc = sim_errorf(err, SIM_E_NOMEM, "out of memory");
			break;
		}
	}
	if (!rc && ferror(f))
		rc = sim_errorf(err, SIM_E_IO, "%s: read error", path);
	fclose(f);
	return rc;
}

/* --------------------------------------------------------------- tree */

struct lprof_node {
	struct rb_node rb;
	uint64_t lba, sectors;
	struct stack_file *file;
	uint64_t off;
};

void lprof_map_init(struct lprof_map *m)
{
	memset(m, 0, sizeof(*m));
	m->root = RB_ROOT;
}

bool lprof_map_has_file(const struct lprof_map *m, const struct stack_file *f)
{
	for (size_t i = 0; i < m->nfiles; i++)
		if (m->files[i] == f)
			return true;
	return false;
}

int lprof_map_add_file(struct lprof_map *m, struct stack_file *f)
{
	if (lprof_map_has_file(m, f))
		return 0;
	if (m->nfiles == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 16;
		struct stack_file **n = realloc(m->files, cap * sizeof(*n));
		if (!n)
			return SIM_E_NOMEM;
		m->files = n;
		m->cap = cap;
	}
	m->files[m->nfiles++] = f;
	uint32_t ne = stack_file_extent_count(f);
	for (uint32_t i = 0; i < ne; i++) {
		uint64_t page, lba, np;
		stack_file_extent(f, i, &page, &lba, &np);
		struct lprof_node *x = malloc(sizeof(*x));
		if (!x)
			return SIM_E_NOMEM;
		x->lba = lba;
		x->sectors = np * (4096 / LPROF_SECTOR);
		x->file = f;
		x->off = page * 4096;
		struct rb_node **link = &m->root.node, *parent = NULL;
		while (*link) {
			parent = *link;
			struct lprof_node *o = rb_entry(parent, struct lprof_node, rb);
			link = x->lba < o->lba ? &parent->left : &parent->right;
		}
		rb_link_node(&x->rb, parent, link);
		rb_insert_color(&x->rb, &m->root);
		m->nodes++;
	}
	return 0;
}

bool lprof_map_lookup(const struct lprof_map *m, uint64_t lba, struct stack_file **f,
		      uint64_t *off, uint64_t *run, uint64_t *next_lba)
{
	struct rb_node *n = m->root.node;
	struct lprof_node *best = NULL, *after = NULL;
	while (n) {
		struct lprof_node *x = rb_entry(n, struct lprof_node, rb);
		if (x->lba <= lba) {
			best = x;
			n = n->right;
		} else {
			after = x;
			n = n->left;
		}
	}
	if (best && lba < best->lba + best->sectors) {
		*f = best->file;
		*off = best->off + (lba - best->lba) * LPROF_SECTOR;
		*run = best->lba + best->sectors - lba;
		return true;
	}
	*next_lba = after ? after->lba : UINT64_MAX;
	return false;
}

void lprof_map_free(struct lprof_map *m)
{
	struct rb_node *n;
	while ((n = m->root.node) != NULL) {
		rb_erase(n, &m->root);
		free(rb_entry(n, struct lprof_node, rb));
	}
	free(m->files);
	lprof_map_init(m);
}

int lprof_record_request(struct lprof_app *a, const struct lprof_map *m, struct stack_file *bdev,
			 uint64_t sector, uint64_t nr_sectors, bool meta)
{
	uint32_t seq = a->nreq;
	uint64_t lba = sector, end = sector + nr_sectors;
	while (lba < end) {
		struct lprof_piece p = { .lba = lba, .seq = seq };
		struct stack_file *f = NULL;
		uint64_t off = 0, run = 0, next = UINT64_MAX;
		if (!meta && lprof_map_lookup(m, lba, &f, &off, &run, &next)) {
			p.file = f;
			p.off = off;
			p.len = (run < end - lba ? run : end - lba) * LPROF_SECTOR;
			p.kind = LPROF_DATA;
		} else {
			uint64_t stop = meta ? end : (next < end ? next : end);
			p.file = bdev;
			p.off = lba * LPROF_SECTOR;
			p.len = (stop - lba) * LPROF_SECTOR;
			p.kind = meta ? LPROF_META : LPROF_DATA;
		}
		if (lprof_push(a, &p))
			return SIM_E_NOMEM;
		lba += p.len / LPROF_SECTOR;
	}
	a->nreq = seq + 1;
	return 0;
}
