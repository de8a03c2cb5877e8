/* Protocol Buffers wire format decoder and encoder (traces/protowire.h),
 * after the encoding guide at developers.google.com/protocol-buffers/docs/encoding:
 * base-128 varints, least significant group first, at most 10 bytes.
 */
#include "traces/protowire.h"

#include <stdlib.h>
#include <string.h>

bool pw_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	const uint8_t *q = *p;
	uint64_t x = 0;

	for (unsigned shift = 0; shift < 70; shift += 7) {
		if (q >= end)
			return false;
		uint8_t c = *q++;
		if (shift == 63 && c > 1)
			return false; /* more than 64 bits */
		x |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*p = q;
			*v = x;
			return true;
		}
	}
	return false;
}

int pw_next(struct pw_reader *r, struct pw_field *f)
{
	const uint8_t *q = r->p;
	uint64_t key, v;

	if (q >= r->end)
		return 0;
	if (!pw_varint(&q, r->end, &key) || (key >> 3) == 0 || (key >> 3) > UINT32_MAX)
		return -1;
	f->id = (uint32_t)(key >> 3);
	f->wt = (uint8_t)(key & 7);
	f->p = NULL;
	f->len = 0;
	f->v = 0;
	switch (f->wt) {
	case PW_VARINT:
		if (!pw_varint(&q, r->end, &f->v))
			return -1;
		break;
	case PW_I64:
		if (r->end - q < 8)
			return -1;
		v = 0;
		for (int i = 7; i >= 0; i--)
			v = v << 8 | q[i];
		f->v = v;
		q += 8;
		break;
	case PW_I32:
		if (r->end - q < 4)
			return -1;
		f->v = (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
		q += 4;
		break;
	case PW_LEN:
		if (!pw_varint(&q, r->end, &v) || v > (uint64_t)(r->end - q))
			return -1;
		f->p = q;
		f->len = (size_t)v;
		q += v;
		break;
	default:
		return -1;
	}
	r->p = q;
	return 1;
}

bool pw_find(const uint8_t *p, size_t len, uint32_t id, struct pw_field *f)
{
	struct pw_reader r;
	pw_init(&r, p, len);
	while (pw_next(&r, f) == 1)
		if (f->id == id)
			return true;
	return false;
}

static void pw_room(struct pw_buf *b, size_t n)
{
	if (b->oom || b->len + n <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + n)
		cap *= 2;
	uint8_t *np = realloc(b->p, cap);
	if (!np) {
		b->oom = true;
		return;
	}
	b->p = np;
	b->cap = cap;
}

void pw_put_varint(struct pw_buf *b, uint64_t v)
{
	pw_room(b, 10);
	if (b->oom)
		return;
	do {
		uint8_t c = v & 0x7f;
		v >>= 7;
		b->p[b->len++] = c | (v ? 0x80 : 0);
	} while (v);
}

void pw_put_key(struct pw_buf *b, uint32_t id, enum pw_wire wt)
{
	pw_put_varint(b, (uint64_t)id << 3 | wt);
}

void pw_put_uint(struct pw_buf *b, uint32_t id, uint64_t v)
{
	pw_put_key(b, id, PW_VARINT);
	pw_put_varint(b, v);
}

void pw_put_bytes(struct pw_buf *b, uint32_t id, const void *p, size_t len)
{
	pw_put_key(b, id, PW_LEN);
	pw_put_varint(b, len);
	pw_room(b, len);
	if (b->oom)
		return;
	if (len)
		memcpy(b->p + b->len, p, len);
	b->len += len;
}

void pw_put_str(struct pw_buf *b, uint32_t id, const char *s)
{
	pw_put_bytes(b, id, s, strlen(s));
}

void pw_put_fixed64(struct pw_buf *b, uint32_t id, uint64_t v)
{
	pw_put_key(b, id, PW_I64);
	pw_room(b, 8);
	if (b->oom)
		return;
	for (int i = 0; i < 8; i++)
		b->p[b->len++] = (uint8_t)(v >> (8 * i));
}

void pw_put_double(struct pw_buf *b, uint32_t id, double v)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof(bits));
	pw_put_fixed64(b, id, bits);
}

void pw_put_msg(struct pw_buf *b, uint32_t id, const struct pw_buf *m)
{
	if (m->oom)
		b->oom = true;
	pw_put_bytes(b, id, m->p, m->len);
}

void pw_buf_free(struct pw_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}
