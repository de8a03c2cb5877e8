/* Policy registry, plugin loading and the composed policy set (the
 * interface is models/policies/policy.h; docs/architecture.md).
 *
 * The registry starts with the built-in table below and grows with what
 * plugins register. A policy set is an ordered list of instances; it owns
 * the registry it was built from, because the ops of a plugin live in the
 * plugin's mapping, which is closed only after every instance is gone.
 * The set sits behind the stack's one struct stack_hooks slot and fans
 * each hook out to its policies in list order.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "models/device/device.h"
#include "models/policies/policy.h"
#include "models/policies/policy_guard.h"
#include "models/stack/stack.h"
#include "sim/sim.h"

/* ------------------------------------------------------ built-in table */

/* One line per policy file in models/policies/ (docs/architecture.md §6). */
extern const struct policy_ops expc_policy_ops;   /* models/policies/expc.c */
extern const struct policy_ops boost_policy_ops;  /* models/policies/boost.c */
extern const struct policy_ops jprio_policy_ops;  /* models/policies/jprio.c */
extern const struct policy_ops prefetch_policy_ops; /* models/policies/prefetch.c */
extern const struct policy_ops padding_policy_ops;  /* models/policies/padding.c */
extern const struct policy_ops fgcfq_policy_ops;    /* models/policies/fgcfq.c */
extern const struct policy_ops fasttrack_policy_ops; /* models/policies/fasttrack.c */

static const struct policy_ops *const policy_table[] = {
	&expc_policy_ops,
	&boost_policy_ops,
	&jprio_policy_ops,
	&prefetch_policy_ops,
	&padding_policy_ops,
	&fgcfq_policy_ops,
	&fasttrack_policy_ops,
	NULL,
};

const struct policy_ops *const *policy_builtin_registry(void)
{
	return policy_table;
}

/* ----------------------------------------------------------- registry */

struct policy_registry {
	const struct policy_ops **ops;
	char **origin;             /* per ops: the plugin's path, NULL for a built-in */
	size_t n, cap;
	void **handles;            /* dlopen handles, closed in reverse order */
	size_t nhandles, cap_handles;
	bool loading_plugin;       /* registrations now come from a plugin */
	const char *loading_path;  /* ... this one */
	struct sim_error err;      /* why the last policy_registry_add failed */
};

static bool policy_name_ok(const char *name)
{
	if (!name || !*name)
		return false;
	for (const char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-' || *c == '_'))
			return false;
	return strcmp(name, "baseline") != 0;
}

int policy_registry_add(struct policy_registry *r, const struct policy_ops *ops)
{
	if (!r || !ops)
		return SIM_E_INPUT;
	if (!policy_name_ok(ops->name))
		return sim_errorf(&r->err, SIM_E_INPUT,
				  "policy name '%s' is not usable (lower-case letters, digits, - and _; "
				  "not 'baseline')", ops->name ? ops->name : "(null)");
	if (r->loading_plugin && ops->abi != MOBISIM_POLICY_ABI)
		return sim_errorf(&r->err, SIM_E_INPUT,
				  "policy '%s' was built for policy ABI %d, this mobisim has %d",
				  ops->name, ops->abi, MOBISIM_POLICY_ABI);
	if (policy_registry_find(r, ops->name))
		return sim_errorf(&r->err, SIM_E_INPUT, "policy '%s' is already registered", ops->name);
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16;
		const struct policy_ops **o = realloc(r->ops, cap * sizeof(*o));
		if (!o)
			return sim_errorf(&r->err, SIM_E_NOMEM, "out of memory");
		r->ops = o;
		char **org = realloc(r->origin, cap * sizeof(*org));
		if (!org)
			return sim_errorf(&r->err, SIM_E_NOMEM, "out of memory");
		r->origin = org;
		r->cap = cap;
	}
	r->origin[r->n] = NULL;
	if (r->loading_plugin && !(r->origin[r->n] = strdup(r->loading_path)))
		return sim_errorf(&r->err, SIM_E_NOMEM, "out of memory");
	r->ops[r->n++] = ops;
	return 0;
}

