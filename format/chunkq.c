/*
 * chunkq.c: the writer's background thread. Finished chunks (their raw
 * streams) wait in a queue of MR_CHUNKQ_JOBS jobs; one thread takes them in
 * order and packs, compresses and writes each (the writer's work function),
 * while the thread that fills chunks goes on with the next. A chunk's
 * buffers travel by swapping: the filler gives the full ones and gets back
 * the emptied ones of a job done earlier, so nothing is copied and memory
 * stays bounded by the queue's length. Order, and so the file, is the same
 * as when the writer does everything itself.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

#include "trace_internal.h"

struct mr_chunkq {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t filled;       /* a job was queued, or stop was set */
    pthread_cond_t emptied;      /* a job is done */
    mr_chunkjob jobs[MR_CHUNKQ_JOBS];
    unsigned head, count;        /* the oldest job not done; jobs queued */
    int stop;
    int failed;                  /* a job's work failed */
    mr_chunkq_work work;
    void *ctx;
};

static void *run(void *arg)
{
    mr_chunkq *q = arg;
    pthread_mutex_lock(&q->lock);
    for (;;) {
        while (!q->count && !q->stop)
            pthread_cond_wait(&q->filled, &q->lock);
        if (!q->count)
            break;                                /* stopped and drained */
        mr_chunkjob *job = &q->jobs[q->head];
        pthread_mutex_unlock(&q->lock);
        int rc = q->work(q->ctx, job);            /* the filler never touches a queued job */
        pthread_mutex_lock(&q->lock);
        q->failed |= rc < 0;
        q->head = (q->head + 1) % MR_CHUNKQ_JOBS;
        q->count--;
        pthread_cond_broadcast(&q->emptied);
    }
    pthread_mutex_unlock(&q->lock);
    return NULL;
}

mr_chunkq *mr_chunkq_start(mr_chunkq_work work, void *ctx)
{
    mr_chunkq *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->work = work;
    q->ctx = ctx;
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->filled, NULL);
    pthread_cond_init(&q->emptied, NULL);
    /* The thread takes no signal: they stay the filler's (the process's). */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = pthread_create(&q->thread, NULL, run, q);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) {
        pthread_mutex_destroy(&q->lock);
        pthread_cond_destroy(&q->filled);
        pthread_cond_destroy(&q->emptied);
        free(q);
        return NULL;
    }
    return q;
}

/* Queues a job: its kind and counts from *job, its buffers swapped with
 * bufs[0, nbufs) (which come back empty). Waits while the queue is full.
 * 0, or -1 when a job done before failed (what the work function left for
 * the filler is then safe to read: the lock orders it). */
int mr_chunkq_push(mr_chunkq *q, const mr_chunkjob *job, mr_buf *bufs, int nbufs)
{
    pthread_mutex_lock(&q->lock);
    while (q->count == MR_CHUNKQ_JOBS)
        pthread_cond_wait(&q->emptied, &q->lock);
    mr_chunkjob *slot = &q->jobs[(q->head + q->count) % MR_CHUNKQ_JOBS];
    slot->kind = job->kind;
    slot->nrecords = job->nrecords;
    slot->time = job->time;
    slot->tid = job->tid;
    slot->nbufs = nbufs;
    for (int i = 0; i < nbufs; i++) {
        mr_buf t = slot->bufs[i];
        slot->bufs[i] = bufs[i];
        bufs[i] = t;
        bufs[i].len = 0;
    }
    q->count++;
    pthread_cond_signal(&q->filled);
    int failed = q->failed;
    pthread_mutex_unlock(&q->lock);
    return failed ? -1 : 0;
}

/* Does the queued jobs, ends the thread and frees everything; 0, or -1
 * when a job failed. */
int mr_chunkq_stop(mr_chunkq *q)
{
    pthread_mutex_lock(&q->lock);
    q->stop = 1;
    pthread_cond_signal(&q->filled);
    pthread_mutex_unlock(&q->lock);
    pthread_join(q->thread, NULL);
    int failed = q->failed;
    for (int i = 0; i < MR_CHUNKQ_JOBS; i++)
        for (int k = 0; k < MR_NSTREAMS; k++)
            mr_buf_free(&q->jobs[i].bufs[k]);
    pthread_mutex_destroy(&q->lock);
    pthread_cond_destroy(&q->filled);
    pthread_cond_destroy(&q->emptied);
    free(q);
    return failed ? -1 : 0;
}
