// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark after tools/perf/bench/breakpoint.c (perf bench breakpoint
 * thread / enable), which the perf maintainers use for the hw_breakpoint
 * slot allocator:
 *   - thread: a process with 4 inherited breakpoints creates and joins
 *     THREADS threads (each inherits the breakpoints: slot reservation and
 *     release per thread), microseconds per thread;
 *   - enable: PERF_EVENT_IOC_DISABLE + ENABLE of a breakpoint while
 *     BUSY threads run, microseconds per pair.
 * Prints "bench: NAME VALUE UNIT" lines for scripts/bench.sh, each the best
 * of ROUNDS rounds.
 */

#define _GNU_SOURCE

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NR	4	/* breakpoints */
#define THREADS	100
#define BUSY	4
#define TOGGLES	2000
#define ROUNDS	5

static volatile long watched[NR];
static volatile int stop;

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int open_bp(int i, int inherit)
{
	struct perf_event_attr attr = {
		.type		= PERF_TYPE_BREAKPOINT,
		.size		= sizeof(attr),
		.bp_type	= HW_BREAKPOINT_W,
		.bp_addr	= (unsigned long)&watched[i],
		.bp_len		= sizeof(long),
		.inherit	= inherit,
		.exclude_kernel	= 1,
	};

	return syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
}

static void *nothing(void *arg)
{
	return arg;
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
	double s = now_us();
	int i;

	for (i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, nothing, NULL);
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	return (now_us() - s) / THREADS;
}

static double enable_round(int fd)
{
	double s = now_us();
	int i;

	for (i = 0; i < TOGGLES; i++) {
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	}
	return (now_us() - s) / TOGGLES;
}

int main(void)
{
	double b0 = 1e30, b4 = 1e30, be = 1e30, v;
	pthread_t busy_t[BUSY];
	int fd[NR], i, r;

	for (r = 0; r < ROUNDS; r++) {
		v = thread_round();
		if (v < b0)
			b0 = v;
	}
	for (i = 0; i < NR; i++) {
		fd[i] = open_bp(i, 1);
		if (fd[i] < 0) {
			printf("bench: breakpoint unavailable\n");
			return 0;
		}
	}
	for (r = 0; r < ROUNDS; r++) {
		v = thread_round();
		if (v < b4)
			b4 = v;
	}
	for (i = 0; i < BUSY; i++)
		pthread_create(&busy_t[i], NULL, busy, NULL);
	for (r = 0; r < ROUNDS; r++) {
		v = enable_round(fd[0]);
		if (v < be)
			be = v;
	}
	stop = 1;
	for (i = 0; i < BUSY; i++)
		pthread_join(busy_t[i], NULL);

	printf("bench: breakpoint.thread.0 %.2f us\n", b0);
	printf("bench: breakpoint.thread.4 %.2f us\n", b4);
	printf("bench: breakpoint.thread.4/0 %.3f ratio\n", b4 / b0);
	printf("bench: breakpoint.enable %.2f us\n", be);
	return 0;
}
