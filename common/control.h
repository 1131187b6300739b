/*
 * The daemon's control socket: a unix stream socket (mode 0660) where the
 * CLI sends one request line and reads one reply.  Requests: "ping",
 * "nudge" (new work in the database), "status" (a JSON progress report).
 */
#ifndef HILAB_CONTROL_H
#define HILAB_CONTROL_H

struct control;

/* Returns an allocated reply line for a request, or NULL for "unknown". */
typedef char *(*control_request_cb)(const char *request, void *arg);

struct control *control_open(const char *path, char **cause);
int		control_fd(const struct control *);
/* Accepts one client, checks its uid, answers one request. */
void control_serve_one(struct control *, control_request_cb, void *);
void control_close(struct control *);

/* How long a client waits to send, and for each part of the reply. */
#define CONTROL_TIMEOUT_MS 5000

/*
 * Client side: sends request and returns the reply (caller frees), or NULL
 * with *cause when the daemon is not there or does not answer within
 * CONTROL_TIMEOUT_MS (one that hangs is as good as gone).
 */
char *control_call(const char *path, const char *request, char **cause);

#endif
