/*
 * A boot's initramfs with one file added: the image as given, then a
 * cpio archive (newc) of the file and its directory, which the kernel
 * unpacks over the image's own.
 */
#ifndef HILAB_MACHINES_INITRAMFS_H
#define HILAB_MACHINES_INITRAMFS_H

#include <sys/types.h>

/*
 * Writes out (through a temporary file renamed into place): the image,
 * then an archive of dest's directory (mode 0755) and dest (mode, the
 * contents of file), both owned by root.  dest is an absolute path whose
 * directory's parent the image has; -1 with *cause on failure.
 */
int initramfs_add_file(const char *image, const char *file, const char *dest,
    mode_t mode, const char *out, char **cause);

#endif
