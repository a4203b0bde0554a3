// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark: what the series costs on the paths every counting event
 * takes, with counter sharing never turned on in the boot (it runs before
 * the share benchmark, which turns it on): the context switch, read()
 * and fork(). Each with no event (none) and with K events (k4) of the
 * first kind that opens: hardware instruction events (arm64's PMUv3 in
 * its guest), else software task-clock events (the x86 guest has no
 * hardware PMU).
 *   - pingpong: a round trip of one byte each way through two pipes
 *     between a parent and a child pinned to CPU 0 (two context
 *     switches), each task with its own K events on itself;
 *     microseconds per round trip.
 *   - read: read() of one of K running events of this task, with its
 *     times; microseconds per read.
 *   - fork: fork()+exit()+wait() while K inherited events count on this
 *     task; microseconds per fork.
 * Each value is the median and IQR of ROUNDS interleaved rounds, none
 * measured twice a round as the A/A control of the k4/none ratios (see
 * stats.h). scripts/bench-table.py compares each value of the series'
 * kernel with the base kernel's: the target is 1.01.
 */

#define _GNU_SOURCE

#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "stats.h"

#define K		4	/* events of the k4 configuration */
#define PP_ITERS	300	/* ping-pong round trips per round */
#define PP_WARMUP	50
#define READ_ITERS	1000	/* reads per round */
#define FORK_ITERS	40	/* forks per round */

static const struct cfg {
	const char	*name;
	int		n;	/* events */
} cfgs[] = {
	{ "none",	0 },
	{ "none",	0 },	/* A2: the A/A control of the first */
	{ "k4",		K },
};

#define NR_CFG	ARRAY_SIZE(cfgs)

/* The kind of event that opens here: 1 hardware, 0 software. */
static int hw;

static void fail(const char *what, int err)
{
	fprintf(stderr, "hotpath: %s: %s\n", what, err ? strerror(err) : "failed");
	printf("bench: hotpath unavailable\n");
	exit(0);
}

/* Open @n counting events of this task, inherited with @inherit. */
static int open_events(int n, int inherit, int *fd)
{
	int i;

	for (i = 0; i < n; i++) {
		struct perf_event_attr attr = {
			.type		= hw ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE,
			.size		= sizeof(attr),
			.config		= hw ? PERF_COUNT_HW_INSTRUCTIONS :
					       PERF_COUNT_SW_TASK_CLOCK,
			.read_format	= PERF_FORMAT_TOTAL_TIME_ENABLED |
					  PERF_FORMAT_TOTAL_TIME_RUNNING,
			.inherit	= inherit,
		};

		fd[i] = syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
		if (fd[i] < 0) {
			int err = errno;

			while (i--)
				close(fd[i]);
			errno = err;
			return -1;
		}
	}
	return 0;
}

static void close_events(int n, const int *fd)
{
	int i;

	for (i = 0; i < n; i++)
		close(fd[i]);
}

/* The child's events: @arg points to their number. */
static int child_events(void *arg)
{
	int fd[K];

	return open_events(*(int *)arg, 0, fd);
}

/* Microseconds per round trip with @n events on each task. */
static double pingpong_once(int n)
{
	struct pingpong pp;
	int fd[K];
	double t;

	if (pingpong_start(&pp, child_events, &n))
		fail("fork", errno);
	/* The parent is pinned to CPU 0 already, see main(). */
	if (open_events(n, 0, fd))
		fail("perf_event_open", errno);
	settle();
	t = pingpong_time(&pp, PP_WARMUP, PP_ITERS);
	if (t < 0 || pingpong_stop(&pp))
		fail("ping-pong", errno);
	close_events(n, fd);
	return t;
}

/* Microseconds per read() of one of @n running events (none: 0). */
static double read_once(int n)
{
	uint64_t v[3];
	int fd[K], i;
	double t;

	if (!n)
		return 0;
	if (open_events(n, 0, fd))
		fail("perf_event_open", errno);
	settle();
	t = now_us();
	for (i = 0; i < READ_ITERS; i++) {
		if (read(fd[i % n], v, sizeof(v)) != sizeof(v))
			fail("read", errno);
	}
	t = (now_us() - t) / READ_ITERS;
	close_events(n, fd);
	return t;
}

/* Microseconds per fork()+exit()+wait() with @n inherited events. */
static double fork_once(int n)
{
	int fd[K], i;
	double t;

	if (open_events(n, 1, fd))
		fail("perf_event_open", errno);
	settle();
	t = now_us();
	for (i = 0; i < FORK_ITERS; i++) {
		pid_t pid = fork();

		if (pid < 0)
			fail("fork", errno);
		if (!pid)
			_exit(0);
		waitpid(pid, NULL, 0);
	}
	t = (now_us() - t) / FORK_ITERS;
	close_events(n, fd);
	return t;
}

int main(void)
{
	static struct samples pp[NR_CFG], rd[NR_CFG], fk[NR_CFG];
	int fd[K], j, k, r;

	if (pin_cpu0())
		fail("sched_setaffinity", errno);
	hw = 1;
	if (open_events(1, 0, fd)) {
		hw = 0;
		if (open_events(1, 0, fd))
			fail("perf_event_open", errno);
	}
	close(fd[0]);
	fprintf(stderr, "hotpath: %s events\n", hw ? "hardware instruction" :
		"software task-clock");

	fork_once(0);		/* warm up: page tables, caches, pid space */
	for (r = 0; r < ROUNDS; r++) {
		for (j = 0; j < NR_CFG; j++) {
			k = (r + j) % NR_CFG;
			sample_add(&pp[k], pingpong_once(cfgs[k].n));
			sample_add(&rd[k], read_once(cfgs[k].n));
			sample_add(&fk[k], fork_once(cfgs[k].n));
		}
	}
	for (k = 0; k < NR_CFG; k++) {
		if (k == 1)
			continue;	/* A2 */
		print_median(&pp[k], 2, "us", "hotpath.pingpong.%s", cfgs[k].name);
		print_median(&fk[k], 2, "us", "hotpath.fork.%s", cfgs[k].name);
		if (!k)
			continue;
		print_median(&rd[k], 3, "us", "hotpath.read.%s", cfgs[k].name);
		print_ratio(&pp[k], &pp[0], &pp[1], "hotpath.pingpong.%s", cfgs[k].name);
		print_ratio(&fk[k], &fk[0], &fk[1], "hotpath.fork.%s", cfgs[k].name);
	}
	return 0;
}
