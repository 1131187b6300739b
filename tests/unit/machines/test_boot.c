/*
 * What the ssh backend writes and reads on a host, without one: the grub
 * menu entry of an install (its id, paths, every cmdline word quoted for
 * grub's script), and the install a booted kernel's BOOT_IMAGE= names.
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

#include "common/xmalloc.h"
#include "machines/backend.h"
#include "machines/boot.h"

/* An entry with an initrd, as grub-probe described its file system. */
static void
test_grub_entry(void **state)
{
	struct kinstall in = { .id = "0123456789abcdef",
		.release = "6.1.0-56-cloud-amd64",
		.dir = "/boot/hilab/0123456789abcdef",
		.initrd = "/boot/hilab/0123456789abcdef/initrd.img" };
	char	       *e;

	(void)state;
	e = boot_grub_entry(&in, "bf21-b904 /hilab/0123456789abcdef msdos ext2",
	    "root=UUID=bf21-b904 ro  quiet it's=$x;reboot");
	assert_string_equal(e,
	    "menuentry 'hilab 0123456789abcdef (6.1.0-56-cloud-amd64)' --id "
	    "hilab-0123456789abcdef {\n"
	    "\tinsmod part_msdos\n\tinsmod ext2\n"
	    "\tsearch --no-floppy --fs-uuid --set=root bf21-b904\n"
	    "\tlinux /hilab/0123456789abcdef/vmlinuz 'root=UUID=bf21-b904' "
	    "'ro' 'quiet' 'it'\\''s=$x;reboot'\n"
	    "\tinitrd /hilab/0123456789abcdef/initrd.img\n}\n");
	free(e);
}

/* An install without an initrd gets no initrd line. */
static void
test_grub_entry_no_initrd(void **state)
{
	struct kinstall in = { .id = "fedcba9876543210", .release = "6.1" };
	char	       *e;

	(void)state;
	e = boot_grub_entry(&in, "u /boot/hilab/fedcba9876543210 gpt ext2", "");
	assert_non_null(strstr(e, "\tinsmod part_gpt\n"));
	assert_non_null(
	    strstr(e, "\tlinux /boot/hilab/fedcba9876543210/vmlinuz\n}"));
	assert_null(strstr(e, "initrd"));
	free(e);
}

/* BOOT_IMAGE= names an install only as <dir>/<16 hex>/vmlinuz. */
static void
test_booted_id(void **state)
{
	char id[17];

	(void)state;
	ssh_backend_booted_id(
	    "BOOT_IMAGE=/boot/hilab/0123456789abcdef/vmlinuz root=/dev/vda1",
	    id);
	assert_string_equal(id, "0123456789abcdef");
	ssh_backend_booted_id(
	    "console=ttyS0 BOOT_IMAGE=/hilab/0123456789abcdef/vmlinuz", id);
	assert_string_equal(id, "0123456789abcdef");
	ssh_backend_booted_id(
	    "BOOT_IMAGE=/boot/vmlinuz-6.1.0-57-cloud-amd64 ro", id);
	assert_string_equal(id, "");
	ssh_backend_booted_id("console=ttyS0 panic=1", id);
	assert_string_equal(id, "");
	ssh_backend_booted_id("BOOT_IMAGE=/boot/hilab/0123456789ABCDEF/vmlinuz",
	    id);
	assert_string_equal(id, "");
	ssh_backend_booted_id("XBOOT_IMAGE=/b/0123456789abcdef/vmlinuz", id);
	assert_string_equal(id, "");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grub_entry),
		cmocka_unit_test(test_grub_entry_no_initrd),
		cmocka_unit_test(test_booted_id),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
