/* placeholder: the agent's main arrives with the agent work */
int main(void) { return 0; }
