/*
 * Reports as mail: a plain-text message (RFC 5322 headers, UTF-8 body),
 * appended to an mbox file (mboxrd: a "From " separator line, body lines
 * that start with ">*From " quoted with one more '>').  How it is sent on
 * (a sendmail-compatible command) is the caller's.
 */
#ifndef HILAB_MAIL_H
#define HILAB_MAIL_H

#include <stdint.h>

struct mail {
	const char *from;    /* "hilab <hilab@host>" */
	const char *to;	     /* NULL: no To header */
	const char *subject; /* one line */
	int64_t	    date_ms; /* Date header, local time */
	const char *body;    /* lines ended by '\n' */
};

/* The message: headers, a blank line, the body (caller frees). */
char *mail_format(const struct mail *);
/* "hilab <hilab@HOSTNAME>", the sender of hilab's mail (caller frees). */
char *mail_sender(void);
/*
 * Appends the message text (from mail_format) to the mbox file at path,
 * created 0600 if missing, under an exclusive lock, with a separator
 * line of sender's address and date_ms; 0, or -1 with *cause naming path.
 */
int mail_mbox_append(const char *path, const char *sender, int64_t date_ms,
    const char *text, char **cause);

#endif
