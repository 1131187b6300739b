/*
 * Inventory tests: golden machine files under data/ (good-*.yaml with the
 * normalized printout in good-*.out, bad-*.yaml with the exact errors in
 * bad-*.err), directory loading, and the shipped examples/machines.
 */
#include <sys/stat.h>

#include <errno.h>
#include <glob.h>
#include <limits.h>
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
#include "machines/inventory.h"

/* Absolute path of data/, written as @DATA@ in the golden outputs. */
static char *datadir;
static char *srcdir;

/* Reads a whole file, or returns NULL. */
static char *
slurp(const char *path)
{
	FILE  *fp;
	char  *buf;
	size_t len;

	if ((fp = fopen(path, "r")) == NULL)
		return NULL;
	buf = xmalloc(1024 * 1024);
	len = fread(buf, 1, 1024 * 1024 - 1, fp);
	buf[len] = '\0';
	fclose(fp);
	return buf;
}

/* Reads a golden file, failing the test if it is missing. */
static char *
golden(const char *path)
{
	char *s = slurp(path);

	if (s == NULL)
		fail_msg("missing golden file %s", path);
	return s;
}

/* Replaces every occurrence of from in s with to; frees s. */
static char *
subst(char *s, const char *from, const char *to)
{
	size_t flen = strlen(from), n = 0;
	char  *out = xmalloc(strlen(s) * (strlen(to) + 1) + 1), *p, *q;

	for (p = s; (q = strstr(p, from)) != NULL; p = q + flen) {
		memcpy(out + n, p, (size_t)(q - p));
		n += (size_t)(q - p);
		memcpy(out + n, to, strlen(to));
		n += strlen(to);
	}
	strcpy(out + n, p);
	free(s);
	return out;
}

/* The inventory's normalized printout. */
static char *
print_inv(const struct inventory *inv)
{
	char  *buf = NULL;
	size_t len = 0;
	FILE  *fp = open_memstream(&buf, &len);

	assert_non_null(fp);
	inventory_print(fp, inv);
	fclose(fp);
	return buf;
}

/* Compares text with a golden one, printing both when they differ. */
static bool
same(const char *what, const char *got, const char *want)
{
	if (strcmp(got, want) == 0)
		return true;
	print_message("%s differs\n--- expected\n%s\n--- got\n%s\n---\n", what,
	    want, got);
	return false;
}

/* Loads inv's printout again from a file and checks it prints the same. */
static void
check_roundtrip(const char *what, const char *printed)
{
	char		  tmp[] = "/tmp/inventory-rt-XXXXXX";
	char		 *cause = NULL, *again;
	struct inventory *inv;
	int		  fd;

	assert_true((fd = mkstemp(tmp)) != -1);
	assert_int_equal(write(fd, printed, strlen(printed)),
	    (ssize_t)strlen(printed));
	close(fd);
	inv = inventory_load_file(tmp, &cause);
	unlink(tmp);
	if (inv == NULL)
		fail_msg("%s: printout does not parse again:\n%s", what, cause);
	again = print_inv(inv);
	if (!same(what, again, printed))
		fail_msg("%s: printing the re-parsed printout differs", what);
	free(again);
	inventory_free(inv);
}

/* Checks a loaded inventory against its golden printout, and round trips. */
static bool
check_good(const char *what, struct inventory *inv, const char *cause,
    const char *outpath)
{
	char *printed, *shown, *want;
	bool  ok;

	if (inv == NULL) {
		print_message("%s: unexpected errors:\n%s\n", what, cause);
		return false;
	}
	printed = print_inv(inv);
	shown = subst(xstrdup(printed), datadir, "@DATA@");
	want = golden(outpath);
	ok = same(what, shown, want);
	check_roundtrip(what, printed);
	free(printed);
	free(shown);
	free(want);
	return ok;
}

/* Checks a load that must fail with exactly the errors in errpath. */
static bool
check_bad(const char *what, struct inventory *inv, char *cause,
    const char *errpath)
{
	char  *want = golden(errpath);
	size_t len = strlen(want);
	bool   ok;

	if (len > 0 && want[len - 1] == '\n')
		want[len - 1] = '\0';
	if (inv != NULL) {
		print_message("%s: loaded, but errors were expected\n", what);
		inventory_free(inv);
		ok = false;
	} else
		ok = same(what, cause, want);
	free(want);
	return ok;
}

