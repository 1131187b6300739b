/*
 * The one sha256 (common/sha256.h): the standard's test vectors, a hash
 * fed in pieces, files, and an unreadable file named in the error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/sha256.h"

#define SHA256_EMPTY \
	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define SHA256_ABC \
	"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
#define SHA256_MILLION_A \
	"cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"

/* The hex digest of len bytes at data, hashed at once. */
static void
hash_bytes(const void *data, size_t len, char *hex)
{
	struct sha256 *h = sha256_begin();

	sha256_add(h, data, len);
	sha256_end(h, hex);
}

/* FIPS 180-2's examples, in lowercase hex with a NUL after 64 digits. */
static void
test_vectors(void **state)
{
	char hex[SHA256_HEX_LEN + 2];

	(void)state;
	memset(hex, 'x', sizeof hex);
	hash_bytes("", 0, hex);
	assert_string_equal(hex, SHA256_EMPTY);
	hash_bytes("abc", 3, hex);
	assert_string_equal(hex, SHA256_ABC);
}

/* A million "a" fed in uneven pieces hashes as the whole. */
static void
test_pieces(void **state)
{
	struct sha256 *h = sha256_begin();
	char	       a[1000], hex[SHA256_HEX_LEN + 1];
	size_t	       left = 1000000, n;

	(void)state;
	memset(a, 'a', sizeof a);
	for (n = 1; left > 0; n = n % 997 + 1) {
		if (n > left)
			n = left;
		sha256_add(h, a, n);
		left -= n;
	}
	sha256_end(h, hex);
	assert_string_equal(hex, SHA256_MILLION_A);
}

/* Writes len bytes of 'a' to a new temporary file named into path. */
static void
temp_file(char *path, size_t len)
{
	char   a[4096];
	size_t n;
	int    fd;

	strcpy(path, "/tmp/hilab-sha256.XXXXXX");
	assert_int_not_equal(fd = mkstemp(path), -1);
	memset(a, 'a', sizeof a);
	for (; len > 0; len -= n) {
		n = len < sizeof a ? len : sizeof a;
		assert_int_equal(write(fd, a, n), (ssize_t)n);
	}
	close(fd);
}

/* Files: empty, larger than one read, and one added after bytes. */
static void
test_files(void **state)
{
	struct sha256 *h;
	char	       hex[SHA256_HEX_LEN + 1], want[SHA256_HEX_LEN + 1];
	char	       path[32], *cause = NULL;

	(void)state;
	temp_file(path, 0);
	assert_int_equal(sha256_file(path, hex, &cause), 0);
	assert_string_equal(hex, SHA256_EMPTY);
	unlink(path);
	temp_file(path, 1000000);
	assert_int_equal(sha256_file(path, hex, &cause), 0);
	assert_string_equal(hex, SHA256_MILLION_A);
	unlink(path);
	temp_file(path, 1);
	h = sha256_begin();
	sha256_add(h, "a", 1);
	assert_int_equal(sha256_add_file(h, path, &cause), 0);
	sha256_add(h, "a", 1);
	sha256_end(h, hex);
	unlink(path);
	hash_bytes("aaa", 3, want);
	assert_string_equal(hex, want);
	assert_null(cause);
}

/* A file that cannot be read is an error naming it. */
static void
test_unreadable(void **state)
{
	char hex[SHA256_HEX_LEN + 1], *cause = NULL;

	(void)state;
	assert_int_equal(sha256_file("/nonexistent/x", hex, &cause), -1);
	assert_string_equal(cause,
	    "\"/nonexistent/x\": No such file or directory");
	free(cause);
	cause = NULL;
	assert_int_equal(sha256_file("/", hex, &cause), -1);
	assert_non_null(strstr(cause, "\"/\": Is a directory"));
	free(cause);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_pieces),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_unreadable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
