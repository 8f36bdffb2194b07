#include "trace_fields.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *parse_trace_u64(const char *text, uint64_t *out)
{
    if (!*text)
        return "empty number";
    for (const char *p = text; *p; p++)
        if (!isdigit((unsigned char)*p))
            return "not a non-negative decimal integer";
    errno = 0;
    unsigned long long value = strtoull(text, NULL, 10);
    if (errno == ERANGE)
        return "integer out of range";
    *out = value;
    return NULL;
}

static bool is_decimal_fraction(const char *text)
{
    size_t whole = strspn(text, "0123456789");
    if (whole == 0)
        return false;
    if (text[whole] == '\0')
        return true;
    if (text[whole] != '.')
        return false;
    size_t fraction = strspn(text + whole + 1, "0123456789");
    return fraction > 0 && text[whole + 1 + fraction] == '\0';
}

const char *parse_trace_percent(const char *text, double *out)
{
    if (!is_decimal_fraction(text))
        return "not a percentage (like 70 or 72.5)";
    double value = strtod(text, NULL);
    if (value > 100.0)
        return "percentage above 100";
    *out = value;
    return NULL;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)tolower((unsigned char)c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Decodes the escape starting at in[0] == '\\'; returns the bytes consumed
 * or 0 when it is not one of \\ \t \n \xHH. */
static size_t decode_escape(const char *in, char *byte)
{
    switch (in[1]) {
    case '\\': *byte = '\\'; return 2;
    case 't': *byte = '\t'; return 2;
    case 'n': *byte = '\n'; return 2;
    case 'x': break;
    default: return 0;
    }
    int high = hex_value(in[2]), low = high < 0 ? -1 : hex_value(in[3]);
    if (low < 0)
        return 0;
    *byte = (char)(high * 16 + low);
    return 4;
}

const char *unescape_trace_field(const char *text, char **out)
{
    char *decoded = malloc(strlen(text) + 1);
    if (!decoded)
        return "out of memory";
    size_t length = 0;
    for (const char *in = text; *in;) {
        size_t used = 1;
        char byte = *in;
        if (byte == '\\' && (used = decode_escape(in, &byte)) == 0) {
            free(decoded);
            return "bad escape (only \\\\ \\t \\n \\xHH)";
        }
        if (byte == '\0') {
            free(decoded);
            return "escaped NUL byte";
        }
        decoded[length++] = byte;
        in += used;
    }
    decoded[length] = '\0';
    *out = decoded;
    return NULL;
}

static bool has_dot_dot_component(const char *path)
{
    for (const char *part = path; part; part = strchr(part, '/')) {
        if (*part == '/')
            part++;
        if (strncmp(part, "..", 2) == 0 && (part[2] == '/' || part[2] == '\0'))
            return true;
    }
    return false;
}

static const char *check_relative_path(const char *path)
{
    if (*path == '\0')
        return "empty path";
    if (*path == '/')
        return "absolute path (paths are relative to --root)";
    if (has_dot_dot_component(path))
        return "'..' in path";
    return NULL;
}

const char *decode_trace_path(const char *text, char **out)
{
    if (strcmp(text, "-") == 0)
        return "this operation needs a path, not '-' (write a file named - as ./-)";
    char *path;
    const char *error = unescape_trace_field(text, &path);
    if (!error && (error = check_relative_path(path)) != NULL)
        free(path);
    if (!error)
        *out = path;
    return error;
}

const char *decode_trace_glob(const char *text, char **out)
{
    if (*text == '\0' || strchr(text, '/'))
        return "GLOB must be a non-empty file-name pattern without '/'";
    *out = strdup(text);
    return *out ? NULL : "out of memory";
}
