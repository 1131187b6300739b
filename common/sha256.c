/* sha256 on OpenSSL's EVP interface. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "common/log.h"
#include "common/sha256.h"
#include "common/xmalloc.h"

struct sha256 {
	EVP_MD_CTX *ctx;
};

struct sha256 *
sha256_begin(void)
{
	struct sha256 *h = xcalloc(1, sizeof *h);

	if ((h->ctx = EVP_MD_CTX_new()) == NULL ||
	    EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL) != 1)
		fatalx("sha256: cannot set up a digest");
	return h;
}

void
sha256_add(struct sha256 *h, const void *data, size_t len)
{
	if (EVP_DigestUpdate(h->ctx, data, len) != 1)
		fatalx("sha256: digest update failed");
}

int
sha256_add_file(struct sha256 *h, const char *path, char **cause)
{
	unsigned char buf[65536];
	ssize_t	      n;
	int	      fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		*cause = xasprintf("\"%s\": %s", path, strerror(errno));
		return -1;
	}
	while ((n = read(fd, buf, sizeof buf)) > 0 ||
	    (n == -1 && errno == EINTR)) {
		if (n > 0)
			sha256_add(h, buf, (size_t)n);
	}
	if (n == -1)
		*cause = xasprintf("\"%s\": %s", path, strerror(errno));
	close(fd);
	return n == -1 ? -1 : 0;
}

void
sha256_end(struct sha256 *h, char *hex)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int  len = 0, i;

	if (EVP_DigestFinal_ex(h->ctx, md, &len) != 1 || len != 32)
		fatalx("sha256: digest final failed");
	for (i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	EVP_MD_CTX_free(h->ctx);
	free(h);
}

int
sha256_file(const char *path, char *hex, char **cause)
{
	struct sha256 *h = sha256_begin();
	int	       rc = sha256_add_file(h, path, cause);

	sha256_end(h, hex);
	return rc;
}
