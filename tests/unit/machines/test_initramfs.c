/*
 * A boot's initramfs with the agent added: the image byte for byte, then
 * at the next multiple of 4 an archive that GNU cpio reads back as the
 * file's directory and the file, with their modes and the file's bytes;
 * bad input refused with the path named and nothing left behind.
 */
#include <sys/stat.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/xmalloc.h"
#include "machines/initramfs.h"

#define IMAGE	 "IMAGE" /* 5 bytes: the archive starts at 8 */
#define FILESIZE 70001

static char dir[] = "/tmp/hilab-initramfs-XXXXXX";

/* dir/name with len bytes of buf. */
static char *
put(const char *name, const void *buf, size_t len)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	assert_int_equal(fwrite(buf, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
	return path;
}

/* The whole file at path, its length in *len. */
static char *
slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "r");
	char *buf;
	long  n;

	assert_non_null(fp);
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	n = ftell(fp);
	rewind(fp);
	buf = xmalloc((size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
	fclose(fp);
	*len = (size_t)n;
	return buf;
}

static int
setup(void **state)
{
	(void)state;
	return mkdtemp(dir) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	char *cmd = xasprintf("rm -rf %s", dir);

	(void)state;
	assert_int_equal(system(cmd), 0);
	free(cmd);
	return 0;
}

/* GNU cpio extracts the appended archive: directory, file, modes, bytes. */
static void
test_cpio_reads_it(void **state)
{
	char	   *data = xmalloc(FILESIZE), *image = put("image", IMAGE, 5);
	char	   *agent, *out = xasprintf("%s/out", dir), *cause = NULL;
	char	   *got, *cmd, *path;
	size_t	    len, i;
	struct stat st;

	(void)state;
	for (i = 0; i < FILESIZE; i++)
		data[i] = (char)(i * 7 + i / 251);
	agent = put("agent", data, FILESIZE);
	assert_int_equal(initramfs_add_file(image, agent,
			     "/var/tmp/hilab/hilab-agent-0123", 0755, out,
			     &cause),
	    0);
	assert_null(cause);
	got = slurp(out, &len);
	assert_memory_equal(got, IMAGE, 5);
	assert_memory_equal(got + 5, "\0\0\0", 3);
	assert_memory_equal(got + 8, "070701", 6);
	assert_int_equal(len % 4, 0);
	cmd = xasprintf("mkdir %s/x && cd %s/x && tail -c +9 %s | "
			"cpio -id --quiet --no-absolute-filenames",
	    dir, dir, out);
	assert_int_equal(system(cmd), 0);
	path = xasprintf("%s/x/var/tmp/hilab", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0755);
	free(path);
	path = xasprintf("%s/x/var/tmp/hilab/hilab-agent-0123", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0755);
	free(got);
	got = slurp(path, &len);
	assert_int_equal(len, FILESIZE);
	assert_memory_equal(got, data, FILESIZE);
	free(got);
	free(path);
	free(cmd);
	free(out);
	free(agent);
	free(image);
	free(data);
}

/* The archive lists exactly the directory and the file. */
static void
test_cpio_lists_two(void **state)
{
	char *image = put("image2", IMAGE IMAGE IMAGE IMAGE, 20);
	char *agent = put("agent2", "#!/bin/sh\n", 10);
	char *out = xasprintf("%s/out2", dir), *cause = NULL, *cmd;
	char  line[256];
	FILE *fp;
	int   n = 0;

	(void)state;
	assert_int_equal(initramfs_add_file(image, agent, "/opt/a/b", 0700, out,
			     &cause),
	    0);
	cmd = xasprintf("tail -c +21 %s | cpio -itv --quiet", out);
	assert_non_null(fp = popen(cmd, "r"));
	while (fgets(line, sizeof line, fp) != NULL) {
		if (n == 0)
			assert_non_null(strstr(line, "drwxr-xr-x"));
		else
			assert_non_null(strstr(line, "-rwx------"));
		assert_non_null(
		    strstr(line, n == 0 ? " opt/a\n" : " opt/a/b\n"));
		n++;
	}
	assert_int_equal(pclose(fp), 0);
	assert_int_equal(n, 2);
	free(cmd);
	free(out);
	free(agent);
	free(image);
}

/* Bad input: the path named, no output and no temporary file left. */
static void
test_refused(void **state)
{
	char *image = put("image3", IMAGE, 5), *agent = put("agent3", "x", 1);
	char *out = xasprintf("%s/out3", dir), *cause = NULL, *cmd;
	char *gone = xasprintf("%s/no/such/out", dir);

	(void)state;
	assert_int_equal(initramfs_add_file(image, agent, "/top", 0755, out,
			     &cause),
	    -1);
	assert_non_null(strstr(cause, "\"/top\""));
	free(cause);
	cause = NULL;
	assert_int_equal(initramfs_add_file(image, "/nonexistent/agent", "/a/b",
			     0755, out, &cause),
	    -1);
	assert_non_null(strstr(cause, "\"/nonexistent/agent\""));
	free(cause);
	cause = NULL;
	assert_int_equal(initramfs_add_file("/nonexistent/image", agent, "/a/b",
			     0755, out, &cause),
	    -1);
	assert_non_null(strstr(cause, "\"/nonexistent/image\""));
	free(cause);
	cause = NULL;
	assert_int_equal(initramfs_add_file(image, agent, "/a/b", 0755, gone,
			     &cause),
	    -1);
	assert_non_null(strstr(cause, "no/such/out"));
	free(cause);
	assert_int_equal(access(out, F_OK), -1);
	cmd = xasprintf("test -z \"$(ls %s | grep tmp)\"", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(gone);
	free(out);
	free(agent);
	free(image);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpio_reads_it),
		cmocka_unit_test(test_cpio_lists_two),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
