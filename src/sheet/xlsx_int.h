/* Internals of the XLSX reader: the bounded zip layer, the safe XML reader
 * wrapper, and the workbook facts (shared strings, styles) that the
 * worksheet stream needs. */
#ifndef LOADLINE_SHEET_XLSX_INT_H
#define LOADLINE_SHEET_XLSX_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libxml/parser.h>
#include <libxml/xmlreader.h>
#include <libdeflate.h>
#include <zip.h>

#include "base/buf.h"
#include "base/spool.h"
#include "sheet_int.h"

#define XZIP_MAX_ENTRIES 10000

/* The package, with the running count of bytes inflated from all parts. */
struct xzip {
	zip_t *za;
	const struct sheet_limits *lim;
	size_t file_len;
	size_t inflated;     /* actual bytes from every entry read so far */
	const char *err;     /* static message when a limit stopped a read */
	struct libdeflate_decompressor *inflater;  /* whole-entry inflating, made on first use */
};

/* Entries whose declared size is at most this are inflated whole, with
 * libdeflate, when opened (and checked against their size and CRC-32);
 * larger ones, and any that fail that, are streamed through libzip and
 * zlib as before.  Bytes reach the parsers, and count against the limits,
 * a read at a time either way.  The cap bounds the memory and what opening
 * a workbook costs when only its header row is read (the upload path): 1 MiB
 * inflates in ~0.3 ms; a 2.6 MB worksheet took open + header from 0.22 to
 * 1.2 ms. */
#define XZIP_WHOLE_MAX (1u * 1024 * 1024)

/* One part being inflated; counted while read, whatever its header says. */
struct xentry {
	struct xzip *z;
	zip_file_t *zf;
	size_t inflated;
	uint64_t comp_size;
	uint64_t size;        /* as declared: more than this is an error */
	char tail[16];        /* last bytes seen, for the DTD scan across reads */
	size_t tail_len;
	char *mem;            /* the whole part (size bytes), when inflated whole */
	size_t pos;           /* bytes of mem handed out so far */
};

/* Opens the zip and checks every entry's declared size (against the
 * budget, lim->max_uncompressed as sheet_open sets it), unique names, and
 * encryption, and that no VBA project is present.  On failure returns a
 * parse-level code with a static message (and leaves z closed). */
enum code xzip_open(struct xzip *z, const char *data, size_t len,
		    const struct sheet_limits *lim, const char **ret_msg);
void xzip_close(struct xzip *z);
/* 1 when the part exists (names compared without case, as OPC says). */
bool xzip_has(struct xzip *z, const char *name);
/* 1 when some part's name ends in "." ext (without case). */
bool xzip_has_extension(struct xzip *z, const char *ext);

/* Opens one part for bounded inflating; -1 (with *ret_msg) when it is
 * absent or cannot be opened.  xentry_read is libxml2's I/O callback shape:
 * bytes inflated (0 at the end), -1 on error with z->err set. */
int xentry_open(struct xzip *z, const char *name, struct xentry *e, const char **ret_msg);
int xentry_read(void *ctx, char *out, int len);
void xentry_close(struct xentry *e);
/* Whole parts only (e->mem): hands the next up to len bytes out without
 * copying them (from e->mem + e->pos before the call), counted against the
 * limits as xentry_read counts them.  Returns the bytes handed out (0 at
 * the end), -1 on error with z->err set. */
int xentry_advance(struct xentry *e, size_t len);

/* An XML part streamed through libxml2's reader with no DTD, no entities,
 * no network.  xml_open returns -1 (with *ret_msg) when the part is absent
 * or cannot be opened. */
/* Initialises libxml2 and installs a loader that refuses every external
 * resource; idempotent and thread-safe. */
void xml_init(void);

struct xpart {
	struct xentry e;
	xmlTextReaderPtr xr;
	int type;    /* node type of the current node, set by xpart_read */
};
int xpart_open(struct xzip *z, const char *name, struct xpart *p, const char **ret_msg);
void xpart_close(struct xpart *p);
/* Next node: 1, 0 at the end of the document, -1 on error (corrupt XML, a
 * DTD or entity reference, a limit reached; *ret_msg says which). */
int xpart_read(struct xpart *p, const char **ret_msg);
/* Attribute of the current element by local name, ignoring its namespace
 * prefix; NULL when absent.  Owned by the reader: valid until the next read. */
const char *xpart_attr(struct xpart *p, const char *local);
/* Appends the text content of the current (non-empty) element, up to its
 * end tag, to out.  With runs = true only text inside <t> elements counts and
 * phonetic runs (<rPh>) are skipped, as for shared and inline strings. */
int xpart_text(struct xpart *p, struct buf *out, bool runs, const char **ret_msg);
/* True when the current node is an element (or end element) named local. */
bool xpart_is(struct xpart *p, int type, const char *local);

/* An XML part pushed through libxml2's SAX2 parser one inflated chunk at a
 * time (xmlCreatePushParserCtxt / xmlParseChunk): no reader nodes are
 * built, the callbacks see each element once.  Same safety as xpart: no
 * DTD (the prologue scan, and the internalSubset callback), no entity other
 * than the five predefined ones (getEntity refuses), no network, no HUGE.
 * The handler's callbacks get `user` as their context; they stop the parse
 * with xsax_fail (an error) or xsax_stop (the rest of the part is not
 * needed). */
