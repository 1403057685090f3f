/* csv.h: the CSV reader behind `dataframe.read_csv`, as pandas 1.5's C
 * parser reads a file (sep "," or one other character or "\s+", decimal
 * '.' or another, header row k or none, quotechar '"' or another or none,
 * doublequote, skip_blank_lines, the default NA strings, skipinitialspace
 * and more; csv_opts_t), in chunks that can be parsed apart
 * from each other.
 *
 * A read goes in phases; each is a function here, so that the tiler can run
 * the per-chunk ones on workers:
 *
 *   1. csv_header_parse: the first non-blank record names the columns
 *      (pandas' mangling of duplicates and of empty names) and `usecols`
 *      picks some of them.
 *   2. csv_split: chunk boundaries at record starts. The bytes after the
 *      header are cut into blocks of target_chunk_bytes. Each block is run
 *      through a seven-state DFA once from every state (csv_scan_block: one
 *      pass, independent of every other block, so blocks can be scanned in
 *      parallel); a sequential step composes the blocks' transfer functions
 *      from the known state at the data start, which gives the exact quote
 *      state and line number at each block start; then each chunk begins at
 *      the first record boundary at or after its block start
 *      (csv_find_boundary). The tiler can run these steps itself: phase one
 *      on workers, the composition on the coordinator. A newline
 *      inside a quoted field is never taken for a boundary, whatever the
 *      quote parity of the bytes before the block looks like. Blank lines
 *      and lines of spaces are skipped by the parser wherever they fall.
 *   3. csv_infer_range on every chunk: per selected column a summary of
 *      its values (CSV_K_*) and the row count. Summaries merge in file order
 *      (csv_kinds_merge); csv_kinds_type turns the merged summary into the
 *      column's type as pandas infers it over the whole file.
 *   4. csv_read_range on every chunk with the final types: typed columns.
 *
 * Values: integers as pandas' str_to_int64 (spaces and tabs around them
 * allowed, optional sign, digits only); floats by strtod after checking the
 * syntax pandas' xstrtod accepts (digits with an optional decimal point,
 * '.' or the `decimal` given, fraction and
 * exponent, or inf/infinity in any case with a sign). strtod is correctly
 * rounded: the values equal, bit for bit, those of pandas'
 * read_csv(float_precision="round_trip"). pandas 1.5's default
 * (float_precision None, "high": precise_xstrtod) keeps only the first 17
 * digits, leading zeros included, then scales by a power of ten, so it is
 * not correctly rounded: it reads "972.9028711318601" one ulp off, and
 * "0.00016541668601584926" with 12 significant digits (a relative 3e-14
 * off); near the smallest denormals it reads 2.4703282292062328e-324 as
 * 0.0 where strtod gives 5e-324. tests/diff/test_csv.py checks equality
 * with round_trip and a relative 1e-11 with the default. A float that
 * overflows (1e400) leaves the column a string column, as in pandas.
 * strtod follows the C locale's decimal point: the engine never calls
 * setlocale.
 *
 * Known divergences from pandas, each rare in practice: a column of
 * integers of which some pass INT64_MAX but all fit uint64 is float64 here
 * (pandas: uint64; the engine has no uint64); a first data row of two or
 * more fields more than the names is refused (pandas: a MultiIndex of
 * them); a line skiprows' list skips is read with the rules of every
 * other line, where pandas reads a quote after its leading separator as
 * text (docs/graph-format.md); after a comment line that ends in a
 * lone "\r", pandas 1.5 drops a separator that comes next (its
 * EAT_CRNL_NOP state), so a following "\t#x" line is a comment there and
 * a record of empty fields here.
 *
 * Every function returns 0, or -1 with a one-line message in err (when err
 * is not NULL) naming what failed and where, in pandas' words where pandas
 * has some ("Expected 2 fields in line 3, saw 3", "EOF inside string
 * starting at row 2"). Nothing prints. Bytes are passed through as they are
 * (no UTF-8 check). */
#ifndef MARS_CSV_H
#define MARS_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Column types. pandas' dtype names: csv_type_name. */
typedef enum { CSV_INT64 = 0, CSV_FLOAT64, CSV_BOOL, CSV_STRING } csv_type_t;

