/*
 * The "boot" section of a machine file: how a kind ssh machine switches
 * kernels (kexec, or a grub entry for one boot), the kernel it boots by
 * default, where hilab's kernels are installed on it, how long a switch
 * may take and where its console is read.  Its keys, checks, printer and
 * free, read by the configuration engine (common/conf.h).
 *
 *	boot:
 *	  method: kexec                  # kexec | grub | extlinux
 *	  known_good: 6.1.0-57-cloud-amd64
 *	  console: {file: /var/log/conserver/epyc.log}
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/conf_emit.h"
#include "common/xmalloc.h"
#include "machines/inventory_int.h"
#include "machines/machine.h"

#define BOOT_DIR	 "/boot/hilab"
#define BOOT_EXTLINUX	 "/boot/extlinux/extlinux.conf"
#define BOOT_KEEP	 4
#define BOOT_TIMEOUT_MS	 300000
#define BOOT_CONSOLE_DIR "/var/lib/hilab/console"
#define BOOT_RELEASE                           \
	"a kernel release (uname -r) such as " \
	"\"6.1.0-57-cloud-amd64\""
#define BOOT_CMDLINE "a kernel command line on one line"

#define BOOT(f) offsetof(struct machine_boot, f)
#define CONS(f) offsetof(struct machine_console, f)

/* The methods in the order of enum machine_boot_method, after NONE. */
static const char *const boot_methods[] = { "kexec", "grub", "extlinux", NULL };

/* method: kexec | grub | extlinux, into an enum machine_boot_method. */
static void
boot_parse_method(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    void *dst)
{
	int i = -1;

	conf_parse_enum(f, k, v, &i);
	if (i != -1)
		*(enum machine_boot_method *)dst =
		    (enum machine_boot_method)(MACHINE_BOOT_KEXEC + i);
}

/* True if s can be a kernel release hilab puts into paths on a host. */
bool
machine_release_ok(const char *s)
{
	size_t len = strlen(s);

	return len > 0 && len <= 64 && s[0] != '.' && s[0] != '-' &&
	    strspn(s,
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		"0123456789._+-") == len;
}

/* known_good: the release of the kernel the host boots by default. */
static void
boot_parse_release(struct conf_file *f, const struct conf_key *k,
    yaml_node_t *v, void *dst)
{
	const char *s = conf_scalar(f, k, v, BOOT_RELEASE);

	if (s == NULL)
		return;
	if (!machine_release_ok(s))
		conf_expect(f, k, v, BOOT_RELEASE);
	else
		conf_set_str(dst, s);
}

/* cmdline: words without control characters, on one line. */
static void
boot_parse_cmdline(struct conf_file *f, const struct conf_key *k,
    yaml_node_t *v, void *dst)
{
	const char *s = conf_scalar(f, k, v, BOOT_CMDLINE);
	const char *c;

	if (s == NULL)
		return;
	for (c = s; *c != '\0'; c++) {
		if ((unsigned char)*c < 0x20 || *c == 0x7f) {
			conf_expect(f, k, v, BOOT_CMDLINE);
			return;
		}
	}
	conf_set_str(dst, s);
}

static const struct conf_key boot_console_keys[] = {
	{ .name = "file", .parse = conf_parse_path, .off = CONS(file) },
	{ .name = "command",
	    .parse = inv_parse_argv,
	    .off = CONS(command),
	    .expect = INV_ARGV },
	{ .name = "dir", .parse = conf_parse_path, .off = CONS(dir) },
	{ .name = NULL },
};

const struct conf_key inventory_boot_keys[] = {
	{ .name = "method",
	    .parse = boot_parse_method,
	    .off = BOOT(method),
	    .flags = CONF_REQUIRED,
	    .choices = boot_methods },
	{ .name = "known_good",
	    .parse = boot_parse_release,
	    .off = BOOT(known_good),
	    .flags = CONF_REQUIRED },
	{ .name = "cmdline",
	    .parse = boot_parse_cmdline,
	    .off = BOOT(cmdline) },
	{ .name = "dir", .parse = inv_parse_abspath, .off = BOOT(dir) },
	{ .name = "extlinux",
	    .parse = inv_parse_abspath,
	    .off = BOOT(extlinux) },
	{ .name = "keep",
	    .parse = conf_parse_int,
	    .off = BOOT(keep),
	    .min = 1,
	    .max = 100 },
	INV_DUR("timeout", BOOT(timeout_ms)),
	{ .name = "console",
	    .parse = conf_parse_section,
	    .off = BOOT(console),
	    .sub = boot_console_keys },
	{ .name = NULL },
};

