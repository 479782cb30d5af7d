/* The one option parser of every `vncl` command and of vncl-bench: a table
 * of options per command (cli.h), getopt_long underneath, one error path. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *kind_arg(const cli_opt *o) {
  if (o->arg) return o->arg;
  switch (o->kind) {
    case CLI_INT: return "N";
    case CLI_DOUBLE: return "X";
    case CLI_JSON: return "FILE";
    default: return "VALUE";
  }
}

void cli_help(const cli_command *c, FILE *f) {
  fprintf(f, "usage: %s %s [OPTIONS]\n", c->prog ? c->prog : "vncl", c->name);
  for (const cli_opt *o = c->opts; o && o->name; o++) {
    if (o->hidden) continue;
    char left[64];
    if (o->kind == CLI_FLAG)
      snprintf(left, sizeof left, "--%s", o->name);
    else if (o->kind == CLI_JSON)
      snprintf(left, sizeof left, "--%s [%s]", o->name, kind_arg(o));
    else
      snprintf(left, sizeof left, "--%s %s", o->name, kind_arg(o));
    fprintf(f, "  %-20s %s\n", left, o->help);
  }
  fprintf(f, "  %-20s %s\n", "-h, --help", "this help");
  if (c->about) fprintf(f, "%s", c->about);
}

/* The usage error: what was wrong, then the command's help, on stderr. */
__attribute__((format(printf, 2, 3))) static int usage_error(
    const cli_command *c, const char *fmt, ...) {
  fprintf(stderr, "%s %s: ", c->prog ? c->prog : "vncl", c->name);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputs("\n\n", stderr);
  cli_help(c, stderr);
  return CLI_USAGE;
}

/* A number, whole string, in [min, max]: decimal digits (and for CLI_DOUBLE
 * a point and an exponent), no spaces, no '+', no hex, no inf or nan. */
static bool parse_number(const cli_opt *o, const char *v) {
  const char *ok = o->kind == CLI_INT ? "-0123456789" : "-0123456789.eE";
  if (!*v || v[strspn(v, ok)] != '\0') return false;
  char *end = NULL;
  errno = 0;
  if (o->kind == CLI_INT) {
    long long x = strtoll(v, &end, 10);
    if (end == v || *end || errno || x < o->min || x > o->max) return false;
    *(long *)o->out = (long)x;
    return true;
  }
  double x = strtod(v, &end);
  if (end == v || *end || errno || !isfinite(x) || x < o->min || x > o->max)
    return false;
  *(double *)o->out = x;
  return true;
}

/* Whether the word after --json is its FILE (see cli_parse). */
static bool json_file_word(const char *w) {
  size_t n = strlen(w);
  return w[0] != '-' &&
         (strchr(w, '/') || (n > 5 && !strcmp(w + n - 5, ".json")));
}

int cli_parse(const cli_command *c, int argc, char **argv) {
  int n = 0;
  while (c->opts && c->opts[n].name) n++;
  struct option lo[n + 2];
  for (int i = 0; i < n; i++) {
    const cli_opt *o = &c->opts[i];
    lo[i].name = o->name;
    lo[i].has_arg = o->kind == CLI_FLAG   ? no_argument
                    : o->kind == CLI_JSON ? optional_argument
                                          : required_argument;
    lo[i].flag = NULL;
    lo[i].val = 256 + i;
  }
  lo[n] = (struct option){"help", no_argument, NULL, 'h'};
  lo[n + 1] = (struct option){NULL, 0, NULL, 0};
  optind = 1;
  opterr = 0;
  for (;;) {
    int before = optind, idx = -1;
    /* "+": stop at the first operand (commands take none); ":": a missing
     * value is reported as ':' rather than '?'. */
    int r = getopt_long(argc, argv, "+:h", lo, &idx);
    if (r == -1) break;
    const char *tok = before < argc ? argv[before] : "";
    if (r == 'h') {
      cli_help(c, stdout);
      return 0;
    }
    if (r == '?')
      return usage_error(c, "unknown option '%s'", tok);
    if (r == ':')
      return usage_error(c, "option '%s' needs a value", tok);
    const cli_opt *o = &c->opts[r - 256];
    /* getopt_long takes unambiguous abbreviations; options are matched
     * whole here, so that a script's --dev is not silently --device. */
    size_t len = strlen(o->name);
    if (strncmp(tok, "--", 2) || strncmp(tok + 2, o->name, len) ||
        (tok[2 + len] != '\0' && tok[2 + len] != '='))
      return usage_error(c, "unknown option '%s' (did you mean --%s?)", tok,
                         o->name);
    switch (o->kind) {
      case CLI_FLAG:
        *(bool *)o->out = true;
        break;
      case CLI_JSON:
        /* --json=FILE, --json FILE, or --json alone (stdout). The next word
         * is taken as FILE only when it names one: it ends in ".json" or
         * holds a '/' (so `--json extra` stays a usage error, and a stray
         * word is never written over). */
        *(bool *)o->out = true;
        if (!optarg && optind < argc && json_file_word(argv[optind]))
          optarg = argv[optind++];
        if (optarg && !*optarg)
          return usage_error(c, "option '--%s' needs a file name", o->name);
        if (o->out2) *(const char **)o->out2 = optarg;
        break;
      case CLI_STRING:
        if (!*optarg)
          return usage_error(c, "option '--%s' needs a value", o->name);
        *(const char **)o->out = optarg;
        break;
      case CLI_INT:
      case CLI_DOUBLE:
        if (!parse_number(o, optarg)) {
          if (o->kind == CLI_INT)
            return usage_error(c, "option '--%s' takes an integer from %.0f "
                               "to %.0f, not '%s'", o->name, o->min, o->max,
                               optarg);
          return usage_error(c, "option '--%s' takes a number from %g to %g, "
                             "not '%s'", o->name, o->min, o->max, optarg);
        }
        break;
    }
  }
  if (optind < argc)
    return usage_error(c, "unexpected argument '%s'", argv[optind]);
  return CLI_PARSED;
}

FILE *cli_json_open(const cli_command *c, const char *path) {
  if (!path) return stdout;
  FILE *f = fopen(path, "w");
  if (!f)
    fprintf(stderr, "%s %s: cannot write %s: %s\n", c->prog ? c->prog : "vncl",
            c->name, path, strerror(errno));
  return f;
}

int cli_json_close(const cli_command *c, FILE *f, const char *path) {
  if (!f) return 1;
  int bad = fflush(f) != 0 || ferror(f);
  if (f != stdout) bad |= fclose(f) != 0;
  if (bad)
    fprintf(stderr, "%s %s: cannot write %s\n", c->prog ? c->prog : "vncl",
            c->name, path ? path : "the standard output");
  return bad;
}
