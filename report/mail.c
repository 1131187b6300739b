/* Reports as mail, and mbox files; see report/mail.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "common/cause.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "report/mail.h"

/* The Date header's form of ms: "Tue, 01 Dec 2026 22:09:39 +0000". */
static void
mail_date(int64_t ms, char *buf, size_t size)
{
	static const char *const day[] = { "Sun", "Mon", "Tue", "Wed", "Thu",
		"Fri", "Sat" };
	static const char *const mon[] = { "Jan", "Feb", "Mar", "Apr", "May",
		"Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	time_t			 t = (time_t)(ms / 1000);
	struct tm		 tm;
	char			 zone[8];

	localtime_r(&t, &tm);
	strftime(zone, sizeof zone, "%z", &tm);
	snprintf(buf, size, "%s, %02d %s %04d %02d:%02d:%02d %s",
	    day[tm.tm_wday], tm.tm_mday, mon[tm.tm_mon], tm.tm_year + 1900,
	    tm.tm_hour, tm.tm_min, tm.tm_sec, zone);
}

/* The address inside "Name <addr>", or the whole text. */
static char *
mail_address(const char *sender)
{
	const char *lt = strrchr(sender, '<'), *gt;

	if (lt == NULL || (gt = strchr(lt, '>')) == NULL)
		return xstrdup(sender);
	return xstrndup(lt + 1, (size_t)(gt - lt - 1));
}

/* The message: headers, a blank line, the body; see report/mail.h. */
char *
mail_format(const struct mail *m)
{
	char   date[48], *text = NULL, *addr = mail_address(m->from);
	size_t len = 0, n = strlen(m->body);
	FILE  *fp;

	if ((fp = open_memstream(&text, &len)) == NULL)
		fatalx("open_memstream: out of memory");
	mail_date(m->date_ms, date, sizeof date);
	fprintf(fp, "From: %s\n", m->from);
	if (m->to != NULL)
		fprintf(fp, "To: %s\n", m->to);
	fprintf(fp,
	    "Subject: %s\nDate: %s\nMessage-ID: <%lld.%ld.%s>\n"
	    "MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n"
	    "Content-Transfer-Encoding: 8bit\n\n%s%s",
	    m->subject, date, (long long)m->date_ms, (long)getpid(),
	    strchr(addr, '@') ? addr : "hilab@localhost", m->body,
	    n > 0 && m->body[n - 1] == '\n' ? "" : "\n");
	fclose(fp);
	free(addr);
	return text;
}

/* "hilab <hilab@HOSTNAME>"; see report/mail.h. */
char *
mail_sender(void)
{
	char host[256];

	if (gethostname(host, sizeof host) == -1 || *host == '\0')
		snprintf(host, sizeof host, "localhost");
	host[sizeof host - 1] = '\0';
	return xasprintf("hilab <hilab@%s>", host);
}

/* Whether the line at p is ">*From " and so quoted in an mbox. */
static int
mail_from_line(const char *p)
{
	p += strspn(p, ">");
	return strncmp(p, "From ", 5) == 0;
}

/* The mbox text of a message: separator, quoted lines, a blank line. */
static char *
mail_mbox_text(const char *sender, int64_t date_ms, const char *text)
{
	time_t	    t = (time_t)(date_ms / 1000);
	struct tm   tm;
	char	    when[40], *out = NULL, *addr = mail_address(sender);
	const char *p, *nl;
	size_t	    len = 0;
	FILE	   *fp;

	if ((fp = open_memstream(&out, &len)) == NULL)
		fatalx("open_memstream: out of memory");
	gmtime_r(&t, &tm);
	strftime(when, sizeof when, "%a %b %e %H:%M:%S %Y", &tm);
	fprintf(fp, "From %s %s\n", addr, when);
	for (p = text; *p != '\0'; p = nl + (*nl != '\0')) {
		nl = p + strcspn(p, "\n");
		fprintf(fp, "%s%.*s\n", mail_from_line(p) ? ">" : "",
		    (int)(nl - p), p);
	}
	fputc('\n', fp);
	fclose(fp);
	free(addr);
	return out;
}

/* Writes all of buf to fd; 0 or -1 with errno. */
static int
mail_write(int fd, const char *buf, size_t n)
{
	ssize_t w;

	for (; n > 0; buf += w, n -= (size_t)w)
		if ((w = write(fd, buf, n)) < 0 && errno != EINTR)
			return -1;
		else if (w < 0)
			w = 0;
	return 0;
}

/* Appends a message to an mbox file; see report/mail.h. */
int
mail_mbox_append(const char *path, const char *sender, int64_t date_ms,
    const char *text, char **cause)
{
	char *box = mail_mbox_text(sender, date_ms, text);
	int   fd, rc = -1;

	if ((fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
		 0600)) == -1) {
		causef(cause, "mbox \"%s\": %s", path, strerror(errno));
		goto out;
	}
	if (flock(fd, LOCK_EX) == -1 || mail_write(fd, box, strlen(box)) == -1)
		causef(cause, "mbox \"%s\": %s", path, strerror(errno));
	else
		rc = 0;
	close(fd);
out:
	free(box);
	return rc;
}
