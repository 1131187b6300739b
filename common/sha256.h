/*
 * sha256 of files and bytes, as 64 lowercase hex digits: content hashes
 * that name what is put on a host (the agent, kernels) so a copy already
 * there is not sent again, and that check what arrived.
 */
#ifndef HILAB_SHA256_H
#define HILAB_SHA256_H

#include <stddef.h>

#define SHA256_HEX_LEN 64

struct sha256;

/* A hash being computed; add to it, then end it. */
struct sha256 *sha256_begin(void);
void	       sha256_add(struct sha256 *, const void *data, size_t len);
/* Adds a file's bytes; -1 with *cause ("\"path\": why") if unreadable. */
int sha256_add_file(struct sha256 *, const char *path, char **cause);
/* Writes the hex digest (SHA256_HEX_LEN + 1 bytes) and frees the hash. */
void sha256_end(struct sha256 *, char *hex);
/* The sha256 of a whole file into hex; 0, or -1 with *cause. */
int sha256_file(const char *path, char *hex, char **cause);

#endif
