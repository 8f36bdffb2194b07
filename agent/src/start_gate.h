#ifndef MOBIFRAG_START_GATE_H
#define MOBIFRAG_START_GATE_H

#include <pthread.h>
#include <stdbool.h>

/* A barrier that releases every worker at once, like pthread_barrier_t,
 * but which the coordinator can also abort: if creating the k-th thread
 * fails, the k-1 threads already waiting must be released, not deadlocked. */
struct start_gate {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    unsigned arrived;
    enum { GATE_CLOSED, GATE_OPEN, GATE_ABORTED } state;
};

void start_gate_init(struct start_gate *gate);
void start_gate_destroy(struct start_gate *gate);

/* Worker side: announce arrival, block until opened or aborted.
 * Returns true when the worker should start. */
bool start_gate_arrive(struct start_gate *gate);

/* Coordinator side: wait until `workers` have arrived, then release them. */
void start_gate_open_when_arrived(struct start_gate *gate, unsigned workers);

void start_gate_abort(struct start_gate *gate);

#endif