/* What a chunk reports per column (csv_infer_range), in pandas' terms: it
 * tries int64 over the column, on an int64 overflow uint64, then float64,
 * then bool, else object, and the outcome of the first two depends on which
 * value fails first. So a summary holds flags that OR, and the kind of the
 * first failure, which the earlier chunk decides: merge summaries in file
 * order (csv_kinds_merge is associative, not commutative). */
enum {
    CSV_K_NA = 1u << 0,       /* an empty field, a default NA string, or a missing field */
    CSV_K_SINT = 1u << 1,     /* a value starting with '-' (pandas' uint64 "seen_sint") */
    CSV_K_UINT = 1u << 2,     /* a value that is an integer in (INT64_MAX, UINT64_MAX] */
    CSV_K_NOTFLOAT = 1u << 3, /* a value that is not a float (nor inf), or overflows one */
    CSV_K_NOTBOOL = 1u << 4,  /* a value other than True/False/true/false/TRUE/FALSE */
    CSV_K_FLAGS_MASK = 0xffu,
    /* the first value that is not an int64: none, overflowed, or not an integer */
    CSV_K_IFAIL_OVERFLOW = 1u << 8,
    CSV_K_IFAIL_OTHER = 2u << 8,
    CSV_K_IFAIL_MASK = 3u << 8,
    /* the first value not starting with '-' that is not a uint64 */
    CSV_K_UFAIL_OVERFLOW = 1u << 10,
    CSV_K_UFAIL_OTHER = 2u << 10,
    CSV_K_UFAIL_MASK = 3u << 10,
};

/* The summary of a then b, b coming after a in the file. 0 is the
 * summary of no values. */
uint32_t csv_kinds_merge(uint32_t a, uint32_t b);

/* The type pandas gives a column whose merged summary is `kinds`, in a file
 * of total_rows data rows (a column of no rows is a string column, as
 * pandas gives object). */
csv_type_t csv_kinds_type(uint32_t kinds, int64_t total_rows);
/* Whether the summary is of integers, one past INT64_MAX, beside a
 * negative value or an NA one: pandas' uint64 conversion fails
 * (uint64_conflict) and its object column keeps the NA strings as text
 * (csv_header_t.na_text). */
bool csv_kinds_na_text(uint32_t kinds);

/* pandas' dtype name for a column: "int64", "float64", "bool", or "object"
 * for strings and for a bool column that has NA values. */
const char *csv_type_name(csv_type_t t, bool has_na);

/* ---------------------------------------------------------------------------
 * A file mapped read-only into memory. The struct is the caller's;
 * csv_file_close unmaps it. buf is NULL for an empty file. */
typedef struct {
    const char *buf;
    size_t len;
} csv_file_t;

int csv_file_open(csv_file_t *f, const char *path, char *err, size_t errlen);
void csv_file_close(csv_file_t *f);

/* ---------------------------------------------------------------------------
 * The header. The struct is the caller's; csv_header_close frees what it
 * holds. */
