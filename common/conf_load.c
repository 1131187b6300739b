/*
 * Loading configuration files: reading them, libyaml's document loader and
 * its syntax errors, directories of *.yaml files, and handing every error
 * back at once, sorted (conf.h).
 */
#include <sys/stat.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/xmalloc.h"

/* strerror, lowercased as the house style wants; caller frees. */
static char *
conf_strerror(int errnum)
{
	char *s = xstrdup(strerror(errnum));

	s[0] = (char)tolower((unsigned char)s[0]);
	return s;
}

/* Reports libyaml's syntax error at its problem mark. */
static void
conf_syntax(struct conf_file *f, yaml_parser_t *parser, const char *buf,
    size_t len)
{
	size_t line = parser->problem_mark.line;
	size_t col = parser->problem_mark.column, i;

	if (parser->error == YAML_READER_ERROR) {
		/* Reader errors carry a byte offset, not a mark. */
		line = col = 0;
		for (i = 0; i < parser->problem_offset && i < len; i++, col++)
			if (buf[i] == '\n') {
				line++;
				col = (size_t)-1;
			}
	}
	if (parser->context != NULL)
		conf_error_at(f, line, col,
		    "syntax error: %s (%s at line %zu, column %zu)",
		    parser->problem ? parser->problem : "?", parser->context,
		    parser->context_mark.line + 1,
		    parser->context_mark.column + 1);
	else
		conf_error_at(f, line, col, "syntax error: %s",
		    parser->problem ? parser->problem : "unknown problem");
}

/* Reads the whole file into *buf; -1 after reporting why it could not. */
static int
conf_read(struct conf_loader *ld, size_t fileno, const char *path, char **buf,
    size_t *len)
{
	FILE *fp;
	char *why;
	int   rc = -1;

	*buf = xmalloc(CONF_MAX_FILE + 1);
	if ((fp = fopen(path, "r")) == NULL) {
		why = conf_strerror(errno);
		conf_error_file(ld, fileno, "cannot open \"%s\": %s", path,
		    why);
		free(why);
		return -1;
	}
	*len = fread(*buf, 1, CONF_MAX_FILE + 1, fp);
	if (ferror(fp))
		conf_error_file(ld, fileno, "cannot read \"%s\"", path);
	else if (*len > CONF_MAX_FILE)
		conf_error_file(ld, fileno, "\"%s\" is larger than %d bytes",
		    path, CONF_MAX_FILE);
	else
		rc = 0;
	(*buf)[rc == 0 ? *len : 0] = '\0';
	fclose(fp);
	return rc;
}

/* The absolute directory of path, for resolving relative paths in it. */
static char *
conf_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');
	char	   *dir, *real, *cwd;

	if (slash == NULL)
		dir = xstrdup(".");
	else if (slash == path)
		dir = xstrdup("/");
	else
		dir = xstrndup(path, (size_t)(slash - path));
	if ((real = realpath(dir, NULL)) != NULL) {
		free(dir);
		dir = xstrdup(real);
		free(real);
	} else if (dir[0] != '/' && (cwd = getcwd(NULL, 0)) != NULL) {
		real = conf_path_resolve(cwd, dir);
		free(cwd);
		free(dir);
		dir = real;
	}
	return dir;
}

/* Reports a second document in the file, which is not allowed. */
static void
conf_extra_doc(struct conf_file *f, yaml_parser_t *parser, const char *buf,
    size_t len)
{
	yaml_document_t doc;

	if (!yaml_parser_load(parser, &doc)) {
		conf_syntax(f, parser, buf, len);
		return;
	}
	if (yaml_document_get_root_node(&doc) != NULL)
		conf_error_at(f, doc.start_mark.line, doc.start_mark.column,
		    "a %s file must hold one yaml document, not more",
		    f->kind->name);
	yaml_document_delete(&doc);
}

/*
 * Reads text, once within the limits (conf.h), as the document of file f
 * and hands its root to the kind.
 */
