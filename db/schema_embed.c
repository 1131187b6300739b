/*
 * Build-time generator: turns db/schema/NNN_name.sql files, given in order,
 * into a C source defining db_migrations[] (see db/migrate.h).
 * Usage: schema_embed OUTPUT.c 001_init.sql 002_more.sql ...
 */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Copies the base name of path without ".sql" into name; checks NNN_. */
static int
embed_name(const char *path, int want, char *name, size_t size)
{
	char  *copy, *base;
	size_t len;
	int    ok;

	copy = strdup(path);
	base = basename(copy);
	len = strlen(base);
	ok = len > 8 && len - 4 < size && strcmp(base + len - 4, ".sql") == 0 &&
	    base[3] == '_' && atoi(base) == want &&
	    strspn(base, "0123456789") == 3;
	if (ok)
		snprintf(name, size, "%.*s", (int)(len - 4), base);
	else
		fprintf(stderr, "schema_embed: %s: expected %03d_name.sql\n",
		    path, want);
	free(copy);
	return ok ? 0 : -1;
}

/* Writes the bytes of path as a NUL-terminated char array named m_<n>. */
static int
embed_file(FILE *out, const char *path, int n)
{
	FILE *in;
	int   c, col = 0;

	if ((in = fopen(path, "rb")) == NULL) {
		perror(path);
		return -1;
	}
	fprintf(out, "static const char m_%03d[] = {", n);
	while ((c = getc(in)) != EOF) {
		if (c == 0) {
			fprintf(stderr, "schema_embed: %s: NUL byte\n", path);
			fclose(in);
			return -1;
		}
		fprintf(out, "%s0x%02x,", col++ % 12 ? " " : "\n\t", c);
	}
	fprintf(out, "\n\t0x00\n};\n\n");
	fclose(in);
	return 0;
}

int
main(int argc, char **argv)
{
	FILE *out;
	char  name[256];
	int   i, rc = 1;

	if (argc < 3) {
		fprintf(stderr, "usage: schema_embed OUT.c FILE.sql...\n");
		return 1;
	}
	if ((out = fopen(argv[1], "w")) == NULL) {
		perror(argv[1]);
		return 1;
	}
	fprintf(out,
	    "/* Generated from db/schema by schema_embed. */\n"
	    "#include \"db/migrate.h\"\n\n");
	for (i = 2; i < argc; i++)
		if (embed_name(argv[i], i - 1, name, sizeof name) == -1 ||
		    embed_file(out, argv[i], i - 1) == -1)
			goto out;
	fprintf(out, "const struct db_migration db_migrations[] = {\n");
	for (i = 2; i < argc; i++) {
		embed_name(argv[i], i - 1, name, sizeof name);
		fprintf(out, "\t{ %d, \"%s\", m_%03d },\n", i - 1, name, i - 1);
	}
	fprintf(out, "};\nconst size_t db_migrations_count = %d;\n", argc - 2);
	rc = 0;
out:
	if (fclose(out) != 0 || rc != 0) {
		remove(argv[1]);
		return 1;
	}
	return 0;
}