/* Checks the console: a file or a command, not both, not neither. */
static void
boot_console_check(struct conf_file *f, yaml_node_t *bmap)
{
	yaml_node_t *cmap = conf_map_value(f, bmap, "console");
	bool	     file, cmd;

	if (cmap == NULL || cmap->type != YAML_MAPPING_NODE)
		return;
	file = conf_map_value(f, cmap, "file") != NULL;
	cmd = conf_map_value(f, cmap, "command") != NULL;
	if (file && cmd)
		conf_error_key(f, cmap, "command",
		    "\"console\" takes \"file\" or \"command\", not both");
	else if (!file && !cmd)
		conf_error(f, cmap,
		    "missing \"file\" or \"command\" in \"console\"");
}

/*
 * extlinux picks its entry at U-Boot's prompt: it needs a console that
 * takes input (a command); "extlinux" belongs to that method alone.
 */
static void
boot_extlinux_check(struct conf_file *f, yaml_node_t *bmap,
    const struct machine_boot *b)
{
	if (b->method != MACHINE_BOOT_EXTLINUX) {
		if (conf_map_value(f, bmap, "extlinux") != NULL)
			conf_error_key(f, bmap, "extlinux",
			    "\"extlinux\" is only allowed with method "
			    "extlinux");
		return;
	}
	if (b->console.command == NULL)
		conf_error_key(f, bmap, "method",
		    "method extlinux answers U-Boot's prompt on the serial "
		    "console: it needs \"console: {command: [...]}\" (a "
		    "console that takes input, such as socat or ipmitool sol "
		    "activate)");
}

/* Fills in the section's defaults. */
static void
boot_defaults(struct machine_boot *b)
{
	if (b->dir == NULL)
		b->dir = xstrdup(BOOT_DIR);
	if (b->method == MACHINE_BOOT_EXTLINUX && b->extlinux == NULL)
		b->extlinux = xstrdup(BOOT_EXTLINUX);
	if (b->keep == 0)
		b->keep = BOOT_KEEP;
	if (b->timeout_ms == 0)
		b->timeout_ms = BOOT_TIMEOUT_MS;
	if ((b->console.file != NULL || b->console.command != NULL) &&
	    b->console.dir == NULL)
		b->console.dir = xstrdup(BOOT_CONSOLE_DIR);
}

/* Checks the section against the machine's kind and fills its defaults. */
void
inventory_boot_check(struct conf_file *f, yaml_node_t *map, struct machine *m)
{
	yaml_node_t	 *bmap = conf_map_value(f, map, "boot");
	yaml_node_pair_t *p = conf_map_pair(f, map, "boot");

	if (bmap == NULL || bmap->type != YAML_MAPPING_NODE)
		return;
	if (m->kind == MACHINE_LIBVIRT) {
		conf_error(f, conf_node(f, p->key),
		    "\"boot\" is only allowed with kind ssh (libvirt boots "
		    "its VMs itself)");
		return;
	}
	boot_console_check(f, bmap);
	boot_extlinux_check(f, bmap, &m->boot);
	if (m->boot.method != MACHINE_BOOT_NONE)
		boot_defaults(&m->boot);
}

/* Emits the console subsection, if there is one. */
static void
boot_print_console(struct conf_emit *e, const struct machine_console *c)
{
	if (c->file == NULL && c->command == NULL)
		return;
	conf_emit_key(e, "console");
	conf_emit_map(e, false);
	conf_emit_str(e, "file", c->file);
	conf_emit_strv(e, "command", c->command, conf_strv_len(c->command));
	conf_emit_str(e, "dir", c->dir);
	conf_emit_end(e);
}

/* Emits the section with every default, if the machine has one. */
void
inventory_boot_print(struct conf_emit *e, const struct machine_boot *b)
{
	if (b->method == MACHINE_BOOT_NONE)
		return;
	conf_emit_key(e, "boot");
	conf_emit_map(e, false);
	conf_emit_str(e, "method",
	    boot_methods[b->method - MACHINE_BOOT_KEXEC]);
	conf_emit_str(e, "known_good", b->known_good);
	conf_emit_str(e, "cmdline", b->cmdline);
	conf_emit_str(e, "dir", b->dir);
	conf_emit_str(e, "extlinux", b->extlinux);
	conf_emit_int(e, "keep", b->keep);
	conf_emit_duration(e, "timeout", b->timeout_ms);
	boot_print_console(e, &b->console);
	conf_emit_end(e);
}

/* Frees what the section holds. */
void
inventory_boot_free(struct machine_boot *b)
{
	free(b->known_good);
	free(b->cmdline);
	free(b->dir);
	free(b->extlinux);
	free(b->console.file);
	conf_strv_free(b->console.command);
	free(b->console.dir);
}
