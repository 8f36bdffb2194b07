#ifndef MOBIFRAG_FRAGBENCH_CMD_H
#define MOBIFRAG_FRAGBENCH_CMD_H

/* `mobifrag-agent fragbench`: ARS's fragmentation benchmark (fragbench.h). */
int fragbench_command(int argc, char **argv);

#endif
