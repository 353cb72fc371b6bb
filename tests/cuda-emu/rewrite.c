/*
 * rewrite.c - turns a .cu file into host C++ for the CUDA emulator.
 *
 *   rewrite INPUT.cu OUTPUT.cc
 *
 * Only the syntax that C++ lacks is rewritten; everything else is copied
 * byte for byte, newlines included, and a #line directive names the
 * original file, so that compiler messages, sanitizer reports and the
 * emulator's own reports point at the .cu source:
 *
 *   EXPR<<<CFG>>>(ARGS)        -> ::gbt_emu::launch("EXPR", __FILE__, __LINE__, EXPR,
 *                                                   ::gbt_emu::config(CFG), ARGS)
 *   extern __shared__ T N[];   -> T *N = ::gbt_emu::dynamic_shared<T>(__FILE__, __LINE__);
 *   __shared__ T N DIMS;       -> auto &N = ::gbt_emu::static_shared<T DIMS>(__FILE__, __LINE__);
 *
 * EXPR is the kernel expression before <<<: names, ::, ., ->, and balanced
 * (), [] and <> groups.  Comments, string and character literals are
 * copied untouched.  Exit status 1 with a message naming the file and line
 * on anything it cannot parse.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct buf {
    char *p;
    size_t n, cap;
};

static const char *in_name;

static void die(size_t line, const char *what)
{
    fprintf(stderr, "%s:%zu: cannot rewrite for the CUDA emulator: %s\n", in_name, line, what);
    exit(1);
}

static void put(struct buf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n + 1) cap *= 2;
        b->p = realloc(b->p, cap);
        if (b->p == NULL) die(0, "out of memory");
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

static void puts_(struct buf *b, const char *s)
{
    put(b, s, strlen(s));
}

static int ident_char(int c)
{
    return isalnum(c) || c == '_';
}

/* The line number (1-based) of offset i of s. */
static size_t line_of(const char *s, size_t i)
{
    size_t line = 1;
    for (size_t k = 0; k < i; k++) line += s[k] == '\n';
    return line;
}

/* Past a comment or literal starting at s[i] (or i itself when there is none). */
static size_t skip_lexical(const char *s, size_t n, size_t i)
{
    if (s[i] == '/' && i + 1 < n && s[i + 1] == '/') {
        while (i < n && s[i] != '\n') i++;
        return i;
    }
    if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
        const char *e = strstr(s + i + 2, "*/");
        if (e == NULL) die(line_of(s, i), "unterminated comment");
        return (size_t)(e - s) + 2;
    }
    if (s[i] == '"' || s[i] == '\'') {
        const char q = s[i];
        for (i++; i < n && s[i] != q; i++)
            if (s[i] == '\\') i++;
        if (i >= n) die(line_of(s, i), "unterminated literal");
        return i + 1;
    }
    return i;
}

/* The offset just past the bracket that closes the one at s[i]. */
static size_t match_forward(const char *s, size_t n, size_t i)
{
    int depth = 0;
    while (i < n) {
        size_t j = skip_lexical(s, n, i);
        if (j != i) {
            i = j;
            continue;
        }
        if (s[i] == '(' || s[i] == '[' || s[i] == '{') depth++;
        if (s[i] == ')' || s[i] == ']' || s[i] == '}') {
            if (--depth == 0) return i + 1;
        }
        i++;
    }
    die(line_of(s, i), "unbalanced brackets");
    return n;
}

/* The start of the kernel expression that ends at out[end) (exclusive). */
static size_t expr_start(const char *o, size_t end)
{
    size_t i = end;
    for (;;) {
        size_t k = i;
        while (k > 0 && (o[k - 1] == ' ' || o[k - 1] == '\t')) k--;
        if (k == 0) return i;
        const char c = o[k - 1];
        if (c == ')' || c == ']' || c == '>') {
            const char open = c == ')' ? '(' : c == ']' ? '[' : '<';
            int depth = 0;
            if (c == '>' && k >= 2 && o[k - 2] == '-') return i; /* "->" handled below */
            while (k > 0) {
                k--;
                if (o[k] == c) depth++;
                if (o[k] == open && --depth == 0) break;
            }
            i = k;
            continue;
        }
        if (ident_char((unsigned char)c)) {
            while (k > 0 && ident_char((unsigned char)o[k - 1])) k--;
            i = k;
            /* a qualifier before the name: ::, ., -> */
            size_t q = i;
            while (q > 0 && (o[q - 1] == ' ' || o[q - 1] == '\t')) q--;
            if (q >= 2 && o[q - 1] == ':' && o[q - 2] == ':') {
                i = q - 2;
                continue;
            }
            if (q >= 1 && o[q - 1] == '.') {
                i = q - 1;
                continue;
            }
            if (q >= 2 && o[q - 1] == '>' && o[q - 2] == '-') {
                i = q - 2;
                continue;
            }
            return i;
        }
        return i;
    }
}