typedef struct {
    int ncols;           /* fields of the header record */
    char **names;        /* ncols names after mangling, NUL-terminated, owned */
    int nsel;            /* columns read: usecols, or all */
    int *sel;            /* nsel column indexes, ascending (file order, as pandas), owned */
    bool usecols;        /* usecols was given: rows with extra fields are not errors */
    int64_t data_start;  /* byte offset of the first data record (after the header's line end) */
    int64_t data_line;   /* pandas' 0-based line number of that record */
    char sep;            /* the field separator every phase splits fields at */
    char decimal;        /* the decimal point of float values */
    char thousands;      /* the thousands separator of numbers, 0 for none */
    char comment;        /* the comment character, 0 for none (csv_opts_t) */
    char quote;          /* the quote character, 0 for none (pandas' quoting=3) */
    bool skipsp;         /* skipinitialspace (csv_opts_t), false with sep "\s+" */
    bool skip_bad;       /* on_bad_lines "skip" (csv_opts_t skip_bad_lines) */
    bool keep_blank;     /* skip_blank_lines=False (csv_opts_t keep_blank_lines) */
    int encoding;        /* CSV_ENC_*: text is decoded from it to UTF-8 */
    bool int_names;      /* header None without names: columns 0..n-1, integer labels */
    bool implicit_index; /* the first data record had one field more than the names: column 0
                          * (named "") is the index, pandas' implicit index */
    bool no_default_na;  /* keep_default_na false: only na_values are missing */
    int nna;             /* na_values: nna strings (owned), each missing in column */
    char **na;           /* na_col[i] (a file column index) or in every column (-1) */
    int *na_col;
    size_t *na_len; /* strlen of each, compared with every field's length first */
    /* na_values that read as floats (Python's float()), their column as
     * na_col; a float64 column that pandas reads by its float path (some
     * value is no int64: fpath[k] for selected column k, set by
     * csv_header_set_kinds) takes a value equal to one as missing */
    int nnaf;
    double *naf;
    int *naf_col;
    uint8_t *fpath;
    /* na_text[k] (NULL: none): selected column k is text because one of
     * its integers passes INT64_MAX beside a negative value or an NA one
     * (csv_kinds_na_text): pandas' object column then keeps its NA strings
     * as text ("NA", ""), so it does here (csv_header_set_kinds) */
    uint8_t *na_text;
    /* pandas' true_values and false_values: nbools strings (owned) read as
     * bool_val[i] (1 true, 0 false) beside the default True/False
     * spellings; a true value listed as false too is true, as pandas
     * checks the true set first */
    int nbools;
    char **bools;
    size_t *bool_len;
    uint8_t *bool_val;
    /* pandas' skiprows as a list: nskip line numbers (sorted, unique,
     * owned); a record that starts on one of them is no record */
    int64_t nskip;
    int64_t *skip;
    /* the most fields a record may have (0: ncols): with names over a
     * shorter header line, pandas expects the fields of that line or of
     * the first data line, the more of the two */
    int max_fields;
} csv_header_t;

/* pandas' read_csv options that change how a file is cut and read: `sep`
 * (','), `decimal` ('.'), `header` (k >= 0: record k names the
 * columns, the records before it are passed over, as pandas' header=k
 * counts them after skiprows, blank and comment lines not counted; -1:
 * pandas' None, every record is data) and `names` (nnames
 * column names, unique, in place of the header record's; with header -1
 * and no names the columns are named 0..n-1 after the first record's
 * fields). NULL where a function takes them: the defaults (zeros but sep
 * and decimal). */
