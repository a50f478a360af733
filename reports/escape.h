/* reports/escape.h: escaping of report strings for each output format.
 * Report strings may hold any bytes (IDs are hostile by design), so every writer goes through
 * these functions. Characters a reader should never receive raw (C0/C1 controls, DEL,
 * noncharacters, bidirectional overrides, and invisible ones: zero-width spaces, format
 * controls, fillers) are replaced by a visible escape: `\n`, `\t`, `\r`,
 * `\u001b`, `\uFFFE`, `\U0001FFFE`; bytes that are not valid UTF-8 become `\xNN`. A backslash that
 * was in the data is left as it is, so the visible escapes are for reading, not for decoding. */
#ifndef CS_REPORTS_ESCAPE_H
#define CS_REPORTS_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"

/* Decodes the character at s (n > 0 bytes available): returns its length (1..4) and sets *cp, or
 * returns 0 when s[0] does not start a well-formed UTF-8 sequence. */
size_t cs_esc_decode(const char *s, size_t n, uint32_t *cp);
/* True for the characters no report shows raw (see the top of this file); \t and \n included. */
bool cs_esc_is_hidden(uint32_t cp);
/* Is s (NUL-ended) one word of a plain-text list, written raw and read back as it is: nonempty,
 * UTF-8, no space, '#' or hidden character (which would reach a terminal through cat)? */
bool cs_esc_is_word(const char *s);
/* The longest prefix of s, at most max bytes, that does not split a UTF-8 sequence. */
size_t cs_esc_cut(const char *s, size_t n, size_t max);
/* Bytes of a history, an answer or a message that the terminal, HTML and JUnit reports show: an
 * implementation may answer up to 64 MiB, and a few such failures would make reports of hundreds of
 * megabytes. The JSON report keeps every byte. */
#define CS_REPORT_MAX_SHOWN 2000
/* What follows a string cut with `left` bytes left out (nothing when left is 0): " ... [N more bytes
 * not shown: ...]", in ASCII without markup characters, so every format takes it as it is. */
void cs_esc_left_out(cs_buf *b, size_t left);

/* Bytes of an implementation's name or version (its hello's) that the terminal, HTML, JUnit and
 * Markdown reports show: a hello line may be 64 MiB, and the name is repeated for every cell. The
 * JSON report keeps every byte. */
#define CS_REPORT_MAX_NAME 200
/* What follows a name or version cut with `left` bytes left out (nothing when left is 0):
 * " [N more bytes not shown: the JSON report keeps them]", ASCII without markup characters or a dot
 * (which would split a JUnit classname), so every format takes it as it is. */
void cs_esc_name_left_out(cs_buf *b, size_t left);

/* Plain text (terminal, Markdown code blocks): hidden characters escaped, everything else raw.
 * With keep_lines, \n and \t stay raw (multi-line text such as a stderr tail). */
void cs_esc_plain(cs_buf *b, const char *s, size_t n, bool keep_lines);
/* One line of plain text: the first `max` bytes of s (NULL: ""), cut between characters; returns the
 * bytes left out, for the caller to say so. */
size_t cs_esc_plain_cut(cs_buf *b, const char *s, size_t max);
/* A name or version (NULL: "") as cs_esc_plain_cut writes it, cut at CS_REPORT_MAX_NAME bytes and
 * followed by cs_esc_name_left_out. */
void cs_esc_plain_name(cs_buf *b, const char *s);
/* Where escaped markup goes: multi-line text (\n and \t stay raw, e.g. <pre>), one line of text
 * (\n and \t escaped visibly, so a newline in a name or message is seen rather than collapsed
 * into a space), or an attribute value (\n and \t as &#10; and &#9;, which parsers keep). */
typedef enum { CS_ESC_TEXT, CS_ESC_LINE, CS_ESC_ATTR } cs_esc_markup_ctx;
/* XML 1.0 and HTML5: &<>"' as entities and hidden characters escaped visibly, so the output is
 * well-formed for any input. */
void cs_esc_markup(cs_buf *b, const char *s, size_t n, cs_esc_markup_ctx ctx);
/* The first `max` bytes of s (NULL: "") as cs_esc_markup writes them, cut between characters, so the
 * markup stays well-formed; returns the bytes left out, for the caller to say so. */
size_t cs_esc_markup_cut(cs_buf *b, const char *s, size_t max, cs_esc_markup_ctx ctx);
/* A name or version (NULL: "") as cs_esc_markup_cut writes it, cut at CS_REPORT_MAX_NAME bytes and
 * followed by cs_esc_name_left_out. */
void cs_esc_markup_name(cs_buf *b, const char *s, cs_esc_markup_ctx ctx);
/* Markdown inline text and GFM table cells: Markdown punctuation backslash-escaped (so `|`
 * cannot split a cell and `<`/`&` cannot start HTML), a newline becomes <br>, hidden characters
 * escaped visibly. */
void cs_esc_md_inline(cs_buf *b, const char *s, size_t n);
/* A name or version (NULL: "") as cs_esc_md_inline writes it, cut between characters at
 * CS_REPORT_MAX_NAME bytes and followed by cs_esc_name_left_out. */
void cs_esc_md_name(cs_buf *b, const char *s);
/* Length of the longest run of backticks in s: a code fence must be longer. */
size_t cs_esc_backtick_run(const char *s, size_t n);
/* A JSON string literal (`null` for NULL), as cs_esc_json_visible writes it: a report read on a
 * terminal (cat, less, a CI log) holds no hidden character raw, and decodes to the same text. */
void cs_esc_json(cs_buf *b, const char *s);
/* A JSON string literal of s[0..n): valid UTF-8 is kept as it is, each byte that is not valid UTF-8
 * becomes U+FFFD (the document stays valid JSON), and every hidden character (cs_esc_is_hidden) is
 * written as a \u escape, so the literal reads back as the same text (when it was valid UTF-8) and
 * nothing reaches a terminal raw. */
void cs_esc_json_visible(cs_buf *b, const char *s, size_t n);
/* JSON text (a whole document, as cJSON prints it) with every hidden character from U+007F up
 * written as a \u escape: those occur only inside strings, so the document means the same, and
 * U+2028/U+2029 no longer end a line of JavaScript. Controls below U+0020 are left to the printer
 * (inside strings it escapes them; outside they are its layout). */
void cs_esc_json_text(cs_buf *b, const char *text);

#endif
