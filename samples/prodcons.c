/* prodcons: a pthreads producer and consumer (2 threads + main) passing N items (argv[1], default 10000) through a ring buffer guarded by a mutex and two condition variables. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define SLOTS 16

/* The shared ring buffer. */
static struct {
    long items[SLOTS];
    int head, tail, used;
    pthread_mutex_t lock;
    pthread_cond_t not_full, not_empty;
} ring = { .lock = PTHREAD_MUTEX_INITIALIZER, .not_full = PTHREAD_COND_INITIALIZER,
           .not_empty = PTHREAD_COND_INITIALIZER };

static long count;

static void *producer(void *arg)
{
    (void)arg;
    for (long i = 1; i <= count; i++) {
        pthread_mutex_lock(&ring.lock);
        while (ring.used == SLOTS)
            pthread_cond_wait(&ring.not_full, &ring.lock);
        ring.items[ring.head] = i;
        ring.head = (ring.head + 1) % SLOTS;
        ring.used++;
        pthread_cond_signal(&ring.not_empty);
        pthread_mutex_unlock(&ring.lock);
    }
    return NULL;
}

static void *consumer(void *arg)
{
    long *sum = arg;
    for (long i = 1; i <= count; i++) {
        pthread_mutex_lock(&ring.lock);
        while (ring.used == 0)
            pthread_cond_wait(&ring.not_empty, &ring.lock);
        *sum += ring.items[ring.tail];
        ring.tail = (ring.tail + 1) % SLOTS;
        ring.used--;
        pthread_cond_signal(&ring.not_full);
        pthread_mutex_unlock(&ring.lock);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    count = argc > 1 ? atol(argv[1]) : 10000;
    long sum = 0;
    pthread_t prod, cons;
    if (pthread_create(&prod, NULL, producer, NULL) || pthread_create(&cons, NULL, consumer, &sum))
        return 1;
    pthread_join(prod, NULL);
    pthread_join(cons, NULL);
    printf("prodcons: %ld items, sum %ld\n", count, sum);
    return sum == count * (count + 1) / 2 ? 0 : 1;
}
