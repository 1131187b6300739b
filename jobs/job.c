/* placeholder */
extern int job_placeholder;
