#include "tsv_escape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *short_escape(unsigned char byte)
{
    switch (byte) {
    case '\\': return "\\\\";
    case '\t': return "\\t";
    case '\n': return "\\n";
    }
    return NULL;
}

static int is_control(unsigned char byte)
{
    return byte < 0x20 || byte == 0x7f;
}

static size_t escaped_length(const unsigned char *text)
{
    size_t length = 0;
    for (; *text; text++)
        length += short_escape(*text) ? 2 : is_control(*text) ? 4 : 1;
    return length;
}

static char *escape_byte(char *out, unsigned char byte)
{
    const char *escape = short_escape(byte);
    if (escape) {
        memcpy(out, escape, 2);
        return out + 2;
    }
    if (is_control(byte)) {
        snprintf(out, 5, "\\x%02x", byte);
        return out + 4;
    }
    *out = (char)byte;
    return out + 1;
}

char *tsv_escape(const char *text)
{
    const unsigned char *bytes = (const unsigned char *)text;
    char *escaped = malloc(escaped_length(bytes) + 1);
    if (!escaped)
        return NULL;
    char *out = escaped;
    for (; *bytes; bytes++)
        out = escape_byte(out, *bytes);
    *out = '\0';
    return escaped;
}
