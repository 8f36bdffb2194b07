#ifndef MOBIFRAG_TSV_ESCAPE_H
#define MOBIFRAG_TSV_ESCAPE_H

/* Returns text as one TSV field that can never break a row (malloc'd; NULL
 * when out of memory): backslash becomes \\, tab \t, newline \n, and every
 * other control byte (0x01-0x1f, 0x7f) \xHH with two lowercase hex digits.
 * Other bytes, UTF-8 included, pass through unchanged. */
char *tsv_escape(const char *text);

#endif
