/* Protocol Buffers wire format (developers.google.com/protocol-buffers/docs/encoding):
 * a field is a varint key (number << 3 | wire type) then a varint (type 0),
 * 8 bytes (1), a varint length and that many bytes (2) or 4 bytes (5).
 * Groups (3, 4) are not used by the messages mobisim reads and are an
 * error. A decoder over caller memory with no allocation, and a small
 * encoder into a growing buffer (tests, fuzz seeds, the Perfetto timeline
 * writer of sim/cli/timeline_proto.c).
 */
#ifndef TRACES_PROTOWIRE_H
#define TRACES_PROTOWIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pw_wire { PW_VARINT = 0, PW_I64 = 1, PW_LEN = 2, PW_I32 = 5 };

struct pw_field {
	uint32_t id;
	uint8_t wt;             /* enum pw_wire */
	uint64_t v;             /* varint, I64 and I32 values */
	const uint8_t *p;       /* LEN: the bytes */
	size_t len;
};

struct pw_reader {
	const uint8_t *p, *end;
};

static inline void pw_init(struct pw_reader *r, const void *p, size_t len)
{
	r->p = p;
	r->end = (const uint8_t *)p + len;
}

/* Varint at *p (< end), at most 10 bytes; advances *p. false if cut or too long. */
bool pw_varint(const uint8_t **p, const uint8_t *end, uint64_t *v);
/* Next field: 1 = *f filled, 0 = end of the message, -1 = malformed (r->p
 * is left at the bad field's key, for the byte offset). */
int pw_next(struct pw_reader *r, struct pw_field *f);
/* Find the first field id of the message (any wire type); false if absent
 * or the message is malformed before it. */
bool pw_find(const uint8_t *p, size_t len, uint32_t id, struct pw_field *f);
/* Value of a varint field as the .proto's signed types read it. */
static inline int64_t pw_int(uint64_t v) { return (int64_t)v; }
static inline int64_t pw_sint(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

/* Encoder: appends to a heap buffer; on allocation failure sets oom and
 * stops writing. */
struct pw_buf {
	uint8_t *p;
	size_t len, cap;
	bool oom;
};
void pw_put_varint(struct pw_buf *b, uint64_t v);
void pw_put_key(struct pw_buf *b, uint32_t id, enum pw_wire wt);
void pw_put_uint(struct pw_buf *b, uint32_t id, uint64_t v);
void pw_put_bytes(struct pw_buf *b, uint32_t id, const void *p, size_t len);
void pw_put_str(struct pw_buf *b, uint32_t id, const char *s);
/* Wire type 1: 8 bytes little-endian (fixed64, and double as its IEEE 754
 * bits, which is how the encoding guide defines both). */
void pw_put_fixed64(struct pw_buf *b, uint32_t id, uint64_t v);
void pw_put_double(struct pw_buf *b, uint32_t id, double v);
/* A nested message: pw_put_bytes of another buffer's contents. */
void pw_put_msg(struct pw_buf *b, uint32_t id, const struct pw_buf *m);
/* Empty b, keeping its memory, to build the next message in it. */
static inline void pw_buf_clear(struct pw_buf *b) { b->len = 0; }
void pw_buf_free(struct pw_buf *b);

#endif