static void
conf_parse(struct conf_file *f, const char *text, size_t len)
{
	yaml_parser_t parser;

	if (len > CONF_MAX_FILE) {
		conf_error_file(f->ld, f->fileno,
		    "\"%s\" is larger than %d bytes", f->path, CONF_MAX_FILE);
		return;
	}
	if (conf_limits_check(f, text, len) != 0)
		return;
	if (!yaml_parser_initialize(&parser))
		fatalx("yaml_parser_initialize: out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &f->doc))
		conf_syntax(f, &parser, text, len);
	else {
		f->kind->root(f, yaml_document_get_root_node(&f->doc));
		conf_extra_doc(f, &parser, text, len);
		yaml_document_delete(&f->doc);
	}
	yaml_parser_delete(&parser);
}

/* Reads text already in memory; name stands for the file in errors. */
void
conf_load_text(struct conf_loader *ld, const char *name, const char *text,
    size_t len, const struct conf_kind *kind, void *arg)
{
	struct conf_file f = { .path = name,
		.fileno = ld->nfiles++,
		.ld = ld,
		.kind = kind,
		.arg = arg };

	f.dir = conf_dirname(name);
	conf_parse(&f, text, len);
	free(f.dir);
}

/* Reads the file at path as one document of kind. */
void
conf_load_file(struct conf_loader *ld, const char *path,
    const struct conf_kind *kind, void *arg)
{
	char  *buf = NULL;
	size_t len = 0;

	if (conf_read(ld, ld->nfiles, path, &buf, &len) == -1)
		ld->nfiles++;
	else
		conf_load_text(ld, path, buf, len, kind, arg);
	free(buf);
}

/* Orders file names byte by byte, whatever the locale. */
static int
conf_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* True for a name the directory loader reads: *.yaml, not a dot file. */
static bool
conf_wanted(const char *name)
{
	size_t len = strlen(name);

	return name[0] != '.' && len > 5 &&
	    strcmp(name + len - 5, ".yaml") == 0;
}

/* The sorted *.yaml names in dir; -1 after reporting it cannot be read. */
static int
conf_list(struct conf_loader *ld, const char *dir, char ***names, size_t *n)
{
	DIR	      *d;
	struct dirent *de;
	char	      *why;

	*names = NULL;
	*n = 0;
	if ((d = opendir(dir)) == NULL) {
		why = conf_strerror(errno);
		conf_error_file(ld, ld->nfiles++,
		    "cannot open directory \"%s\": %s", dir, why);
		free(why);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (!conf_wanted(de->d_name))
			continue;
		*names = xreallocarray(*names, *n + 1, sizeof(**names));
		(*names)[(*n)++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (*n > 0)
		qsort(*names, *n, sizeof(**names), conf_name_cmp);
	return 0;
}

/* Reads every *.yaml file of dir, sorted by name. */
int
conf_load_dir(struct conf_loader *ld, const char *dir,
    const struct conf_kind *kind, void *arg)
{
	char	  **names, *path;
	size_t	    n, i, len = strlen(dir);
	struct stat st;

	if (conf_list(ld, dir, &names, &n) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		path = xasprintf("%.*s/%s",
		    (int)len - (len > 0 && dir[len - 1] == '/'), dir, names[i]);
		/* Skip directories named *.yaml, report broken links. */
		if (stat(path, &st) == -1 || S_ISREG(st.st_mode))
			conf_load_file(ld, path, kind, arg);
		free(path);
		free(names[i]);
	}
	free(names);
	return 0;
}

/* Orders errors by file, line, column, then as found. */
static int
conf_error_cmp(const void *a, const void *b)
{
	const struct conf_error *ea = a, *eb = b;

	if (ea->fileno != eb->fileno)
		return ea->fileno < eb->fileno ? -1 : 1;
	if (ea->line != eb->line)
		return ea->line < eb->line ? -1 : 1;
	if (ea->col != eb->col)
		return ea->col < eb->col ? -1 : 1;
	return (ea->seq > eb->seq) - (ea->seq < eb->seq);
}

/* Joins the sorted errors, one per line. */
static char *
conf_errors_join(struct conf_loader *ld)
{
	size_t i, len = 0;
	char  *out;

	qsort(ld->errs, ld->nerrs, sizeof(*ld->errs), conf_error_cmp);
	for (i = 0; i < ld->nerrs; i++)
		len += strlen(ld->errs[i].msg) + 1;
	out = xmalloc(len + 1);
	out[0] = '\0';
	for (i = 0, len = 0; i < ld->nerrs; i++)
		len += (size_t)sprintf(out + len, "%s%s", i ? "\n" : "",
		    ld->errs[i].msg);
	return out;
}

/* Ends a load: 0, or -1 with every error in *cause. */
int
conf_finish(struct conf_loader *ld, char **cause)
{
	size_t i;
	int    rc = 0;

	if (ld->nerrs > 0) {
		*cause = conf_errors_join(ld);
		rc = -1;
	}
	for (i = 0; i < ld->nerrs; i++)
		free(ld->errs[i].msg);
	free(ld->errs);
	ld->errs = NULL;
	ld->nerrs = 0;
	return rc;
}