typedef struct {
    char sep, decimal;
    int header;
    const char *const *names;
    int nnames;
    bool usecols_pos; /* usecols are positions, in decimal ("0", "2"), not names */
    /* pandas' na_values: nna strings read as missing, na_values[i] in the
     * column named na_cols[i] (na_cols NULL, or an entry NULL: in every
     * column). As pandas: a value for every column that reads as a whole
     * number also stands for its spellings "k" and "k.0"; in a float64
     * column pandas reads by its float path (some value is no int64), a
     * value equal as a number to one of them is missing too. no_default_na:
     * pandas' keep_default_na=False (only these, not the default NA
     * strings; an empty or a missing field is then an empty string) */
    const char *const *na_values;
    const char *const *na_cols;
    int nna; /* at most CSV_MAX_NA_VALUES: each value is compared with them */
    bool no_default_na;
    /* pandas' skiprows=k: the file's first k lines (before the header) */
    int64_t skiprows;
    /* pandas' skiprows as a list (nskip of them, any order, repeats and
     * negative ones ignored): a record starting on one of these 0-based
     * lines is passed over, the header's too; lines counted as csv_range_t
     * counts them (a quoted field's line ends not counted, blank and
     * comment lines counted) */
    const int64_t *skip_lines;
    int64_t nskip;
    /* pandas' nrows (with nrows_set): the first nrows rows only, the file
     * cut after them (csv_rows_end) by csv_read_buffer and by the graph's
     * read_csv before it splits */
    int64_t nrows;
    bool nrows_set;
    /* pandas' thousands: a separator numbers may hold (0: none) */
    char thousands;
    /* pandas' comment (0: none): outside quotes, the rest of the line is
     * ignored; a line that starts with it is no record */
    char comment;
    /* pandas' encoding (CSV_ENC_*): header names and text values are
     * decoded to UTF-8 (numbers, NA and bool strings are ASCII in all) */
    int encoding;
    /* pandas' quotechar (0: '"') and quoting=csv.QUOTE_NONE (quote_none:
     * no character quotes, quotes are plain bytes) */
    char quotechar;
    bool quote_none;
    /* pandas' skipinitialspace: the spaces (' ', not tabs) at the start of
     * every field are dropped, the header's names' too, and a quote after
     * them opens a quoted field; ignored with sep "\s+", as pandas does */
    bool skipinitialspace;
    /* pandas' on_bad_lines="skip": a data record of more fields than the
     * header allows (the error "Expected 2 fields in line 3, saw 3"
     * otherwise) is dropped, in every phase, nrows counting the records
     * kept; without usecols only, as pandas (usecols takes such records) */
    bool skip_bad_lines;
    /* pandas' skip_blank_lines=False: an empty line (a line of spaces and
     * tabs too, with "\s+") is a record of no fields, a row of missing
     * values; another line of whitespace is a record whose field is that
     * whitespace. Counted as records by header=k and nrows; a blank line
     * where the header (or, header None, the first record) is is refused,
     * pandas' "No columns to parse from file" */
    bool keep_blank_lines;
    /* pandas' index_col=False: no implicit index; a first data record of
     * more fields than the names (a malformed file's trailing separators)
     * sets how many a record may have, those past the names dropped */
    bool no_index_col;
    /* pandas' skipfooter: the file's last skipfooter lines are dropped
     * before anything is read (csv_footer_end); 0: none */
    int64_t skipfooter;
    /* pandas' true_values and false_values: more strings read as the
     * bools (a column of only these, the default spellings and missing
     * values is bool, where it is no number) */
    const char *const *true_values;
    int ntrue;
    const char *const *false_values;
    int nfalse;
} csv_opts_t;

enum { CSV_ENC_UTF8 = 0, CSV_ENC_LATIN1, CSV_ENC_CP1252 };

/* The most na_values one read takes: every field is compared with each, so
 * the count bounds the work per field (pandas hashes them; a few hundred
 * is already more than files use). */
#define CSV_MAX_NA_VALUES 10000
/* pandas' encoding names (Python's codec names, any case, '_' for '-'):
 * utf-8 (utf8, u8), latin-1 (latin1, iso-8859-1, l1), cp1252
 * (windows-1252). Others fail naming the three. UTF-8 bytes pass as they
 * are (no check); a UTF-8 byte-order mark is dropped only for utf-8. */
int csv_encoding_parse(const char *s, int *enc, char *err, size_t errlen);

/* The most columns a header may name. A bound on what one header line can
 * make the reader allocate per row (flags, offsets); pandas has none, but a
 * million columns is past any DataFrame this engine tiles by rows. */
#define CSV_MAX_COLS (1 << 20)

/* sep "\s+" (pandas' delim_whitespace): fields separated by runs of
 * spaces and tabs, a line's leading and trailing ones no field */
#define CSV_SEP_WS '\x01'

/* pandas' `sep` as the C parser takes it: one character, a tab or a
 * printable ASCII one other than the quote, or "\s+" (CSV_SEP_WS); *sep
 * is set. Several characters (pandas' python engine and its regular
 * expressions), a line end or a control character fail naming the rule. */
int csv_sep_parse(const char *s, char *sep, char *err, size_t errlen);
/* pandas' `decimal`: one printable ASCII character that is no digit, sign,
 * 'e' or 'E', quote or space (pandas: "Only length-1 decimal markers
 * supported"). With decimal ',' a value "1,5" is the float 1.5 and "1.5"
 * is text, as pandas' parser reads them. */
int csv_decimal_parse(const char *s, char *dec, char *err, size_t errlen);
/* pandas' `thousands`: one character other than a digit, the quote, a
 * line end or a control character ("1,234" is 1234 with ','; it may equal
 * decimal or sep, as pandas allows: the integer reading wins). */
int csv_thousands_parse(const char *s, char *tsep, char *err, size_t errlen);
/* pandas' `comment`: one printable ASCII character other than the quote
 * and the separator sep ("Only length-1 comment characters supported"
 * for more); *cmt is set. */
