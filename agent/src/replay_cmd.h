#ifndef MOBIFRAG_REPLAY_CMD_H
#define MOBIFRAG_REPLAY_CMD_H

/* `mobifrag-agent replay ...`; returns the process exit status. */
int replay_command(int argc, char **argv);

#endif
