/* hilab export: a consistent copy of the database to hand to someone. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "db/db.h"

/* hilab export FILE: the SQLite backup API's copy, taken while in use. */
int
cmd_export(const struct cli_options *o, const struct args *a)
{
	const char *to = a->pos[0].text;
	struct db  *db;
	char	   *cause = NULL;
	int	    rc = CLI_EXIT_OK;

	if ((db = cli_db_open(o, false)) == NULL)
		return CLI_EXIT_UNAVAILABLE;
	if (db_backup(db, to, &cause) == -1)
		rc = cli_error(CLI_EXIT_FAIL, "%s", cause);
	else if (o->json)
		cli_print_json(json_pack("{s:s}", "file", to));
	else
		printf("exported \"%s\" to \"%s\"\n", o->db_path, to);
	free(cause);
	db_close(db);
	return rc;
}
