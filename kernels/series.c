/* Reading a patch series: mbox splitting, patch numbering, content hashes. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/sha256.h"
#include "common/xmalloc.h"
#include "kernels/series.h"

/* A message as found, before it is known to be a patch of the series. */
struct series_msg {
	const char *file;
	size_t	    index; /* 1-based within its file */
	const char *text;  /* from its "From " line */
	size_t	    len;
	char	   *subject; /* unfolded, raw */
};

/* Messages collected from one or more files. */
struct series_msgs {
	struct series_msg *v;
	size_t		   n;
};

/* Writes the sha256 of data as hex into out; see series.h. */
void
series_hash(const void *data, size_t len, char *out)
{
	struct sha256 *h = sha256_begin();

	sha256_add(h, data, len);
	sha256_end(h, out);
}

/* Returns whether the line at p (up to end) is a "Name: value" header. */
static int
series_is_header(const char *p, const char *end)
{
	const char *q = p;

	while (q<end && * q> ' ' && *q < 127 && *q != ':')
		q++;
	return q > p && q < end && *q == ':';
}

/* Returns whether p starts an mbox "From " line followed by a header. */
static int
series_is_from(const char *p, const char *end)
{
	const char *nl;

	if (end - p < 5 || memcmp(p, "From ", 5) != 0)
		return 0;
	if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
		return 0;
	return series_is_header(nl + 1, end);
}

/* Returns the unfolded Subject header of a message, or "". */
static char *
series_subject(const char *text, size_t len)
{
	const char *p = text, *end = text + len, *nl;
	char	   *s = NULL, *t;

	while (p < end && *p != '\n') {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		if (s != NULL && (*p == ' ' || *p == '\t')) {
			t = xasprintf("%s %.*s", s, (int)(nl - p - 1), p + 1);
			free(s);
			s = t;
		} else if (s != NULL)
			break;
		else if (nl - p > 8 && strncasecmp(p, "Subject:", 8) == 0)
			s = xstrndup(p + 8, (size_t)(nl - p - 8));
		p = nl + 1;
	}
	if (s == NULL)
		return xstrdup("");
	for (t = s; isspace((unsigned char)*t); t++)
		;
	memmove(s, t, strlen(t) + 1);
	return s;
}

/* Appends the messages of one mbox text to msgs. */
static void
series_split(const char *file, const char *text, size_t len,
    struct series_msgs *msgs)
{
	const char *p = text, *end = text + len, *start = NULL, *nl, *hdr;
	struct series_msg *m;
	size_t		   index = 0;

	if (series_is_header(text, end) && !series_is_from(text, end))
		start = text; /* a single message without a "From " line */

	for (;;) {
		if (p >= end || series_is_from(p, end)) {
			if (start != NULL) {
				msgs->v = xreallocarray(msgs->v, msgs->n + 1,
				    sizeof *msgs->v);
				m = &msgs->v[msgs->n++];
				m->file = file;
				m->index = ++index;
				m->text = start;
				m->len = (size_t)(p - start);
				hdr = start;
				if (series_is_from(start, p))
					hdr = (const char *)memchr(start, '\n',
						  m->len) +
					    1;
				m->subject =
				    series_subject(hdr, (size_t)(p - hdr));
			}
			start = p;
		}
		if (p >= end)
			break;
		nl = memchr(p, '\n', (size_t)(end - p));
		p = nl == NULL ? end : nl + 1;
	}
}

/* Returns whether the subject is a reply ("Re: ..."). */
static int
series_is_reply(const char *subject)
{
	return strncasecmp(subject, "re:", 3) == 0 ||
	    strncasecmp(subject, "aw:", 3) == 0 ||
	    strncasecmp(subject, "fwd:", 4) == 0;
}

/*
 * Reads the "[... PATCH ... n/N]" tag of a subject.  Returns 1 for a patch
 * (n and N 0 when it is not numbered) with *rest after the tag, 0 if the
 * subject is no patch.
 */
static int
series_tag(const char *subject, int *n, int *total, const char **rest)
{
	const char *close, *p;
	char	   *tag;
	int	    found = 0, a, b, used;

	*n = *total = 0;
	if (*subject != '[' || (close = strchr(subject, ']')) == NULL)
		return 0;
	tag = xstrndup(subject + 1, (size_t)(close - subject - 1));
	for (p = tag; *p != '\0'; p++) {
		if (strncasecmp(p, "PATCH", 5) == 0)
			found = 1;
		if ((p == tag || p[-1] == ' ') &&
		    sscanf(p, "%d/%d%n", &a, &b, &used) == 2 &&
		    (p[used] == '\0' || p[used] == ' ')) {
			*n = a;
			*total = b;
		}
	}
	free(tag);
	for (p = close + 1; *p == ' '; p++)
		;
	*rest = p;
	return found;
}

