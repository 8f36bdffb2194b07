#ifndef MOBIFRAG_FRAGCHECK_CMD_H
#define MOBIFRAG_FRAGCHECK_CMD_H

/* `mobifrag-agent fragcheck ...`; returns the process exit status. */
int fragcheck_command(int argc, char **argv);

#endif
