// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark: the cost of counter inheritance on fork()+exit()+wait() and
 * pthread_create()+join(), with 0 and 4 inherited counters (software
 * task-clock counters, and hardware breakpoints, which also take slots).
 * Microseconds per fork and per thread: the median and IQR of ROUNDS
 * interleaved rounds of ITERS iterations, and the ratio of each
 * configuration with counters to the one without, with the A/A control
 * of the one without measured twice a round (see stats.h).
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
#include <unistd.h>

#include "stats.h"

#define ITERS	60
#define NR	4

static volatile long watched[NR];

static const struct cfg {
	const char	*name;
	const char	*kind;	/* "sw" or "bp" */
	int		n;	/* inherited counters */
} cfgs[] = {
	{ "0",		"sw",	0 },
	{ "0",		"sw",	0 },	/* A2: the A/A control of the first */
	{ "4sw",	"sw",	NR },
	{ "4bp",	"bp",	NR },
};

#define NR_CFG	ARRAY_SIZE(cfgs)

static double fork_once(void)
{
	double t;
	int i;

	settle();
	t = now_us();
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
	double t;
	pthread_t th;
	int i;

	settle();
	t = now_us();
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
	static struct samples fork_s[NR_CFG], thread_s[NR_CFG];
	int fd[NR], ok[NR_CFG], j, k, r, i;

	for (k = 0; k < NR_CFG; k++)
		ok[k] = 1;
	fork_once();		/* warm up: page tables, caches, pid space */
	for (r = 0; r < ROUNDS; r++) {
		for (j = 0; j < NR_CFG; j++) {
			k = (r + j) % NR_CFG;
			if (!ok[k])
				continue;
			if (open_counters(cfgs[k].kind, cfgs[k].n, fd)) {
				ok[k] = 0;
				continue;
			}
			sample_add(&fork_s[k], fork_once());
			sample_add(&thread_s[k], thread_once());
			for (i = 0; i < cfgs[k].n; i++)
				close(fd[i]);
		}
	}
	for (k = 0; k < NR_CFG; k++) {
		if (k == 1)
			continue;	/* A2 */
		if (!ok[k]) {
			printf("bench: inherit.%s unavailable\n", cfgs[k].name);
			continue;
		}
		print_median(&fork_s[k], 2, "us", "inherit.fork.%s", cfgs[k].name);
		print_median(&thread_s[k], 2, "us", "inherit.thread.%s", cfgs[k].name);
		if (k) {
			print_ratio(&fork_s[k], &fork_s[0], &fork_s[1],
				    "inherit.fork.%s", cfgs[k].name);
			print_ratio(&thread_s[k], &thread_s[0], &thread_s[1],
				    "inherit.thread.%s", cfgs[k].name);
		}
	}
	return 0;
}
