/* placeholder: the CLI arrives with the daemon work */
int main(void) { return 0; }
