#ifndef MOBIFRAG_APPEND_CMD_H
#define MOBIFRAG_APPEND_CMD_H

/* `mobifrag-agent append ...`; returns the process exit status. */
int append_command(int argc, char **argv);

#endif
