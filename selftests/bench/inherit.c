// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark: the cost of counter inheritance on fork()+exit()+wait() and
 * pthread_create()+join(), with 0 and 4 inherited counters (software
 * task-clock counters, and hardware breakpoints, which also take slots).
 * Prints "bench: NAME VALUE UNIT" lines for scripts/bench.sh: each value is
 * the best of ROUNDS rounds of ITERS iterations, in microseconds, and the
 * ratio of each configuration to the one without counters.
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

#define ITERS	200
#define ROUNDS	9
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
		if (fd[i] < 0) {
			/* Leave no counter behind to slow the other rounds. */
			while (i--)
				close(fd[i]);
			return -1;
		}
	}
	return 0;
}

int main(void)
{
	/* Configurations: no counters, 4 task-clock, 4 breakpoints. */
	static const char * const kinds[] = { "0", "4sw", "4bp" };
	double fork_best[3], thread_best[3], v;
	int fd[NR], k, r, i, ok[3] = { 1, 1, 1 };

	fork_once();		/* warm up: page tables, caches, pid space */
	for (k = 0; k < 3; k++)
		fork_best[k] = thread_best[k] = 1e30;
	/*
	 * Round-robin over the configurations, so that drift in the
	 * machine's speed (TCG, other guests) hits all of them alike; keep
	 * each configuration's best round.
	 */
	for (r = 0; r < ROUNDS; r++) {
		for (k = 0; k < 3; k++) {
			if (k && open_counters(kinds[k] + 1, NR, fd)) {
				ok[k] = 0;
				continue;
			}
			v = fork_once();
			if (v < fork_best[k])
				fork_best[k] = v;
			v = thread_once();
			if (v < thread_best[k])
				thread_best[k] = v;
			for (i = 0; k && i < NR; i++)
				close(fd[i]);
		}
	}
	for (k = 0; k < 3; k++) {
		if (!ok[k]) {
			printf("bench: inherit.%s unavailable\n", kinds[k]);
			continue;
		}
		printf("bench: inherit.fork.%s %.2f us\n", kinds[k], fork_best[k]);
		printf("bench: inherit.thread.%s %.2f us\n", kinds[k], thread_best[k]);
		if (k) {
			printf("bench: inherit.fork.%s/0 %.3f ratio\n", kinds[k],
			       fork_best[k] / fork_best[0]);
			printf("bench: inherit.thread.%s/0 %.3f ratio\n", kinds[k],
			       thread_best[k] / thread_best[0]);
		}
	}
	return 0;
}
