// SPDX-License-Identifier: GPL-2.0
/*
 * A tool that counts itself with perf_event_open() as programs that do not
 * use perf do (perf-stat-share.sh runs it under perf stat): raw event
 * numbers, exclude_kernel and exclude_hv set, exclude_guest left 0.
 *
 *   raw_peer N [CONFIG...]
 *
 * opens N events on itself, disabled, taking their raw configs in turn
 * from CONFIG... (hexadecimal; default 8, instructions on PMUv3), enables
 * them all at once with prctl(), runs a fixed user-mode loop, disables
 * them and prints "value,percent" for each, percent being time_running
 * over time_enabled with two decimals as perf stat -x, prints it. The
 * code it runs does not depend on what the events count, so perf stat's
 * events on it count the same whatever they read.
 *
 *   raw_peer -hold
 *
 * takes all general counters of the PMU but one on every online CPU, with
 * pinned CPU-wide events of raw event 0x03 (which never share), prints
 * "held N" (N events a CPU) and waits for a signal.
 */

#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_EVENTS	64
#define LOOPS		100000

static void __attribute__((noinline)) work(void)
{
	unsigned long i;

	for (i = 0; i < LOOPS; i++)
		asm volatile("" ::: "memory");
}

static int hold(void)
{
	int cpu, n = 0, fd[MAX_EVENTS], nr_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct perf_event_attr attr;
	uint64_t buf[3];

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_RAW;
	attr.size = sizeof(attr);
	attr.config = 0x03;
	attr.pinned = 1;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		/* Until one does not fit: a pinned event in error reads 0 bytes. */
		for (n = 0; n < MAX_EVENTS; n++) {
			fd[n] = syscall(__NR_perf_event_open, &attr, -1, cpu, -1, 0);
			if (fd[n] < 0) {
				fprintf(stderr, "raw_peer: perf_event_open: %s\n", strerror(errno));
				return 1;
			}
			if (read(fd[n], buf, sizeof(buf)) == 0)
				break;
		}
		if (n < 2 || n == MAX_EVENTS) {
			fprintf(stderr, "raw_peer: %d counters on CPU %d\n", n, cpu);
			return 1;
		}
		/* The one that did not fit, and one that did. */
		close(fd[n]);
		close(fd[n - 1]);
	}
	printf("held %d\n", n - 1);
	fflush(stdout);
	pause();
	return 0;
}

int main(int argc, char **argv)
{
	struct { uint64_t value, enabled, running; } v;
	int fd[MAX_EVENTS], n, i;
	struct perf_event_attr attr;

	if (argc > 1 && !strcmp(argv[1], "-hold"))
		return hold();
	n = argc > 1 ? atoi(argv[1]) : 0;
	if (n < 1 || n > MAX_EVENTS) {
		fprintf(stderr, "usage: raw_peer N [CONFIG...] (N from 1 to %d)\n",
			MAX_EVENTS);
		return 2;
	}
	for (i = 0; i < n; i++) {
		memset(&attr, 0, sizeof(attr));
		attr.type = PERF_TYPE_RAW;
		attr.size = sizeof(attr);
		attr.config = argc > 2 ? strtoull(argv[2 + i % (argc - 2)], NULL, 16) : 8;
		attr.disabled = 1;
		attr.exclude_kernel = 1;
		attr.exclude_hv = 1;
		attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				   PERF_FORMAT_TOTAL_TIME_RUNNING;
		fd[i] = syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
		if (fd[i] < 0) {
			fprintf(stderr, "raw_peer: perf_event_open: %s\n", strerror(errno));
			return 1;
		}
	}
	prctl(PR_TASK_PERF_EVENTS_ENABLE);
	work();
	prctl(PR_TASK_PERF_EVENTS_DISABLE);
	for (i = 0; i < n; i++) {
		if (read(fd[i], &v, sizeof(v)) != sizeof(v)) {
			fprintf(stderr, "raw_peer: read: %s\n", strerror(errno));
			return 1;
		}
		printf("%llu,%.2f\n", (unsigned long long)v.value,
		       v.enabled ? 100.0 * v.running / v.enabled : 0.0);
	}
	return 0;
}