/* The golden path next to a data file: good-x.yaml -> good-x.out. */
static char *
sibling(const char *path, const char *ext)
{
	size_t len = strlen(path) - strlen(".yaml");

	return xasprintf("%.*s%s", (int)len, path, ext);
}

/* Every good-*.yaml parses into exactly its good-*.out. */
static void
test_good_files(void **state)
{
	glob_t		  g;
	size_t		  i, bad = 0;
	struct inventory *inv;
	char		 *cause, *out;

	assert_int_equal(glob("good-*.yaml", 0, NULL, &g), 0);
	assert_true(g.gl_pathc >= 5);
	for (i = 0; i < g.gl_pathc; i++) {
		cause = NULL;
		inv = inventory_load_file(g.gl_pathv[i], &cause);
		out = sibling(g.gl_pathv[i], ".out");
		if (!check_good(g.gl_pathv[i], inv, cause, out))
			bad++;
		inventory_free(inv);
		free(cause);
		free(out);
	}
	globfree(&g);
	assert_int_equal(bad, 0);
}

/* Every bad-*.yaml fails with exactly the lines of its bad-*.err. */
static void
test_bad_files(void **state)
{
	glob_t		  g;
	size_t		  i, bad = 0;
	struct inventory *inv;
	char		 *cause, *err;

	assert_int_equal(glob("bad-*.yaml", 0, NULL, &g), 0);
	assert_true(g.gl_pathc >= 18);
	for (i = 0; i < g.gl_pathc; i++) {
		cause = NULL;
		inv = inventory_load_file(g.gl_pathv[i], &cause);
		err = sibling(g.gl_pathv[i], ".err");
		if (!check_bad(g.gl_pathv[i], inv, cause, err))
			bad++;
		free(cause);
		free(err);
	}
	globfree(&g);
	assert_int_equal(bad, 0);
}

/* A directory loads its *.yaml files in byte order, skipping the rest. */
static void
test_dir_sorted(void **state)
{
	static const char *order[] = { "ten", "B-upper", "a1", "a2", "b" };
	struct inventory  *inv;
	char		  *cause = NULL;
	size_t		   i;

	inv = inventory_load("dirs/sorted/", &cause);
	assert_true(check_good("dirs/sorted", inv, cause, "dirs/sorted.out"));
	assert_int_equal(inv->n, 5);
	for (i = 0; i < inv->n; i++)
		assert_string_equal(inv->machines[i]->name, order[i]);
	assert_string_equal(inv->machines[2]->file, "dirs/sorted/a.yaml");
	assert_int_equal(inv->machines[3]->line, 4);
	inventory_free(inv);
}

/* A name defined in two files is an error naming both; errors by file. */
static void
test_dir_dup(void **state)
{
	struct inventory *inv;
	char		 *cause = NULL;

	inv = inventory_load("dirs/dup", &cause);
	assert_true(check_bad("dirs/dup", inv, cause, "dirs/dup.err"));
	free(cause);
}

/*
 * The errors of several files come back at once, by file and then by
 * position, whether a file's reading, its syntax or a check found them.
 */
static void
test_dir_errors(void **state)
{
	struct inventory *inv;
	char		 *cause = NULL;

	inv = inventory_load("dirs/errors", &cause);
	assert_true(check_bad("dirs/errors", inv, cause, "dirs/errors.err"));
	free(cause);
}

/* A missing directory or file is an error, not an empty inventory. */
static void
test_missing(void **state)
{
	struct inventory *inv;
	char		 *cause = NULL;

	inv = inventory_load("dirs/missing", &cause);
	assert_null(inv);
	assert_string_equal(cause,
	    "cannot open directory \"dirs/missing\": "
	    "no such file or directory");
	free(cause);
	inv = inventory_load_file("dirs/missing.yaml", &cause);
	assert_null(inv);
	assert_string_equal(cause,
	    "cannot open \"dirs/missing.yaml\": "
	    "no such file or directory");
	free(cause);
}

