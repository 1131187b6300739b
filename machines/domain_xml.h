/*
 * The libvirt domain of a lab VM: one boot of one kernel, generated from
 * the machine's description.  qemu:///system under TCG, direct kernel
 * boot, serial console to a file, ssh forwarded from a loopback address.
 */
#ifndef HILAB_DOMAIN_XML_H
#define HILAB_DOMAIN_XML_H

#include "machines/backend.h"
#include "machines/machine.h"

/* Every lab domain's name starts with this. */
#define DOMAIN_XML_PREFIX "hilab-"

/* The domain name of machine m: "hilab-<name>" (caller frees). */
char *domain_xml_name(const struct machine *);

/*
 * Returns the domain XML for booting kernel k on machine m with its
 * serial console written to console_path (caller frees), or NULL with
 * *cause when the description cannot make a domain (no kernel image, a
 * topology that does not multiply to the vcpus, an ssh host that is not
 * a loopback IPv4 address).  The kernel command line is
 * "console=ttyS0 panic=1", then the machine's cmdline, then k->cmdline.
 */
char *domain_xml_new(const struct machine *m, const struct backend_kernel *k,
    const char *console_path, char **cause);

#endif