/* Text [a, b) of s without leading and trailing blanks, as a new string. */
static char *trimmed(const char *s, size_t a, size_t b)
{
    while (a < b && isspace((unsigned char)s[a])) a++;
    while (b > a && isspace((unsigned char)s[b - 1])) b--;
    char *t = malloc(b - a + 1);
    if (t == NULL) die(0, "out of memory");
    memcpy(t, s + a, b - a);
    t[b - a] = '\0';
    return t;
}

/* Newlines in s[a, b), so that the output keeps the input's line numbers. */
static void keep_newlines(struct buf *o, const char *s, size_t a, size_t b)
{
    for (size_t k = a; k < b; k++)
        if (s[k] == '\n') put(o, "\n", 1);
}

/*
 * A __shared__ declaration: s[i] starts "__shared__" (dynamic: it followed
 * "extern", already removed from the output).  Returns the offset past ';'.
 */
static size_t shared_decl(struct buf *o, const char *s, size_t n, size_t i, int dynamic)
{
    const size_t line = line_of(s, i);
    size_t semi = i + strlen("__shared__"), name_end, name_beg, dims;
    while (semi < n && s[semi] != ';') semi++;
    if (semi >= n) die(line, "__shared__ declaration without ';'");
    const size_t body = i + strlen("__shared__");
    dims = body;
    while (dims < semi && s[dims] != '[') dims++;
    name_end = dims;
    while (name_end > body && isspace((unsigned char)s[name_end - 1])) name_end--;
    name_beg = name_end;
    while (name_beg > body && ident_char((unsigned char)s[name_beg - 1])) name_beg--;
    if (name_beg == name_end) die(line, "__shared__ declaration without a name");
    char *type = trimmed(s, body, name_beg), *name = trimmed(s, name_beg, name_end),
         *dim = trimmed(s, dims, semi);
    if (type[0] == '\0') die(line, "__shared__ declaration without a type");
    if (dynamic) {
        if (strcmp(dim, "[]") != 0) die(line, "extern __shared__ must be an array of unknown size");
        puts_(o, type);
        puts_(o, " *");
        puts_(o, name);
        puts_(o, " = ::gbt_emu::dynamic_shared<");
        puts_(o, type);
        puts_(o, ">(__FILE__, __LINE__);");
    } else {
        if (strchr(dim, '=') || strchr(type, '=')) die(line, "__shared__ variables take no initialiser");
        puts_(o, "auto &");
        puts_(o, name);
        puts_(o, " = ::gbt_emu::static_shared<");
        puts_(o, type);
        puts_(o, dim);
        puts_(o, ">(__FILE__, __LINE__);");
    }
    keep_newlines(o, s, i, semi);
    free(type);
    free(name);
    free(dim);
    return semi + 1;
}

