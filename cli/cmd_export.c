/* hilab export: a consistent copy of the database to hand to someone. */
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "db/db.h"

int
cmd_export(const struct cli_options *o, int argc, char **argv)
{
	struct db *db;
	char	  *cause = NULL;
	int	   rc = CLI_EXIT_OK;

	if (argc != 2)
		return cli_usage_error("usage: hilab export FILE");
	if ((db = cli_db_open(o, false)) == NULL)
		return CLI_EXIT_UNAVAILABLE;
	if (db_backup(db, argv[1], &cause) == -1)
		rc = cli_error(CLI_EXIT_FAIL, "%s", cause);
	else
		printf("exported \"%s\" to \"%s\"\n", o->db_path, argv[1]);
	free(cause);
	db_close(db);
	return rc;
}