struct policy_registry *policy_registry_new(void)
{
	struct policy_registry *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	for (const struct policy_ops *const *p = policy_table; *p; p++)
		if (policy_registry_add(r, *p)) {
			policy_registry_free(r);
			return NULL;
		}
	return r;
}

void policy_registry_free(struct policy_registry *r)
{
	if (!r)
		return;
	while (r->nhandles > 0)
		dlclose(r->handles[--r->nhandles]);
	free(r->handles);
	for (size_t i = 0; i < r->n; i++)
		free(r->origin[i]);
	free(r->origin);
	free(r->ops);
	free(r);
}

const struct policy_ops *policy_registry_find(const struct policy_registry *r, const char *name)
{
	for (size_t i = 0; r && i < r->n; i++)
		if (strcmp(r->ops[i]->name, name) == 0)
			return r->ops[i];
	return NULL;
}

size_t policy_registry_count(const struct policy_registry *r) { return r ? r->n : 0; }

const struct policy_ops *policy_registry_at(const struct policy_registry *r, size_t i)
{
	return r && i < r->n ? r->ops[i] : NULL;
}

/* The plugin path ops came from, NULL for a built-in. */
static const char *registry_origin(const struct policy_registry *r, const struct policy_ops *ops)
{
	for (size_t i = 0; r && i < r->n; i++)
		if (r->ops[i] == ops)
			return r->origin[i];
	return NULL;
}

typedef int (*policy_register_fn)(struct policy_registry *r);

int policy_registry_load_plugin(struct policy_registry *r, const char *path, struct sim_error *err)
{
	if (access(path, R_OK) != 0)
		return sim_errorf(err, SIM_E_INPUT, "plugin '%s': no such file (or not readable)", path);
	/* A name without a slash would make dlopen search the library path. */
	char buf[4096];
	if (!strchr(path, '/')) {
		snprintf(buf, sizeof(buf), "./%s", path);
	} else {
		snprintf(buf, sizeof(buf), "%s", path);
	}
	if (r->nhandles == r->cap_handles) {
		size_t cap = r->cap_handles ? r->cap_handles * 2 : 4;
		void **h = realloc(r->handles, cap * sizeof(*h));
		if (!h)
			return sim_errorf(err, SIM_E_NOMEM, "out of memory");
		r->handles = h;
		r->cap_handles = cap;
	}
	dlerror();
	void *h = dlopen(buf, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		return sim_errorf(err, SIM_E_INPUT, "plugin '%s': cannot load: %s", path,
				  e ? e : "unknown error");
	}
	/* Converting the symbol to a function pointer through a union keeps
	 * -Wpedantic quiet (POSIX guarantees it works). */
	union { void *obj; policy_register_fn fn; } sym;
	dlerror();
	sym.obj = dlsym(h, "mobisim_policy_register");
	if (!sym.obj) {
		dlclose(h);
		return sim_errorf(err, SIM_E_INPUT,
				  "plugin '%s': no symbol mobisim_policy_register (is it a mobisim "
				  "policy plugin?)", path);
	}
	r->handles[r->nhandles++] = h;
	size_t before = r->n;
	sim_error_clear(&r->err);
	r->loading_plugin = true;
	r->loading_path = path;
	if (policy_guard_arm())
		return sim_errorf(err, SIM_E_INPUT, "plugin '%s': MOBISIM_PLUGIN_TIMEOUT is not usable",
				  path);
	policy_guard_enter("(registration)", path, "mobisim_policy_register");
	int rc = sym.fn(r);
	policy_guard_leave();
	r->loading_plugin = false;
	if (rc || r->err.code) {
		const char *why = r->err.code ? r->err.msg : "mobisim_policy_register failed";
		return sim_errorf(err, SIM_E_INPUT, "plugin '%s': %s", path, why);
	}
	if (r->n == before)
		return sim_errorf(err, SIM_E_INPUT, "plugin '%s': registered no policy", path);
	return 0;
}