int csv_comment_parse(const char *s, char sep, char *cmt, char *err, size_t errlen);
/* pandas' `quotechar`: one printable ASCII character (a tab or a space
 * too); csv_header_parse refuses it where it is the separator, the
 * decimal point, the thousands separator or the comment. *q is set. */
int csv_quotechar_parse(const char *s, char *q, char *err, size_t errlen);
/* The most true_values and false_values one read takes (each value not a
 * number is compared with them). */
#define CSV_MAX_BOOL_VALUES 1000
/* The most line numbers one skiprows list may hold (8 bytes each). */
#define CSV_MAX_SKIP_LINES (1 << 20)

/* Parses the header at the start of buf with options o (NULL: the
 * defaults; a sep csv_sep_parse refuses or a decimal csv_decimal_parse
 * refuses fail; the two may be equal, as pandas allows, when the numbers
 * are quoted; h keeps them for the later phases). usecols: n_usecols names
 * (NULL when n_usecols is 0: every column); an unknown name fails with pandas' message "Usecols do
 * not match columns, columns expected but not found:
 * ['x']". An empty input fails ("No columns to parse from file"). */
int csv_header_parse(const char *buf, size_t len, const csv_opts_t *o, const char *const *usecols,
                     int n_usecols, csv_header_t *h, char *err, size_t errlen);
void csv_header_close(csv_header_t *h);

/* ---------------------------------------------------------------------------
 * Splitting. */

/* A chunk: bytes [start, end) of the buffer, starting at a record boundary;
 * line is pandas' 0-based line number of its first record (for messages). */
typedef struct {
    int64_t start, end;
    int64_t line;
    int32_t file; /* read_csv over a glob: which of the node's files (0 for one file) */
} csv_range_t;

/* The DFA of csv_split. CSV_S_REC is a record start. */
enum { CSV_S_REC = 0, CSV_S_FLD, CSV_S_UNQ, CSV_S_QUO, CSV_S_QQ, CSV_S_CR, CSV_S_CMT, CSV_NSTATES };

/* A block's transfer function: for each state at its first byte, the state
 * after its last byte and the count of line ends in between. */
typedef struct {
    uint8_t exit[CSV_NSTATES];
    int64_t lines[CSV_NSTATES];
} csv_block_t;

/* Scans n bytes from every state at once, fields separated by sep, cmt
 * the comment character (0: none), quote the quote character (0: none),
 * skipsp csv_header_t's: spaces at a field's start keep it at its start,
 * where a quote opens it. Reads nothing outside p[0..n). */
void csv_scan_block(const char *p, size_t n, char sep, char cmt, char quote, bool skipsp,
                    csv_block_t *out);

/* The first record start at or after pos, the DFA being in `state` at pos
 * (from the composed transfer functions) with *line lines before it; *line
 * becomes the line number there. Returns len when no record starts before
 * the end. Reads buf[pos, result]: a worker needs the bytes of its block
 * and, when a quoted field runs past the block's end, those up to the
 * field's end. */
int64_t csv_find_boundary(const char *buf, size_t len, char sep, char cmt, char quote, bool skipsp,
                          int64_t pos, int state, int64_t *line);

/* pandas' nrows: the byte offset where the first nrows data records after
 * the header end (blank lines skipped, as the parser skips them), or len
 * when there are fewer; a read of buf[0, that) has the first nrows rows.
 * -1 with a message when the text before it is malformed. */
int64_t csv_rows_end(const char *buf, size_t len, const csv_header_t *h, int64_t nrows, char *err,
                     size_t errlen);

/* pandas' skipfooter: the byte offset where the data's last nfoot lines
 * start, counted as pandas' python parser counts rows: every line end
 * outside quotes ends one (blank and comment lines included, "\r\n" once,
 * a quoted field's line ends not), and a last line without a line end is
 * one; h->data_start when the data has no more lines than that. */
int64_t csv_footer_end(const char *buf, size_t len, const csv_header_t *h, int64_t nfoot);

