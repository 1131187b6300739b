/* placeholder */
extern int parse_placeholder;
