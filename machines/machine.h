/*
 * A lab machine as described by its inventory file (one YAML file per machine).
 * The inventory parser (inventory.c) fills these; backends read them.
 */
#ifndef HILAB_MACHINE_H
#define HILAB_MACHINE_H

#include <stdbool.h>
#include <stddef.h>

enum machine_kind {
	MACHINE_SSH = 1,	/* bare metal or any host reached over ssh */
	MACHINE_LIBVIRT,	/* a VM hilab defines and boots itself */
};

/* Expected topology; -1 (or NULL) where the file does not say. */
struct machine_topology {
	int	 cpus;		/* logical CPUs online */
	int	 sockets;
	int	 dies;
	int	 cores;		/* per socket */
	int	 threads;	/* per core */
	int	 numa_nodes;
	char	*llc_groups;	/* "0-3,4-7,...;": as the agent reports */
};

struct machine_ssh {
	char	*host;
	int	 port;			/* default 22 */
	char	*user;			/* default "root" */
	char	*identity;		/* private key file */
	char	*known_hosts;		/* strict host key check against it */
	bool	 trust_on_first_use;	/* add an unknown key (never a changed one) */
	int	 connect_timeout_ms;	/* default 10000 */
	int	 command_timeout_ms;	/* default 60000 */
	char	*agent_dir;		/* remote dir for the agent and its spool;
					   default "/var/tmp/hilab" */
};

struct machine {
	char			*name;
	char			*file;	/* inventory file it came from */
	int			 line;	/* line of its "name:" key */
	enum machine_kind	 kind;
	char			*arch;	/* x86_64, aarch64 */
	char			*cpu_model;
	struct machine_topology	 topo;
	struct machine_ssh	 ssh;
	char			*notes;
};

struct inventory {
	struct machine	**machines;
	size_t		  n;
};

#endif