/* Splits buf[h->data_start, len) into chunks of about target_chunk_bytes
 * (>= 1). *out (owned by the caller: free()) holds *n >= 1 ranges that tile
 * [h->data_start, len) in order; an empty body gives one empty range. */
int csv_split(const char *buf, size_t len, const csv_header_t *h, int64_t target_chunk_bytes,
              csv_range_t **out, int64_t *n, char *err, size_t errlen);

/* ---------------------------------------------------------------------------
 * Parsing a chunk. */

/* Phase one: merges into kinds[0..h->nsel) the summary of the chunk's
 * values of each selected column and adds its data rows to *nrows. kinds is
 * the caller's: zeros, or the merged summaries of the chunks before this one
 * (chunks summarised apart, each from zeros, merge with csv_kinds_merge). Errors: a row with more
 * fields than the header (unless usecols), a quote still open at the end
 * of the buffer. */
int csv_infer_range(const char *buf, const csv_header_t *h, const csv_range_t *r, uint32_t *kinds,
                    int64_t *nrows, char *err, size_t errlen);

/* A typed column. Every array is malloc'ed, owned by the frame. */
typedef struct {
    csv_type_t type;
    int64_t n;        /* rows */
    void *data;       /* INT64: int64_t[n]; FLOAT64: double[n] (NaN for NA); BOOL: uint8_t[n]
                       * (0/1); STRING: NULL */
    int64_t *offsets; /* STRING: n + 1 offsets; value i is bytes[offsets[i], offsets[i+1]) */
    char *bytes;      /* STRING: the values back to back, NUL-terminated at offsets[n] */
    uint8_t *valid;   /* BOOL and STRING: NULL when no value is NA, else n flags (1 present,
                       * 0 NA; an NA string is empty); always NULL for INT64 and FLOAT64 */
} csv_column_t;

/* A chunk's columns, in h->sel order. The struct is the caller's;
 * csv_frame_close frees the columns. */
typedef struct {
    int ncols;
    int64_t nrows;
    char **names; /* ncols names, owned copies */
    csv_column_t *cols;
} csv_frame_t;

/* Records, from the merged summaries of the selected columns, which ones
 * pandas reads by its float path (where na_values numbers match by value).
 * Call before csv_read_range when na_values are given. 0, or -1 out of
 * memory. */
int csv_header_set_kinds(csv_header_t *h, const uint32_t *kinds);

/* Phase two: parses the chunk into columns of types[0..h->nsel) (from
 * csv_kinds_type over every chunk). A value the type cannot hold (types
 * that did not come from this file) fails with its line and column. On
 * failure *out holds nothing to free. */
int csv_read_range(const char *buf, const csv_header_t *h, const csv_range_t *r,
                   const csv_type_t *types, csv_frame_t *out, char *err, size_t errlen);
void csv_frame_close(csv_frame_t *f);

/* The whole pipeline on one buffer (tests, small files): header, split at
 * target_chunk_bytes, infer over every chunk, then read every chunk and
 * concatenate. */
int csv_read_buffer(const char *buf, size_t len, const csv_opts_t *o, const char *const *usecols,
                    int n_usecols, int64_t target_chunk_bytes, csv_frame_t *out, char *err,
                    size_t errlen);

/* ---------------------------------------------------------------------------
 * Paths. Resolves relative_path under data_dir as the contract requires:
 * refuses an empty path, an absolute path, any ".." component, and a path
 * whose realpath (symlinks followed) is not inside realpath(data_dir).
 * The file must exist. Writes the resolved absolute path into out. */
/* The most files one read_csv glob may match: each is opened and split
 * when the document is validated. */
#define CSV_GLOB_MAX_FILES 10000

/* Whether a read_csv path is a pattern (has *, ? or [). */
bool csv_is_glob(const char *path);

/* The files under data_dir matching the relative pattern (glob(3), no
 * hidden files unless the pattern names them), as paths relative to
 * data_dir, sorted; *names and each name are malloc'ed. 0 (possibly no
 * match), or -1 with a message. */
int csv_glob(const char *data_dir, const char *pattern, char ***names, int *n, char *err,
             size_t errlen);

int csv_resolve_path(const char *data_dir, const char *relative_path, char *out, size_t outlen,
                     char *err, size_t errlen);

#endif
