/*
 * floor.h - ambench's protocol floor (floor.c): a minimal active-message
 * ping-pong over shared memory, measured beside the bare cache line and
 * libam's shm transport.
 */
#ifndef AMBENCH_FLOOR_H
#define AMBENCH_FLOOR_H

#define FLOOR_MAX 256   /* the largest payload measured (libam's small AMs) */

int floor_map(void);                      /* before fork: the shared rings; -1 on failure */
void floor_serve(int reps);               /* the server side: answer reps requests */
double floor_pingpong(int n, int reps);   /* the client: seconds for reps round trips, -1 on failure */

#endif