int policy_registry_load_plugins(struct policy_registry *r, const char *const *paths,
				 struct sim_error *err)
{
	for (size_t i = 0; paths && paths[i]; i++) {
		int rc = policy_registry_load_plugin(r, paths[i], err);
		if (rc)
			return rc;
	}
	return 0;
}

/* ------------------------------------------------------- working sets */

void policy_ws_init(struct policy_working_set *ws, struct device *dev)
{
	memset(ws, 0, sizeof(*ws));
	ws->device = dev;
	ws->idle_latency_ns = dev && dev->ops ? dev->ops->idle_latency_ns : NULL;
}

int policy_ws_push(struct policy_working_set *ws, const struct policy_chunk *c,
		   struct sim_error *err)
{
	if (ws->n == ws->cap) {
		size_t cap = ws->cap ? ws->cap * 2 : 64;
		struct policy_chunk *nc = realloc(ws->chunks, cap * sizeof(*nc));
		if (!nc)
			return sim_errorf(err, SIM_E_NOMEM, "out of memory");
		ws->chunks = nc;
		ws->cap = cap;
	}
	ws->chunks[ws->n++] = *c;
	return 0;
}

void policy_ws_free(struct policy_working_set *ws)
{
	free(ws->chunks);
	ws->chunks = NULL;
	ws->n = ws->cap = 0;
}

int64_t policy_ws_latency_ns(const struct policy_working_set *ws, bool write, uint64_t bytes)
{
	if (!ws->idle_latency_ns || !ws->device)
		return -1;
	return ws->idle_latency_ns(ws->device, write, bytes);
}

/* -------------------------------------------------------------- parse */

