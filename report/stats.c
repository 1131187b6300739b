/* placeholder */
extern int stats_placeholder;
