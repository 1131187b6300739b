/*
 * A boot's initramfs with one file added (the agent, so that it needs no
 * upload after the boot).  The kernel unpacks every archive it finds in
 * the initramfs in turn, compressed or not, each over what came before
 * (Documentation/driver-api/early-userspace/buffer-format.rst): the image
 * is copied as it is, padded to 4 bytes, and followed by an uncompressed
 * newc archive of the file's directory and the file, then its trailer.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cause.h"
#include "common/xmalloc.h"
#include "machines/initramfs.h"

#define INITRAMFS_BUF (64 * 1024)

/* Zeros up to the next multiple of 4 of *off. */
static void
initramfs_pad(FILE *fp, size_t *off)
{
	static const char zero[4];
	size_t		  n = (4 - *off % 4) % 4;

	*off += fwrite(zero, 1, n, fp);
}

/* Copies the file at path to fp; its size added to *off. */
static int
initramfs_copy(FILE *fp, const char *path, size_t *off)
{
	char  *buf = xmalloc(INITRAMFS_BUF);
	size_t n;
	FILE  *in;
	int    rc;

	if ((in = fopen(path, "re")) == NULL) {
		free(buf);
		return -1;
	}
	while ((n = fread(buf, 1, INITRAMFS_BUF, in)) > 0)
		*off += fwrite(buf, 1, n, fp);
	rc = ferror(in) ? -1 : 0;
	fclose(in);
	free(buf);
	return rc;
}

/*
 * One newc entry: its header and name, padded; for a regular file the
 * contents of path (size bytes), padded.
 */
static int
initramfs_entry(FILE *fp, size_t *off, unsigned ino, mode_t mode,
    const char *name, const char *path, size_t size)
{
	size_t start;

	*off += (size_t)fprintf(fp,
	    "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08zX%08X", ino,
	    (unsigned)mode, 0u, 0u, S_ISDIR(mode) ? 2u : 1u, 0u, (unsigned)size,
	    0u, 0u, 0u, 0u, strlen(name) + 1, 0u);
	*off += fwrite(name, 1, strlen(name) + 1, fp);
	initramfs_pad(fp, off);
	if (path == NULL)
		return 0;
	start = *off;
	if (initramfs_copy(fp, path, off) != 0)
		return -1;
	if (*off - start != size) { /* changed since its stat */
		errno = ESTALE;
		return -1;
	}
	initramfs_pad(fp, off);
	return 0;
}

/* The archive of dest's directory and dest after the image. */
static int
initramfs_archive(FILE *fp, size_t *off, const char *file, const char *dest,
    mode_t mode, size_t size)
{
	const char *name = dest + strspn(dest, "/");
	char	   *dir = xstrndup(name, (size_t)(strrchr(name, '/') - name));
	int	    rc;

	rc = initramfs_entry(fp, off, 1, S_IFDIR | 0755, dir, NULL, 0);
	if (rc == 0)
		rc = initramfs_entry(fp, off, 2, S_IFREG | (mode & 07777), name,
		    file, size);
	if (rc == 0)
		rc = initramfs_entry(fp, off, 3, 0, "TRAILER!!!", NULL, 0);
	free(dir);
	return rc;
}

/* Writes the image and the archive into fp; -1 with errno. */
static int
initramfs_write(FILE *fp, const char *image, const char *file, const char *dest,
    mode_t mode, size_t size)
{
	size_t off = 0;
	int    rc;

	if ((rc = initramfs_copy(fp, image, &off)) == 0) {
		initramfs_pad(fp, &off);
		rc = initramfs_archive(fp, &off, file, dest, mode, size);
	}
	if (ferror(fp))
		rc = -1;
	if (fclose(fp) != 0)
		rc = -1;
	return rc;
}

int
initramfs_add_file(const char *image, const char *file, const char *dest,
    mode_t mode, const char *out, char **cause)
{
	struct stat st;
	char	   *tmp = xasprintf("%s.tmp-%ld", out, (long)getpid());
	FILE	   *fp;
	int	    rc = -1;

	errno = 0;
	if (dest[0] != '/' || strrchr(dest + 1, '/') == NULL)
		causef(cause, "initramfs: \"%s\": not a file in a directory",
		    dest);
	else if (stat(file, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > 0xffffffffLL)
		causef(cause, "initramfs: \"%s\": %s", file,
		    errno != 0 ? strerror(errno) : "not a regular file");
	else if ((fp = fopen(tmp, "we")) == NULL)
		causef(cause, "initramfs: \"%s\": %s", tmp, strerror(errno));
	else if (initramfs_write(fp, image, file, dest, mode,
		     (size_t)st.st_size) != 0) {
		causef(cause, "initramfs: \"%s\" with \"%s\" into \"%s\": %s",
		    image, file, out, strerror(errno != 0 ? errno : EIO));
		unlink(tmp);
	} else if (rename(tmp, out) != 0) {
		causef(cause, "initramfs: \"%s\": %s", out, strerror(errno));
		unlink(tmp);
	} else
		rc = 0;
	free(tmp);
	return rc;
}