/* Returns whether a message carries a diff. */
static int
series_has_diff(const struct series_msg *m)
{
	return memmem(m->text, m->len, "\ndiff --git ", 12) != NULL ||
	    memmem(m->text, m->len, "\n+++ ", 5) != NULL;
}

/* Fills a series patch from a message. */
static void
series_patch_set(struct series_patch *sp, const struct series_msg *m,
    int number, const char *subject)
{
	const char *body = memchr(m->text, '\n', m->len);
	size_t	    len = m->len;

	/* Blank lines between mbox messages are not content either. */
	while (len > 1 && m->text[len - 1] == '\n' && m->text[len - 2] == '\n')
		len--;
	sp->number = number;
	sp->subject = xstrdup(subject);
	sp->file = xstrdup(m->file);
	sp->message = m->index;
	sp->text = xstrndup(m->text, m->len);
	sp->len = m->len;
	/* The "From <commit> <date>" line is not content: leave it out. */
	if (body != NULL && memcmp(m->text, "From ", 5) == 0)
		series_hash(body + 1, len - (size_t)(body + 1 - m->text),
		    sp->hash);
	else
		series_hash(m->text, len, sp->hash);
}

/* Formats "file: message N (\"subject\")" for error messages. */
static char *
series_where(const struct series_msg *m)
{
	return xasprintf("%s: message %zu (\"%s\")", m->file, m->index,
	    m->subject);
}

/* Orders patches by number. */
static int
series_cmp(const void *a, const void *b)
{
	const struct series_patch *pa = a, *pb = b;

	return (pa->number > pb->number) - (pa->number < pb->number);
}

/* Checks one patch message's tag against the series seen so far. */
static int
series_check_msg(const struct series_msg *m, int n, int total, int *series_n,
    char **cause)
{
	char *where = series_where(m);
	int   rc = -1;

	if (n < 0 || n > total)
		*cause =
		    xasprintf("%s: bad patch number %d/%d", where, n, total);
	else if (*series_n != -1 && total != *series_n)
		*cause = xasprintf("%s: patch %d/%d in a series of %d", where,
		    n, total, *series_n);
	else if (!series_has_diff(m))
		*cause = xasprintf("%s: no diff in the message", where);
	else
		rc = 0;
	*series_n = total;
	free(where);
	return rc;
}

/* Checks that numbered patches run 1..n once each. */
static int
series_check_numbers(struct series *s, int total, int unnumbered, char **cause)
{
	size_t i;

	if (s->n == 0) {
		*cause = xasprintf("%s: no patches found", s->path);
		return -1;
	}
	if (unnumbered) {
		if (total > 0) {
			*cause = xasprintf("%s: numbered and unnumbered "
					   "patches mixed",
			    s->path);
			return -1;
		}
		for (i = 0; i < s->n; i++)
			s->patches[i].number = (int)i + 1;
		return 0;
	}
	qsort(s->patches, s->n, sizeof *s->patches, series_cmp);
	for (i = 0; i < s->n; i++) {
		if (i > 0 && s->patches[i].number == s->patches[i - 1].number) {
			*cause = xasprintf("%s: message %zu: duplicate patch "
					   "%d/%d",
			    s->patches[i].file, s->patches[i].message,
			    s->patches[i].number, total);
			return -1;
		}
		if (s->patches[i].number != (int)i + 1) {
			*cause = xasprintf("%s: patch %zu/%d missing", s->path,
			    i + 1, total);
			return -1;
		}
	}
	if ((int)s->n != total) {
		*cause = xasprintf("%s: patch %zu/%d missing", s->path,
		    s->n + 1, total);
		return -1;
	}
	return 0;
}