/* An empty directory, or one without *.yaml files, is an empty inventory. */
static void
test_dir_empty(void **state)
{
	char		  tmp[] = "/tmp/inventory-empty-XXXXXX";
	struct inventory *inv;
	char		 *cause = NULL, *printed;

	assert_non_null(mkdtemp(tmp));
	inv = inventory_load(tmp, &cause);
	rmdir(tmp);
	assert_non_null(inv);
	assert_null(cause);
	assert_int_equal(inv->n, 0);
	printed = print_inv(inv);
	assert_string_equal(printed, "[]\n");
	check_roundtrip("empty", printed);
	free(printed);
	inventory_free(inv);
	inv = inventory_load("dirs/noyaml", &cause);
	assert_non_null(inv);
	assert_int_equal(inv->n, 0);
	inventory_free(inv);
}

/* inventory_load_path picks the directory or the file loader. */
static void
test_load_path(void **state)
{
	struct inventory *inv;
	char		 *cause = NULL;

	inv = inventory_load_path("dirs/sorted", &cause);
	assert_non_null(inv);
	assert_int_equal(inv->n, 5);
	inventory_free(inv);
	inv = inventory_load_path("good-sequence.yaml", &cause);
	assert_non_null(inv);
	assert_int_equal(inv->n, 2);
	inventory_free(inv);
}

/* The structs carry the parsed values, defaults and resolved paths. */
static void
test_fields(void **state)
{
	struct inventory *inv;
	struct machine	 *m;
	char		 *cause = NULL, *path;

	inv = inventory_load_file("good-libvirt.yaml", &cause);
	assert_non_null(inv);
	assert_null(inventory_find(inv, "nope"));
	m = inventory_find(inv, "vm8");
	assert_non_null(m);
	assert_string_equal(m->file, "good-libvirt.yaml");
	assert_int_equal(m->line, 2);
	assert_int_equal(m->kind, MACHINE_LIBVIRT);
	assert_string_equal(machine_kind_str(m->kind), "libvirt");
	assert_int_equal(m->topo.numa_nodes, 2);
	assert_int_equal(m->topo.dies, -1);
	assert_int_equal(m->libvirt.vcpus, 8);
	assert_int_equal(m->libvirt.memory_kib, 1536 * 1024);
	assert_int_equal(m->libvirt.ncells, 2);
	assert_string_equal(m->libvirt.cells[1].cpus, "4-7");
	assert_int_equal(m->libvirt.cells[1].memory_kib, 1024 * 1024);
	assert_string_equal(m->libvirt.uri, "qemu:///system");
	assert_string_equal(m->libvirt.cmdline, "");
	assert_int_equal(m->ssh.port, 2200);
	path = xasprintf("%s/keys/vm_key", datadir);
	assert_string_equal(m->ssh.identity, path);
	free(path);
	inventory_free(inv);
	inv = inventory_load_file("good-full-ssh.yaml", &cause);
	assert_non_null(inv);
	m = inv->machines[0];
	assert_int_equal(m->ssh.connect_timeout_ms, 3000);
	assert_int_equal(m->ssh.command_timeout_ms, 1500);
	assert_true(m->ssh.trust_on_first_use);
	assert_string_equal(m->ssh.agent_dir, "/srv/hilab/agent");
	assert_string_equal(m->topo.llc_groups, "0-7;8-11;12-15");
	inventory_free(inv);
}

/* One example machine's expected class. */
struct example {
	const char	 *name;
	enum machine_kind kind;
	const char	 *arch;
	int		  cpus;
	int		  sockets;
	int		  cores;
	int		  threads;
};

/* Kernel releases hilab may put into paths on a host. */
static void
test_release_ok(void **state)
{
	char name[66];

	assert_true(machine_release_ok("6.1.0-57-cloud-amd64"));
	assert_true(machine_release_ok("6.19.0-rc8+"));
	assert_false(machine_release_ok(""));
	assert_false(machine_release_ok(".."));
	assert_false(machine_release_ok("-rc1"));
	assert_false(machine_release_ok("6.1/../x"));
	assert_false(machine_release_ok("6.1 rc"));
	memset(name, 'a', 64);
	name[64] = '\0';
	assert_true(machine_release_ok(name));
	name[64] = 'a';
	name[65] = '\0';
	assert_false(machine_release_ok(name));
}

