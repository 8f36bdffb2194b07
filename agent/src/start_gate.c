#include "start_gate.h"

void start_gate_init(struct start_gate *gate)
{
    pthread_mutex_init(&gate->lock, NULL);
    pthread_cond_init(&gate->changed, NULL);
    gate->arrived = 0;
    gate->state = GATE_CLOSED;
}

void start_gate_destroy(struct start_gate *gate)
{
    pthread_cond_destroy(&gate->changed);
    pthread_mutex_destroy(&gate->lock);
}

bool start_gate_arrive(struct start_gate *gate)
{
    pthread_mutex_lock(&gate->lock);
    gate->arrived++;
    pthread_cond_broadcast(&gate->changed);
    while (gate->state == GATE_CLOSED)
        pthread_cond_wait(&gate->changed, &gate->lock);
    bool go = gate->state == GATE_OPEN;
    pthread_mutex_unlock(&gate->lock);
    return go;
}

static void set_state(struct start_gate *gate, int state)
{
    gate->state = state;
    pthread_cond_broadcast(&gate->changed);
}

void start_gate_open_when_arrived(struct start_gate *gate, unsigned workers)
{
    pthread_mutex_lock(&gate->lock);
    while (gate->arrived < workers)
        pthread_cond_wait(&gate->changed, &gate->lock);
    set_state(gate, GATE_OPEN);
    pthread_mutex_unlock(&gate->lock);
}

void start_gate_abort(struct start_gate *gate)
{
    pthread_mutex_lock(&gate->lock);
    set_state(gate, GATE_ABORTED);
    pthread_mutex_unlock(&gate->lock);
}
