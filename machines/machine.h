/*
 * A lab machine as described by its inventory file (one YAML file per machine).
 * The inventory parser (inventory.c) fills these; backends read them.
 */
#ifndef HILAB_MACHINE_H
#define HILAB_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum machine_kind {
	MACHINE_SSH = 1, /* bare metal or any host reached over ssh */
	MACHINE_LIBVIRT, /* a VM hilab defines and boots itself */
};

/* Where a benchmark's source install is built (machine file "build_on"). */
enum machine_build_on {
	MACHINE_BUILD_HOST = 0,	  /* on the host itself (the default) */
	MACHINE_BUILD_CONTROLLER, /* on the controller, for the host's arch */
};

/* Expected topology; -1 (or NULL) where the file does not say. */
struct machine_topology {
	int   cpus; /* logical CPUs online */
	int   sockets;
	int   dies;
	int   clusters; /* per socket (arm64 clusters of cores) */
	int   cores;	/* per socket */
	int   threads;	/* per core */
	int   numa_nodes;
	char *llc_groups; /* cpu lists split by ';': "0-3;4-7;8-9,12" */
};

struct machine_ssh {
	char *host;
	int   port;		  /* default 22 */
	char *user;		  /* default "root" */
	char *identity;		  /* private key file */
	char *known_hosts;	  /* strict host key check against it */
	bool  trust_on_first_use; /* add an unknown key (never a changed one) */
	int   connect_timeout_ms; /* default 10000 */
	int   command_timeout_ms; /* default 60000 */
	int   keepalive_ms;	  /* TCP keepalive probes' interval: a
				     host silent for 4 of them is dropped;
				     default 15000 */
	int reconnect_ms;	  /* how long a run's dropped host is
				     reconnected to; default 60000 */
	char *agent_dir;	  /* remote dir for the agent and its spool;
				     default "/var/tmp/hilab" */
};

/* One guest NUMA cell of a libvirt machine. */
struct machine_numa_cell {
	char	*cpus; /* cpu list, normalized: "0-7,16-23" */
	uint64_t memory_kib;
};

/* How hilab defines a libvirt VM; zeroed for kind ssh. */
struct machine_libvirt {
	char			 *uri;	 /* default "qemu:///system" */
	int			  vcpus; /* == topo.cpus */
	uint64_t		  memory_kib;
	char			 *cpu_model;   /* default "Nehalem" */
	struct machine_numa_cell *cells;       /* NULL if none */
	size_t			  ncells;      /* == topo.numa_nodes */
	char			 *cmdline;     /* extra kernel args, or "" */
	char			 *disk;	       /* absolute path, or NULL */
	char			 *console_dir; /* absolute path, or NULL */
	char			 *kernel; /* booted for the "running" kernel
					     (known good), or NULL */
	char *initrd;			  /* host image for kernels that
					     bring none, or NULL */
	int   boot_timeout_ms;		  /* default 180000 */
	char *emulator;			  /* the qemu binary libvirt runs;
					     default machine_emulator() */
	int boot_tries;			  /* boots a hang or an emulator
					     failure gets; default 3 */
};

/*
 * The emulator of an x86_64 VM whose file names none: qemu with one TCG
 * thread for every vCPU (scripts/qemu-tcg-single, which scripts/lab.sh
 * installs here): qemu's default of one thread per vCPU can hang a
 * many-vCPU guest at boot on a loaded host.  A machine file that names
 * /usr/bin/qemu-system-x86_64 as its emulator gets qemu's default.
 */
#define MACHINE_QEMU_SINGLE  "/usr/local/libexec/hilab/qemu-tcg-single"
/* The emulator of an aarch64 VM whose file names none: qemu's own. */
#define MACHINE_QEMU_AARCH64 "/usr/bin/qemu-system-aarch64"

/* How hilab switches a machine's power; zeroed when the file has none. */
enum machine_power_kind {
	MACHINE_POWER_NONE = 0,
	MACHINE_POWER_IPMI,    /* a BMC reached with ipmitool */
	MACHINE_POWER_COMMAND, /* commands, e.g. a switchable PDU */
};

struct machine_ipmi {
	char *host;
	int   port; /* default 623 */
	char *user;
	char *password_file; /* read by ipmitool -f */
	char *interface;     /* default "lanplus" */
	int   cipher;	     /* default 3 */
};

/* Each a NULL-terminated argv, or NULL when not given. */
struct machine_power_commands {
	char **on;
	char **off;
	char **cycle;  /* NULL: off, then on */
	char **status; /* prints "on" or "off" */
};

struct machine_power {
	enum machine_power_kind	      kind;
	struct machine_ipmi	      ipmi;
	struct machine_power_commands command;
	int			      boot_timeout_ms; /* power on to ssh
							 up; default
							 300000 */
};

/* How a kind ssh machine switches kernels; zeroed when it cannot. */
enum machine_boot_method {
	MACHINE_BOOT_NONE = 0, /* only the kernel it runs */
	MACHINE_BOOT_KEXEC,    /* kexec -l, then kexec -e */
	MACHINE_BOOT_GRUB,     /* a grub entry for one boot: grub-reboot */
	MACHINE_BOOT_EXTLINUX, /* an extlinux entry U-Boot boots once */
};

/*
 * Where a machine's console is read: a console server's log file, or a
 * command whose output is the console (ipmitool sol activate), which also
 * takes what is written to it.  Each boot's part is kept in a file of dir.
 */
struct machine_console {
	char  *file;	/* or NULL */
	char **command; /* NULL-terminated argv, or NULL */
	char  *dir;	/* default "/var/lib/hilab/console" */
};

struct machine_boot {
	enum machine_boot_method method;
	char *known_good; /* uname -r of the kernel it boots by default */
	char *cmdline;	  /* for the kernels hilab boots, or NULL: the
			     known-good kernel's own */
	char *dir;	  /* where kernels are installed; "/boot/hilab" */
	char *extlinux;	  /* extlinux.conf U-Boot reads (method extlinux);
			     "/boot/extlinux/extlinux.conf" */
	int keep;	  /* hilab kernels kept there; default 4 */
	int timeout_ms;	  /* a switch until ssh answers; default 300000 */
	struct machine_console console; /* zeroed when none */
};

struct machine {
	char		       *name;
	char		       *file; /* inventory file it came from */
	int			line; /* line of its "name:" key */
	enum machine_kind	kind;
	char		       *arch; /* x86_64, aarch64 */
	char		       *cpu_model;
	struct machine_topology topo;
	struct machine_ssh	ssh; /* for libvirt: the forwarded address */
	char		       *notes;
	char		       *mirror; /* controller directory of .deb
					   files and source tarballs
					   for benchmarks, or NULL */
	enum machine_build_on build_on;
	char		    **health_check; /* argv of the check after a
					       recovery, or NULL: a short
					       hackbench */
	struct machine_libvirt libvirt;	    /* kind libvirt only */
	struct machine_power   power;	    /* kind ssh only */
	struct machine_boot    boot;	    /* kind ssh only */
};

/*
 * True if s can be a kernel release (uname -r) hilab puts on a host: it
 * becomes part of paths there (/lib/modules/<release>).
 */
bool machine_release_ok(const char *s);
/*
 * The emulator a VM's domain runs: the one its file names, or its arch's
 * default (MACHINE_QEMU_SINGLE, MACHINE_QEMU_AARCH64).
 */
const char *machine_emulator(const struct machine *);

struct inventory {
	struct machine **machines;
	size_t		 n;
};

#endif