#define XSAX_CHUNK 16384
#define XSAX_FIRST_CHUNK 4096
struct xsax {
	struct xentry e;
	xmlParserCtxtPtr ctxt;
	const xmlSAXHandler *handler;
	void *user;
	const char *err;     /* set by xsax_fail */
	bool stopped, finished;
};
/* The handler's security callbacks (internalSubset, getEntity, serror) are
 * filled in here; `h` must live as long as s. */
int xsax_open(struct xzip *z, const char *name, struct xsax *s, xmlSAXHandler *h, void *user,
	      const char **ret_msg);
/* Parses the next chunk: 1 when more of the part remains, 0 when the part
 * is complete (or xsax_stop was called), -1 on error (*ret_msg says which). */
int xsax_feed(struct xsax *s, const char **ret_msg);
void xsax_fail(struct xsax *s, const char *msg);
void xsax_stop(struct xsax *s);
void xsax_close(struct xsax *s);
/* An attribute value from a SAX2 attribute array (not NUL-terminated) into
 * dst, NUL-terminated; "!" when it does not fit (fails every check). */
void xsax_attr_copy(char *dst, size_t size, const xmlChar *start, const xmlChar *end);

/* Shared strings: texts back to back (NUL after each) and their offsets,
 * parsed lazily: only as far as the highest index asked for so far.
 *
 * With a spool directory (sheet_limits.spool_dir) the table is kept in a
 * bounded window: once the strings in memory pass spill_at bytes, they go
 * to two spool files (their text, and each one's offset as a uint64_t) and
 * the window starts again empty.  A workbook written by a spreadsheet
 * program keeps every text cell in this table (2.1 million strings, 20 MB
 * of text for a million rows), so held whole it would grow with the file
 * (PRODUCT §16: memory stays flat).  Strings are appended in the order the
 * program met them, so a row's new strings are still in the window when the
 * row needs them; an older one is read back with pread through a small
 * direct-mapped cache (the repeated ones: cities, customers, materials). */
struct xsst_cached {
	size_t idx1;                 /* string index + 1; 0: empty slot */
	uint32_t len;
	char text[52];               /* strings up to 51 bytes are cached */
};

#define XSST_CACHE_SLOTS 4096
#define XSST_SPILL_BYTES (512u << 10)

struct xsst {
	struct buf pool;             /* the window: strings base_n.. */
	size_t *offs;                /* offsets in pool of strings base_n.. */
	size_t n, cap;               /* strings parsed in all; cap of offs */
	size_t max_strings, max_bytes;
	struct xsax part;
	xmlSAXHandler sax;
	bool open;          /* part is being parsed */
	bool complete;      /* the whole part was parsed (or there is none) */
	const char *err;    /* sticky: why the table cannot be read further */
	bool io_failed;     /* err is the spool's: the file is not at fault */
	int depth, si, t, rph;   /* depth of the open <si>, <t>, <rPh>, or 0 */
	size_t cur;         /* offset of the open <si>'s text */
	size_t done;        /* pool length after the last complete string: text
			     * past it belongs to an <si> still open */
	/* Spilling (spool_dir set; spill_at 0: never). */
	const char *spool_dir;
	size_t spill_at;
	size_t base_n;               /* strings in the spool files */
	uint64_t base_off;           /* bytes of text in the spool files */
	struct spool text, offsets;  /* fd -1 until the first spill */
	struct xsst_cached *cache;   /* XSST_CACHE_SLOTS, made at the first spill */
	char *scratch;               /* a spilled string read back */
	size_t scratch_cap;
};

/* The cell styles' number-format kinds (0, SHEET_NUMFMT_DATE/TIME). */
struct xstyles {
	uint8_t *kind;
	size_t n;
	/* The text a cell's number format shows around the number (PRODUCT
	 * §14): per style, 0 or 1 + an index into affixes (prefix, suffix). */
	uint16_t *affix_of;
	char (*affixes)[2][SHEET_AFFIX_MAX];
	size_t naffixes;
};

/* Opens the shared-string part (none: name NULL) without parsing any of it.
 * z must outlive sst. */
enum code xsst_open(struct xzip *z, const char *name, struct xsst *sst, const char **ret_msg);
/* String i, parsing the part only as far as it takes; MALFORMED_XLSX when
 * there is no string i or the part is broken before it, SERVICE_UNAVAILABLE
 * when the spool files failed (disk full).  *ret_s stays valid until the
 * next call. */
enum code xsst_get(struct xsst *sst, size_t i, const char **ret_s, size_t *ret_len,
		   const char **ret_msg);
/* Parses the rest of the part, so that a broken table or one over the caps
 * is refused as before, at the end of the worksheet. */
enum code xsst_finish(struct xsst *sst, const char **ret_msg);
void xsst_free(struct xsst *sst);
enum code xstyles_load(struct xzip *z, const char *name, struct xstyles *st, const char **ret_msg);
void xstyles_free(struct xstyles *st);

/* The worksheet stream: a sheet_reader over one worksheet part, with the
 * shared strings of sst_part (NULL: none) read lazily.  Takes ownership of
 * z and st (also on failure). */
enum code xsheet_open(struct xzip *z, const char *part, const char *sst_part, struct xstyles *st,
		      bool date1904, struct sheet_reader **ret, const char **ret_msg);

#endif