/* Turns the messages into the series: patches only, in series order. */
static struct series *
series_collect(const char *path, const struct series_msgs *msgs, char **cause)
{
	struct series		*s = xcalloc(1, sizeof *s);
	const struct series_msg *m;
	int			 n, total, series_n = -1, unnumbered = 0;
	const char		*rest;
	size_t			 i;

	s->path = xstrdup(path);
	s->patches = xcalloc(msgs->n + 1, sizeof *s->patches);
	for (i = 0; i < msgs->n; i++) {
		m = &msgs->v[i];
		if (series_is_reply(m->subject) ||
		    !series_tag(m->subject, &n, &total, &rest))
			continue;
		if (total > 0 && n == 0)
			continue; /* the cover letter */
		if (total == 0)
			unnumbered = 1;
		else if (series_check_msg(m, n, total, &series_n, cause) == -1)
			goto fail;
		if (total == 0 && !series_has_diff(m))
			continue;
		series_patch_set(&s->patches[s->n++], m, n, rest);
	}
	if (series_check_numbers(s, series_n, unnumbered, cause) == -1)
		goto fail;
	return s;
fail:
	series_free(s);
	return NULL;
}

/* Frees the messages' subjects and array. */
static void
series_msgs_free(struct series_msgs *msgs)
{
	size_t i;

	for (i = 0; i < msgs->n; i++)
		free(msgs->v[i].subject);
	free(msgs->v);
}

/* Reads mbox text already in memory; see series.h. */
struct series *
series_parse(const char *name, const char *text, size_t len, char **cause)
{
	struct series_msgs msgs = { 0 };
	struct series	  *s;

	series_split(name, text, len, &msgs);
	s = series_collect(name, &msgs, cause);
	series_msgs_free(&msgs);
	return s;
}

/* Reads a whole file; NULL with *cause on failure. */
static char *
series_read(const char *path, size_t *len, char **cause)
{
	char  *buf = NULL;
	size_t n;
	FILE  *f;

	if ((f = fopen(path, "rb")) == NULL) {
		*cause = xasprintf("%s: %s", path, strerror(errno));
		return NULL;
	}
	buf = xmalloc(1);
	*len = 0;
	for (;;) {
		buf = xreallocarray(buf, *len + 65536 + 1, 1);
		n = fread(buf + *len, 1, 65536, f);
		*len += n;
		if (n < 65536)
			break;
	}
	if (ferror(f)) {
		*cause = xasprintf("%s: %s", path, strerror(errno));
		free(buf);
		buf = NULL;
	} else
		buf[*len] = '\0';
	fclose(f);
	return buf;
}

/* Keeps *.patch names for scandir. */
static int
series_is_patch_name(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 6 && strcmp(d->d_name + n - 6, ".patch") == 0;
}

/* Reads the *.patch files of a directory, in name order. */
static struct series *
series_load_dir(const char *dir, char **cause)
{
	struct series_msgs msgs = { 0 };
	struct dirent	 **names = NULL;
	struct series	  *s = NULL;
	char		 **paths = NULL, **texts = NULL;
	size_t		   len;
	int		   n, i;

	if ((n = scandir(dir, &names, series_is_patch_name, alphasort)) < 0) {
		*cause = xasprintf("%s: %s", dir, strerror(errno));
		return NULL;
	}
	paths = xcalloc((size_t)n + 1, sizeof *paths);
	texts = xcalloc((size_t)n + 1, sizeof *texts);
	for (i = 0; i < n; i++) {
		paths[i] = xasprintf("%s/%s", dir, names[i]->d_name);
		if ((texts[i] = series_read(paths[i], &len, cause)) == NULL)
			goto out;
		series_split(paths[i], texts[i], len, &msgs);
	}
	s = series_collect(dir, &msgs, cause);
out:
	series_msgs_free(&msgs);
	for (i = 0; i < n; i++) {
		free(paths[i]);
		free(texts[i]);
		free(names[i]);
	}
	free(paths);
	free(texts);
	free(names);
	return s;
}

/* Reads a series from an mbox file or a patch directory; see series.h. */
struct series *
series_load(const char *path, char **cause)
{
	struct series *s;
	struct stat    st;
	size_t	       len;
	char	      *text;

	if (stat(path, &st) == -1) {
		*cause = xasprintf("%s: %s", path, strerror(errno));
		return NULL;
	}
	if (S_ISDIR(st.st_mode))
		return series_load_dir(path, cause);
	if ((text = series_read(path, &len, cause)) == NULL)
		return NULL;
	s = series_parse(path, text, len, cause);
	free(text);
	return s;
}

/* Frees a series; accepts NULL. */
void
series_free(struct series *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->n; i++) {
		free(s->patches[i].subject);
		free(s->patches[i].file);
		free(s->patches[i].text);
	}
	free(s->patches);
	free(s->path);
	free(s);
}
