/* placeholder */
extern int catalog_placeholder;