/* A launch: s[i] starts "<<<".  Returns the offset past the argument list's ')'. */
static size_t launch(struct buf *o, const char *s, size_t n, size_t i)
{
    const size_t line = line_of(s, i);
    size_t start = expr_start(o->p, o->n), cfg_end, args_beg, args_end;
    int depth = 0;
    if (start == o->n) die(line, "<<< without a kernel before it");
    char *expr = trimmed(o->p, start, o->n);
    o->n = start;
    /* the configuration: up to ">>>" outside brackets */
    for (cfg_end = i + 3; cfg_end + 2 < n; cfg_end++) {
        size_t j = skip_lexical(s, n, cfg_end);
        if (j != cfg_end) {
            cfg_end = j - 1;
            continue;
        }
        if (s[cfg_end] == '(' || s[cfg_end] == '[') depth++;
        if (s[cfg_end] == ')' || s[cfg_end] == ']') depth--;
        if (depth == 0 && strncmp(s + cfg_end, ">>>", 3) == 0) break;
    }
    if (cfg_end + 2 >= n) die(line, "<<< without >>>");
    args_beg = cfg_end + 3;
    while (args_beg < n && isspace((unsigned char)s[args_beg])) args_beg++;
    if (args_beg >= n || s[args_beg] != '(') die(line, "a kernel launch without its arguments");
    args_end = match_forward(s, n, args_beg);
    /* copied as they are, blanks and newlines included */
    char *args = trimmed(s, args_beg + 1, args_end - 1);

    puts_(o, "::gbt_emu::launch(\"");
    for (const char *c = expr; *c; c++) {
        if (*c == '"' || *c == '\\') put(o, "\\", 1);
        if (*c == '\n' || *c == '\t')
            put(o, " ", 1);
        else
            put(o, c, 1);
    }
    puts_(o, "\", __FILE__, __LINE__, ");
    puts_(o, expr);
    puts_(o, ", ::gbt_emu::config(");
    put(o, s + i + 3, cfg_end - (i + 3));
    puts_(o, ")");
    if (args[0] != '\0') {
        puts_(o, ", ");
        put(o, s + args_beg + 1, args_end - 1 - (args_beg + 1));
    }
    puts_(o, ")");
    /* the configuration's and arguments' newlines were copied with them; add those between */
    keep_newlines(o, s, cfg_end, args_beg);
    free(expr);
    free(args);
    return args_end;
}

int main(int argc, char **argv)
{
    FILE *f;
    struct buf in = {0}, out = {0};
    char chunk[65536];
    size_t got;
    if (argc != 3) {
        fprintf(stderr, "usage: rewrite INPUT.cu OUTPUT.cc\n");
        return 2;
    }
    in_name = argv[1];
    if ((f = fopen(argv[1], "rb")) == NULL) {
        perror(argv[1]);
        return 1;
    }
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) put(&in, chunk, got);
    fclose(f);
    if (in.p == NULL) put(&in, "", 0);

    puts_(&out, "#line 1 \"");
    puts_(&out, argv[1]);
    puts_(&out, "\"\n");
    const char *s = in.p;
    const size_t n = in.n;
    for (size_t i = 0; i < n;) {
        size_t j = skip_lexical(s, n, i);
        if (j != i) {
            put(&out, s + i, j - i);
            i = j;
            continue;
        }
        if (ident_char((unsigned char)s[i]) && (i == 0 || !ident_char((unsigned char)s[i - 1]))) {
            size_t e = i;
            while (e < n && ident_char((unsigned char)s[e])) e++;
            if (e - i == 6 && strncmp(s + i, "extern", 6) == 0) {
                size_t k = e;
                while (k < n && isspace((unsigned char)s[k])) k++;
                if (strncmp(s + k, "__shared__", 10) == 0 && !ident_char((unsigned char)s[k + 10])) {
                    keep_newlines(&out, s, e, k);
                    i = shared_decl(&out, s, n, k, 1);
                    continue;
                }
            }
            if (e - i == 10 && strncmp(s + i, "__shared__", 10) == 0) {
                i = shared_decl(&out, s, n, i, 0);
                continue;
            }
            put(&out, s + i, e - i);
            i = e;
            continue;
        }
        if (strncmp(s + i, "<<<", 3) == 0) {
            i = launch(&out, s, n, i);
            continue;
        }
        put(&out, s + i, 1);
        i++;
    }

    /* written under a temporary name and renamed: make never sees half a file */
    {
        const size_t len = strlen(argv[2]) + 5;
        char *tmp = malloc(len);
        if (tmp == NULL) die(0, "out of memory");
        snprintf(tmp, len, "%s.tmp", argv[2]);
        if ((f = fopen(tmp, "wb")) == NULL || fwrite(out.p, 1, out.n, f) != out.n || fclose(f) != 0 ||
            rename(tmp, argv[2]) != 0) {
            perror(argv[2]);
            remove(tmp);
            return 1;
        }
        free(tmp);
    }
    free(in.p);
    free(out.p);
    return 0;
}
