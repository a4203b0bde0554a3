// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark after tools/perf/bench/breakpoint.c (perf bench breakpoint
 * thread / enable), which the perf maintainers use for the hw_breakpoint
 * slot allocator:
 *   - thread: a process creates and joins THREADS threads, with no
 *     breakpoint (thread.0) and with 4 inherited breakpoints (thread.4:
 *     each thread inherits them, slot reservation and release per thread),
 *     microseconds per thread, and the ratio thread.4/thread.0;
 *   - enable: PERF_EVENT_IOC_DISABLE + ENABLE of one of 4 inherited
 *     breakpoints while BUSY threads that inherited them run, microseconds
 *     per pair.
 * Each value is the median and IQR of ROUNDS interleaved rounds, and
 * thread.0 is measured twice a round as the ratio's A/A control (see
 * stats.h). Without breakpoints it prints "bench: breakpoint unavailable".
 */

#define _GNU_SOURCE

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "stats.h"

#define NR	4	/* breakpoints */
#define THREADS	30
#define BUSY	4
#define TOGGLES	400

/* The configurations of a round. */
enum { THREAD_0, THREAD_0_AA, THREAD_4, ENABLE, NR_CFG };

static volatile long watched[NR];
static volatile int stop;

static int open_bp(int i)
{
	struct perf_event_attr attr = {
		.type		= PERF_TYPE_BREAKPOINT,
		.size		= sizeof(attr),
		.bp_type	= HW_BREAKPOINT_W,
		.bp_addr	= (unsigned long)&watched[i],
		.bp_len		= sizeof(long),
		.inherit	= 1,
		.exclude_kernel	= 1,
	};

	return syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
}

/* Open the NR breakpoints into @fd; 0, or -1 with none left open. */
static int open_bps(int *fd)
{
	int i;

	for (i = 0; i < NR; i++) {
		fd[i] = open_bp(i);
		if (fd[i] < 0) {
			while (i--)
				close(fd[i]);
			return -1;
		}
	}
	return 0;
}

static void close_bps(int *fd)
{
	int i;

	for (i = 0; i < NR; i++)
		close(fd[i]);
}

static void *busy(void *arg)
{
	while (!stop)
		;
	return arg;
}

static double thread_round(void)
{
	pthread_t t[THREADS];
	double s;
	int i;

	settle();
	s = now_us();
	for (i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, nothing, NULL);
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	return (now_us() - s) / THREADS;
}

static double enable_round(int fd)
{
	pthread_t busy_t[BUSY];
	double s;
	int i;

	settle();
	stop = 0;
	for (i = 0; i < BUSY; i++)
		pthread_create(&busy_t[i], NULL, busy, NULL);
	s = now_us();
	for (i = 0; i < TOGGLES; i++) {
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	}
	s = (now_us() - s) / TOGGLES;
	stop = 1;
	for (i = 0; i < BUSY; i++)
		pthread_join(busy_t[i], NULL);
	return s;
}

int main(void)
{
	static struct samples s[NR_CFG];
	int fd[NR], j, k, r;

	for (r = 0; r < ROUNDS; r++) {
		for (j = 0; j < NR_CFG; j++) {
			k = (r + j) % NR_CFG;
			if (k == THREAD_0 || k == THREAD_0_AA) {
				sample_add(&s[k], thread_round());
				continue;
			}
			if (open_bps(fd)) {
				printf("bench: breakpoint unavailable\n");
				return 0;
			}
			if (k == THREAD_4)
				sample_add(&s[k], thread_round());
			else
				sample_add(&s[k], enable_round(fd[0]));
			close_bps(fd);
		}
	}

	print_median(&s[THREAD_0], 2, "us", "breakpoint.thread.0");
	print_median(&s[THREAD_4], 2, "us", "breakpoint.thread.4");
	print_ratio(&s[THREAD_4], &s[THREAD_0], &s[THREAD_0_AA], "breakpoint.thread.4");
	print_median(&s[ENABLE], 2, "us", "breakpoint.enable");
	return 0;
}
