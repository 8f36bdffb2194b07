#ifndef MOBIFRAG_TRACE_WAIT_CMD_H
#define MOBIFRAG_TRACE_WAIT_CMD_H

/* `mobifrag-agent trace-wait ...`; returns the process exit status. */
int trace_wait_command(int argc, char **argv);

#endif
