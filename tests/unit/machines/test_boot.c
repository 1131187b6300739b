/*
 * What the ssh backend writes and reads on a host, without one: the grub
 * menu entry of an install (its id, paths, every cmdline word quoted for
 * grub's script), its extlinux entry, and the install a booted kernel's
 * BOOT_IMAGE= names.
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
#include "tests/lib/slurp.h"

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
	assert_null(strstr(e, "devicetree"));
	free(e);
	in.dtb = "/boot/hilab/fedcba9876543210/board.dtb";
	e = boot_grub_entry(&in, "u /boot/hilab/fedcba9876543210 gpt ext2", "");
	assert_non_null(strstr(e,
	    "/vmlinuz\n\tdevicetree "
	    "/boot/hilab/fedcba9876543210/board.dtb\n}"));
	free(e);
}

/*
 * An extlinux entry: its label, the files as U-Boot sees them on the boot
 * file system, BOOT_IMAGE= (which names the install as the backend reads
 * it back) and the command line verbatim.
 */
static void
test_extlinux_entry(void **state)
{
	struct kinstall in = { .id = "0123456789abcdef",
		.release = "6.1.0-57-cloud-arm64",
		.dir = "/boot/hilab/0123456789abcdef",
		.initrd = "/boot/hilab/0123456789abcdef/initrd.img" };
	char	       *e, id[17];

	(void)state;
	e = boot_extlinux_entry(&in, "/hilab/0123456789abcdef",
	    "console=ttyAMA0 panic=1 hilab.bootfs=/dev/vda1");
	assert_string_equal(e,
	    "LABEL hilab-0123456789abcdef\n"
	    "  MENU LABEL hilab 0123456789abcdef (6.1.0-57-cloud-arm64)\n"
	    "  KERNEL /hilab/0123456789abcdef/vmlinuz\n"
	    "  INITRD /hilab/0123456789abcdef/initrd.img\n"
	    "  APPEND BOOT_IMAGE=/hilab/0123456789abcdef/vmlinuz "
	    "console=ttyAMA0 panic=1 hilab.bootfs=/dev/vda1\n");
	e[strlen(e) - 1] = '\0'; /* as /proc/cmdline shows it */
	ssh_backend_booted_id(strstr(e, "APPEND ") + 7, id);
	assert_string_equal(id, "0123456789abcdef");
	free(e);
	in.initrd = NULL;
	e = boot_extlinux_entry(&in, "/boot/hilab/0123456789abcdef", "");
	assert_null(strstr(e, "INITRD"));
	assert_non_null(strstr(e,
	    "  KERNEL /boot/hilab/0123456789abcdef/"
	    "vmlinuz\n"));
	free(e);
}

/* Runs a script with sh; its exit status. */
static int
run_sh(const char *script)
{
	char  path[] = "/tmp/hilab-extlinux-sh-XXXXXX", *cmd;
	int   fd = mkstemp(path), rc;
	FILE *fp;

	assert_true(fd != -1);
	assert_non_null(fp = fdopen(fd, "w"));
	fputs(script, fp);
	fclose(fp);
	cmd = xasprintf("sh %s", path);
	rc = system(cmd);
	unlink(path);
	free(cmd);
	return rc;
}

/*
 * The script on a real extlinux.conf, twice: each install's entry takes
 * DEFAULT's FDT line (not another label's), the block holds every install
 * once, DEFAULT and the rest stay as they were.
 */
static void
test_extlinux_script(void **state)
{
	char		tmp[] = "/tmp/hilab-extlinux-XXXXXX", *conf, *got, *e;
	char	       *script, *dir1, *dir2, *cmd;
	const char     *hit;
	struct kinstall a = { .id = "0123456789abcdef", .release = "6.1.0-a" };
	struct kinstall b = { .id = "fedcba9876543210", .release = "6.1.0-b" };
	static const char orig[] =
	    "DEFAULT known-good\n"
	    "LABEL other\n  KERNEL /x\n  FDT /other.dtb\n"
	    "LABEL known-good\n  KERNEL /vmlinuz-6.1\n"
	    "  FDT /board.dtb\n  APPEND console=ttyAMA0\n";
	FILE *fp;

	(void)state;
	assert_non_null(mkdtemp(tmp));
	conf = xasprintf("%s/extlinux.conf", tmp);
	assert_non_null(fp = fopen(conf, "w"));
	fputs(orig, fp);
	fclose(fp);
	dir1 = a.dir = xasprintf("%s/hilab/%s", tmp, a.id);
	dir2 = b.dir = xasprintf("%s/hilab/%s", tmp, b.id);
	cmd = xasprintf("mkdir -p %s %s", dir1, dir2);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	cmd = xasprintf("%s/hilab", tmp);
	e = boot_extlinux_entry(&a, "/hilab/0123456789abcdef", "ro");
	script = boot_extlinux_script(conf, cmd, &a, e);
	assert_int_equal(run_sh(script), 0);
	free(script);
	free(e);
	/* b brings its own device tree: DEFAULT's is not its. */
	b.dtb = "/hilab/fedcba9876543210/board.dtb";
	e = boot_extlinux_entry(&b, "/hilab/fedcba9876543210", "ro");
	script = boot_extlinux_script(conf, cmd, &b, e);
	assert_int_equal(run_sh(script), 0);
	assert_non_null(got = test_slurp(conf, NULL));
	assert_int_equal(strncmp(got, orig, strlen(orig)), 0);
	hit = strstr(got,
	    "# hilab-begin: one entry per kernel hilab installed\n"
	    "LABEL hilab-0123456789abcdef\n");
	assert_non_null(hit);
	assert_true((size_t)(hit - got) >= strlen(orig));
	assert_non_null(strstr(got,
	    "0123456789abcdef/vmlinuz ro\n"
	    "  FDT /board.dtb\n"
	    "LABEL hilab-fedcba9876543210\n"));
	assert_non_null(strstr(got,
	    "  KERNEL /hilab/fedcba9876543210/vmlinuz\n"
	    "  FDT /hilab/fedcba9876543210/board.dtb\n"
	    "  APPEND BOOT_IMAGE=/hilab/fedcba9876543210/vmlinuz ro\n"
	    "# hilab-end\n"));
	assert_null(strstr(got + strlen(orig), "other.dtb"));
	free(got);
	free(script);
	free(e);
	free(cmd);
	cmd = xasprintf("rm -rf %s", tmp);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(dir1);
	free(dir2);
	free(conf);
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
		cmocka_unit_test(test_extlinux_entry),
		cmocka_unit_test(test_extlinux_script),
		cmocka_unit_test(test_booted_id),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
