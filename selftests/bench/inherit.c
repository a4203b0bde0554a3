// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark: the cost of counter inheritance on fork()+exit()+wait() and
 * pthread_create()+join(), with 0 and 4 inherited counters (software
 * task-clock counters, and hardware breakpoints, which also take slots).
 * Prints "bench: NAME VALUE UNIT" lines for scripts/bench.sh; each value
 * is the best of ROUNDS rounds of ITERS iterations, in microseconds.
 */

#define _GNU_SOURCE

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ITERS	500
#define ROUNDS	5
#define NR	4

static volatile long watched[NR];

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void *nothing(void *arg)
{
	return arg;
}

static double fork_once(void)
{
	double t = now_us();
	int i;

	for (i = 0; i < ITERS; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		waitpid(pid, NULL, 0);
	}
	return (now_us() - t) / ITERS;
}

static double thread_once(void)
{
	double t = now_us();
	pthread_t th;
	int i;

	for (i = 0; i < ITERS; i++) {
		pthread_create(&th, NULL, nothing, NULL);
		pthread_join(th, NULL);
	}
	return (now_us() - t) / ITERS;
}

static double best(double (*fn)(void))
{
	double b = 1e30, v;
	int r;

	for (r = 0; r < ROUNDS; r++) {
		v = fn();
		if (v < b)
			b = v;
	}
	return b;
}

/* Open @n inherited counters of @kind ("sw" or "bp"); 0 on success. */
static int open_counters(const char *kind, int n, int *fd)
{
	int i;

	for (i = 0; i < n; i++) {
		struct perf_event_attr attr = {
			.size		= sizeof(attr),
			.inherit	= 1,
			.exclude_kernel	= 1,
		};

		if (!strcmp(kind, "sw")) {
			attr.type = PERF_TYPE_SOFTWARE;
			attr.config = PERF_COUNT_SW_TASK_CLOCK;
		} else {
			attr.type = PERF_TYPE_BREAKPOINT;
			attr.bp_type = HW_BREAKPOINT_W;
			attr.bp_addr = (unsigned long)&watched[i];
			attr.bp_len = sizeof(long);
		}
		fd[i] = syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
		if (fd[i] < 0)
			return -1;
	}
	return 0;
}

int main(void)
{
	static const char * const kinds[] = { "sw", "bp" };
	double fork0, thread0;
	int fd[NR], k, i;

	fork0 = best(fork_once);
	thread0 = best(thread_once);
	printf("bench: inherit.fork.0 %.2f us\n", fork0);
	printf("bench: inherit.thread.0 %.2f us\n", thread0);
	for (k = 0; k < 2; k++) {
		if (open_counters(kinds[k], NR, fd)) {
			printf("bench: inherit.%s unavailable\n", kinds[k]);
			continue;
		}
		printf("bench: inherit.fork.%d%s %.2f us\n", NR, kinds[k], best(fork_once));
		printf("bench: inherit.thread.%d%s %.2f us\n", NR, kinds[k], best(thread_once));
		for (i = 0; i < NR; i++)
			close(fd[i]);
	}
	return 0;
}