int policy_parse_list(const char *spec, char *buf, size_t buflen, const char **names,
		      size_t max, size_t *n, struct sim_error *err)
{
	*n = 0;
	if (strlen(spec) >= buflen)
		return sim_errorf(err, SIM_E_INPUT, "policy list '%s' is too long", spec);
	strcpy(buf, spec);
	char *p = buf;
	for (;;) {
		char *comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		char *end = p + strlen(p);
		while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
			*--end = '\0';
		if (*p == '\0') {
			if (comma || *n > 0)
				return sim_errorf(err, SIM_E_INPUT, "policy list '%s' has an empty item",
						  spec);
		} else if (strcmp(p, "baseline") == 0) {
			if (comma || *n > 0)
				return sim_errorf(err, SIM_E_INPUT,
						  "policy list '%s': 'baseline' means no policy and "
						  "cannot be combined", spec);
		} else {
			if (*n == max)
				return sim_errorf(err, SIM_E_INPUT, "policy list '%s' has more than %zu "
						  "policies", spec, max);
			names[(*n)++] = p;
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	return 0;
}

/* ----------------------------------------------------------------- set */


struct policy_set {
	struct sim *sim;
	struct policy_registry *reg;
	struct policy pol[POLICY_SET_MAX];
	const char *plugin[POLICY_SET_MAX]; /* each one's plugin path, NULL: built in */
	size_t n;
	bool hooked;               /* our trampolines are in sim->stack's hooks */
};

/* A call into policy i: a plugin's runs under the guard (its name is what a
 * crash or a loop reports). */
#define PS_CALL(ps, i, hook, call)                                                    \
	do {                                                                          \
		if ((ps)->plugin[i]) {                                                \
			policy_guard_enter((ps)->pol[i].ops->name, (ps)->plugin[i], hook); \
			call;                                                         \
			policy_guard_leave();                                         \
		} else {                                                              \
			call;                                                         \
		}                                                                     \
	} while (0)

/* A hook's value no policy may return: the run ends naming the policy (a
 * plugin's fault is the user's input, a built-in's is mobisim's). */
static void ps_bad_value(struct policy_set *ps, size_t i, const char *what)
{
	sim_fail(ps->sim, ps->plugin[i] ? SIM_E_INPUT : SIM_E_RUNTIME, "policy '%s'%s%s%s: %s",
		 ps->pol[i].ops->name, ps->plugin[i] ? " (plugin " : "",
		 ps->plugin[i] ? ps->plugin[i] : "", ps->plugin[i] ? ")" : "", what);
}

/* A setup call's failure: its code, and a message when it gave none. */
static int ps_failed(struct policy_set *ps, size_t i, const char *hook, int rc,
		     struct sim_error *err)
{
	if (rc < 0 && err->code)
		return rc;
	return sim_errorf(err, ps->plugin[i] ? SIM_E_INPUT : SIM_E_RUNTIME,
			  "policy '%s': %s failed (returned %d) without saying why",
			  ps->pol[i].ops->name, hook, rc);
}

static int64_t ps_may_insert(struct stack_task *t, void *ctx)
{
	struct policy_set *ps = ctx;
	int64_t best = 0;
	for (size_t i = 0; i < ps->n; i++) {
		struct policy *p = &ps->pol[i];
		if (p->ops->pagecache_may_insert) {
			int64_t d;
			PS_CALL(ps, i, "pagecache_may_insert", d = p->ops->pagecache_may_insert(p, t));
			if (d < 0 || d > SIM_TIME_MAX - sim_now(ps->sim)) {
				char what[128];
				snprintf(what, sizeof(what), "pagecache_may_insert returned a delay of %"
					 PRId64 " ns (0 or more, within the run's clock)", d);
				ps_bad_value(ps, i, what);
				d = 0;
			}
			if (d > best)
				best = d;
		}
	}
	return best;
}

static void ps_page_insert(struct stack_task *t, void *ctx)
{
	struct policy_set *ps = ctx;
	for (size_t i = 0; i < ps->n; i++)
		if (ps->pol[i].ops->on_page_insert)
			PS_CALL(ps, i, "on_page_insert", ps->pol[i].ops->on_page_insert(&ps->pol[i], t));
}

static void ps_wait_writeback(struct stack_task *t, uint64_t page_lba, void *ctx)
{
	struct policy_set *ps = ctx;
	for (size_t i = 0; i < ps->n; i++)
		if (ps->pol[i].ops->on_wait_writeback)
			PS_CALL(ps, i, "on_wait_writeback",
				ps->pol[i].ops->on_wait_writeback(&ps->pol[i], t, page_lba));
}

static void ps_classify(struct stack_task *t, struct bio *bio, void *ctx)
{
	struct policy_set *ps = ctx;
	for (size_t i = 0; i < ps->n; i++) {
		if (!ps->pol[i].ops->classify_request)
			continue;
		/* a policy may add request flags or retag (policy.h); what the
		 * bio is, where it goes and who hears of its end are not its */
		struct bio was = *bio;
		PS_CALL(ps, i, "classify_request", ps->pol[i].ops->classify_request(&ps->pol[i], t, bio));
		const uint32_t fixed = REQ_WRITE | REQ_FLUSH | REQ_DISCARD | REQ_DIRECT | REQ_PAGECACHE |
				       REQ_PCREAD | REQ_MMAP;
		if (bio->sector != was.sector || bio->nr_sectors != was.nr_sectors ||
		    bio->end_io != was.end_io || bio->private != was.private ||
		    bio->bi_next != was.bi_next || ((bio->flags ^ was.flags) & fixed) ||
		    (bio->flags & ~((REQ_MMAP << 1) - 1))) {
			ps_bad_value(ps, i, "classify_request changed a bio's sector, size, direction, "
					    "path or completion, or set an unknown flag (a policy may "
					    "only add priority flags and retag)");
			*bio = was;
		}
	}
}

static bool ps_reclaim_protect(const struct stack_file *f, struct stack_task *t, void *ctx)
{
	struct policy_set *ps = ctx;
	bool keep = false;
	for (size_t i = 0; i < ps->n; i++)
		if (ps->pol[i].ops->reclaim_protect) {
			bool k;
			PS_CALL(ps, i, "reclaim_protect", k = ps->pol[i].ops->reclaim_protect(&ps->pol[i], f, t));
			keep |= k;
		}
	return keep;
}

/* Install a trampoline only for hooks some policy has: a hook nobody
 * needs stays NULL, so the stack skips even the call. */
static void ps_install(struct policy_set *ps)
{
	if (!ps->sim->stack)
		return;
	bool may = false, ins = false, wb = false, cls = false, prot = false, local = true;
	for (size_t i = 0; i < ps->n; i++) {
		const struct policy_ops *o = ps->pol[i].ops;
		may |= o->pagecache_may_insert != NULL;
		ins |= o->on_page_insert != NULL;
		if ((o->pagecache_may_insert || o->on_page_insert) && ps->plugin[i])
			local = false;
		wb |= o->on_wait_writeback != NULL;
		cls |= o->classify_request != NULL;
		prot |= o->reclaim_protect != NULL;
	}
	if (!(may || ins || wb || cls || prot))
		return;
	struct stack_hooks *h = stack_hooks(ps->sim->stack);
	h->ctx = ps;
	h->pagecache_may_insert = may ? ps_may_insert : NULL;
	h->on_page_insert = ins ? ps_page_insert : NULL;
	h->insert_hooks_local = local;
	h->on_wait_writeback = wb ? ps_wait_writeback : NULL;
	h->classify_bio = cls ? ps_classify : NULL;
	h->reclaim_protect = prot ? ps_reclaim_protect : NULL;
	ps->hooked = true;
}

static bool node_is_null(const struct cfg_node *n)
{
	return n->kind == CFG_SCALAR && !n->quoted &&
	       (!n->value || !*n->value || strcmp(n->value, "~") == 0 || strcmp(n->value, "null") == 0);
}

/* Names of the set from the `policies:` node. */
static int ps_names(struct cfg_node *node, char *buf, size_t buflen, const char **names,
		    const struct cfg_node **where, size_t *n, struct sim_error *err)
{
	*n = 0;
	if (!node || node_is_null(node)) {
		if (node)
			cfg_mark_used(node, false);
		return 0;
	}
	cfg_mark_used(node, false);
	if (node->kind == CFG_SCALAR) {
		struct sim_error sub;
		if (policy_parse_list(node->value, buf, buflen, names, POLICY_SET_MAX, n, &sub))
			return cfg_errorf(err, node, "%s", sub.msg);
		for (size_t i = 0; i < *n; i++)
			where[i] = node;
		return 0;
	}
	if (node->kind != CFG_SEQ)
		return cfg_errorf(err, node, "expected a list of policy names or a string \"a,b\"");
	size_t used = 0;
	for (struct cfg_node *c = node->child; c; c = c->next) {
		cfg_mark_used(c, false);
		if (c->kind != CFG_SCALAR || !c->value || !*c->value)
			return cfg_errorf(err, c, "expected a policy name");
		if (strcmp(c->value, "baseline") == 0) {
			if (node->child->next)
				return cfg_errorf(err, c, "'baseline' means no policy and cannot be combined");
			continue;
		}
		if (*n == POLICY_SET_MAX)
			return cfg_errorf(err, c, "more than %d policies", POLICY_SET_MAX);
		size_t len = strlen(c->value) + 1;
		if (used + len > buflen)
			return cfg_errorf(err, c, "policy list too long");
		memcpy(buf + used, c->value, len);
		names[*n] = buf + used;
		where[*n] = c;
		used += len;
		(*n)++;
	}
	return 0;
}

/* Validate the section of a registered policy that is not in the set. */
static int ps_check_section(const struct policy_ops *o, struct cfg_node *sec, struct sim_error *err)
{
	if (sec->kind != CFG_MAP && !node_is_null(sec))
		return cfg_errorf(err, sec, "expected a map of %s tunables", o->name);
	cfg_mark_used(sec, false);
	if (!o->params || sec->kind != CFG_MAP)
		return 0;
	void *scratch = calloc(1, o->priv_size ? o->priv_size : 1);
	if (!scratch)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	int rc = cfg_apply(o->params, sec, scratch, err);
	free(scratch);
	return rc;
}

int policy_set_create(struct sim *sim, struct cfg_node *root, struct policy_registry *reg,
		      struct policy_set **out, struct sim_error *err)
{
	*out = NULL;
	if (!reg) {
		reg = policy_registry_new();
		if (!reg)
			return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	}
	struct policy_set *ps = calloc(1, sizeof(*ps));
	if (!ps) {
		policy_registry_free(reg);
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	}
	ps->sim = sim;
	ps->reg = reg;
	*out = ps;

	char buf[1024];
	const char *names[POLICY_SET_MAX];
	const struct cfg_node *where[POLICY_SET_MAX];
	size_t n;
	int rc = ps_names(root ? cfg_get(root, "policies") : NULL, buf, sizeof(buf), names, where, &n,
			  err);
	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++) {
		const struct policy_ops *o = policy_registry_find(reg, names[i]);
		if (!o) {
			struct cfg_suggest sg;
			char hint[160];
			cfg_suggest_init(&sg, names[i]);
			for (size_t k = 0; k < policy_registry_count(reg); k++)
				cfg_suggest_add(&sg, policy_registry_at(reg, k)->name);
			return cfg_errorf(err, where[i], "unknown policy '%s'%s (see `mobisim list policies`)",
					  names[i], cfg_suggest_hint(&sg, hint, sizeof(hint)));
		}
		for (size_t j = 0; j < i; j++)
			if (ps->pol[j].ops == o)
				return cfg_errorf(err, where[i], "policy '%s' is listed twice", names[i]);
		struct policy *p = &ps->pol[ps->n];
		p->ops = o;
		ps->plugin[ps->n] = registry_origin(reg, o);
		p->sim = sim;
		p->priv = calloc(1, o->priv_size ? o->priv_size : 1);
		if (!p->priv)
			return sim_errorf(err, SIM_E_NOMEM, "out of memory");
		ps->n++; /* from here on destroy frees priv */
		p->node = root ? cfg_get(root, o->name) : NULL;
		if (p->node) {
			if (p->node->kind != CFG_MAP && !node_is_null(p->node))
				return cfg_errorf(err, p->node, "expected a map of %s tunables", o->name);
			cfg_mark_used(p->node, false);
		}
		if (o->params) {
			rc = cfg_apply(o->params, p->node && p->node->kind == CFG_MAP ? p->node : NULL,
				       p->priv, err);
			if (rc)
				return rc;
		}
	}
	/* Tunables of policies not in this set: checked, not applied. */
	for (size_t i = 0; root && i < policy_registry_count(reg); i++) {
		const struct policy_ops *o = policy_registry_at(reg, i);
		struct cfg_node *sec = cfg_get(root, o->name);
		if (!sec || policy_set_find(ps, o->name))
			continue;
		rc = ps_check_section(o, sec, err);
		if (rc)
			return rc;
	}
	/* init in list order; a failed init leaves the set to be destroyed,
	 * which calls destroy only on the policies whose init ran. */
	for (size_t i = 0; i < ps->n; i++) {
		struct policy *p = &ps->pol[i];
		if (p->ops->init) {
			PS_CALL(ps, i, "init", rc = p->ops->init(p, sim, err));
			if (rc)
				rc = ps_failed(ps, i, "init", rc, err);
			if (rc) {
				/* free the rest without destroy hooks */
				for (size_t j = i; j < ps->n; j++) {
					free(ps->pol[j].priv);
					ps->pol[j].priv = NULL;
				}
				ps->n = i;
				return rc;
			}
		}
	}
	ps_install(ps);
	return 0;
}

int policy_set_create_with_plugins(struct sim *sim, struct cfg_node *root,
				   const char *const *paths, struct policy_set **out,
				   struct sim_error *err)
{
	*out = NULL;
	struct policy_registry *reg = policy_registry_new();
	if (!reg)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	int rc = policy_registry_load_plugins(reg, paths, err);
	if (rc) {
		policy_registry_free(reg);
		return rc;
	}
	return policy_set_create(sim, root, reg, out, err);
}

void policy_set_destroy(struct policy_set *ps)
{
	if (!ps)
		return;
	if (ps->hooked && ps->sim->stack) {
		struct stack_hooks *h = stack_hooks(ps->sim->stack);
		memset(h, 0, sizeof(*h));
	}
	for (size_t i = ps->n; i-- > 0;) {
		struct policy *p = &ps->pol[i];
		if (p->ops->destroy && p->priv)
			PS_CALL(ps, i, "destroy", p->ops->destroy(p));
		free(p->priv);
	}
	policy_registry_free(ps->reg);
	free(ps);
}

size_t policy_set_count(const struct policy_set *ps) { return ps ? ps->n : 0; }

struct policy *policy_set_at(struct policy_set *ps, size_t i)
{
	return ps && i < ps->n ? &ps->pol[i] : NULL;
}

struct policy *policy_set_find(struct policy_set *ps, const char *name)
{
	for (size_t i = 0; ps && i < ps->n; i++)
		if (strcmp(ps->pol[i].ops->name, name) == 0)
			return &ps->pol[i];
	return NULL;
}

int policy_set_before_launch(struct policy_set *ps, const struct policy_app *app,
			     struct sim_error *err)
{
	for (size_t i = 0; ps && i < ps->n; i++) {
		struct policy *p = &ps->pol[i];
		if (p->ops->before_launch) {
			int rc;
			PS_CALL(ps, i, "before_launch", rc = p->ops->before_launch(p, app, err));
			if (rc)
				return ps_failed(ps, i, "before_launch", rc, err);
		}
	}
	return 0;
}

int policy_set_plan_loads(struct policy_set *ps, struct policy_working_set *ws,
			  struct sim_error *err)
{
	for (size_t i = 0; ps && i < ps->n; i++) {
		struct policy *p = &ps->pol[i];
		if (p->ops->plan_loads) {
			int rc;
			PS_CALL(ps, i, "plan_loads", rc = p->ops->plan_loads(p, ws, ws->device, err));
			if (rc)
				return ps_failed(ps, i, "plan_loads", rc, err);
			for (size_t k = 0; k < ws->n; k++) {
				const struct policy_chunk *c = &ws->chunks[k];
				if (!c->file || !c->len || c->off > UINT64_MAX - c->len)
					return sim_errorf(err, ps->plugin[i] ? SIM_E_INPUT : SIM_E_RUNTIME,
							  "policy '%s': plan_loads left chunk %zu %s",
							  p->ops->name, k,
							  !c->file ? "without a file" : !c->len ? "empty"
							  : "past the largest offset");
			}
		}
	}
	return 0;
}

bool policy_set_has_planner(const struct policy_set *ps)
{
	for (size_t i = 0; ps && i < ps->n; i++)
		if (ps->pol[i].ops->plan_loads || ps->pol[i].ops->before_launch)
			return true;
	return false;
}

struct json_t *policy_set_json(const struct policy_set *ps)
{
	json_t *o = json_object();
	json_t *names = json_array();
	for (size_t i = 0; ps && i < ps->n; i++)
		json_array_append_new(names, json_string(ps->pol[i].ops->name));
	json_object_set_new(o, "names", names);
	for (size_t i = 0; ps && i < ps->n; i++) {
		const struct policy *p = &ps->pol[i];
		json_t *j = json_object();
		if (p->ops->params)
			json_object_set_new(j, "params", cfg_params_to_json(p->ops->params, p->priv));
		if (p->ops->stats_json)
			PS_CALL(ps, i, "stats_json", p->ops->stats_json(p, j));
		json_object_set_new(o, p->ops->name, j);
	}
	return o;
}