/* The five seed machine classes in examples/machines all load. */
static void
test_examples(void **state)
{
	static const struct example want[] = {
		{ "altra-80c", MACHINE_SSH, "aarch64", 80, 1, 80, 1 },
		{ "board-18cpu", MACHINE_SSH, "aarch64", 18, 1, 18, 1 },
		{ "epyc-2s", MACHINE_SSH, "x86_64", 256, 2, 64, 2 },
		{ "vm32", MACHINE_LIBVIRT, "x86_64", 32, 2, 8, 2 },
		{ "xeon-2s", MACHINE_SSH, "x86_64", 64, 2, 16, 2 },
	};
	struct inventory *inv;
	struct machine	 *m;
	char		 *cause = NULL, *dir, *printed;
	size_t		  i;

	dir = xasprintf("%s/examples/machines", srcdir);
	inv = inventory_load(dir, &cause);
	free(dir);
	if (inv == NULL)
		fail_msg("examples/machines: %s", cause);
	assert_int_equal(inv->n, 5);
	for (i = 0; i < inv->n; i++) {
		m = inv->machines[i];
		assert_string_equal(m->name, want[i].name);
		assert_int_equal(m->kind, want[i].kind);
		assert_string_equal(m->arch, want[i].arch);
		assert_int_equal(m->topo.cpus, want[i].cpus);
		assert_int_equal(m->topo.sockets, want[i].sockets);
		assert_int_equal(m->topo.cores, want[i].cores);
		assert_int_equal(m->topo.threads, want[i].threads);
		assert_true(m->ssh.identity[0] == '/');
	}
	m = inventory_find(inv, "board-18cpu");
	assert_string_equal(m->topo.llc_groups, "0-3;4-7;8-11;12-15;16-17");
	m = inventory_find(inv, "altra-80c");
	assert_non_null(strstr(m->cpu_model, "Neoverse-N1"));
	m = inventory_find(inv, "epyc-2s");
	assert_non_null(strstr(m->cpu_model, "AMD EPYC"));
	assert_int_equal(m->boot.method, MACHINE_BOOT_GRUB);
	assert_int_equal(m->boot.timeout_ms, 600000);
	assert_string_equal(m->boot.console.command[0], "ipmitool");
	m = inventory_find(inv, "xeon-2s");
	assert_int_equal(m->boot.method, MACHINE_BOOT_KEXEC);
	assert_string_equal(m->boot.dir, "/boot/hilab");
	m = inventory_find(inv, "board-18cpu");
	assert_int_equal(m->boot.method, MACHINE_BOOT_EXTLINUX);
	assert_string_equal(m->boot.extlinux, "/boot/extlinux/extlinux.conf");
	assert_string_equal(m->boot.console.command[0], "socat");
	assert_int_equal(m->power.kind, MACHINE_POWER_COMMAND);
	m = inventory_find(inv, "altra-80c");
	assert_int_equal(m->power.kind, MACHINE_POWER_IPMI);
	m = inventory_find(inv, "vm32");
	assert_int_equal(m->libvirt.vcpus, 32);
	assert_string_equal(m->libvirt.cmdline, "rt_group_sched=0");
	printed = print_inv(inv);
	check_roundtrip("examples/machines", printed);
	free(printed);
	inventory_free(inv);
}

/* Finds the data directory and works from it, so errors name short paths. */
static int
setup(void **state)
{
	char *dir;

	if ((srcdir = getenv("HILAB_SRCDIR")) == NULL)
		srcdir = SRCDIR;
	dir = xasprintf("%s/tests/unit/inventory/data", srcdir);
	datadir = realpath(dir, NULL);
	free(dir);
	if (datadir == NULL || chdir(datadir) == -1) {
		fprintf(stderr, "inventory test data: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* Frees what setup found. */
static int
teardown(void **state)
{
	free(datadir);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_files),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_dir_sorted),
		cmocka_unit_test(test_dir_dup),
		cmocka_unit_test(test_dir_errors),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_dir_empty),
		cmocka_unit_test(test_load_path),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_release_ok),
		cmocka_unit_test(test_examples),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
