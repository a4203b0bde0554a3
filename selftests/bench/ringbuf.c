// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark: the perf ring buffer as a consumer sees it. A write
 * breakpoint with sample_period 1 makes one sample per write; measured:
 *   - records per second to a consumer that keeps up (writable mapping,
 *     data_tail advanced after every batch) and to a read-only
 *     (overwrite) mapping,
 *   - the cost of a record that is dropped because a stalled consumer's
 *     writable buffer is full (lost accounting only).
 * Prints "bench: NAME VALUE UNIT" lines for scripts/bench.sh, each the best
 * of ROUNDS rounds.
 */

#define _GNU_SOURCE

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PAGES	8	/* data pages */
#define BATCH	64	/* writes between two consumer catch-ups */
#define N	20000	/* writes per round */
#define ROUNDS	5

static volatile int watched;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int open_bp(void)
{
	struct perf_event_attr attr = {
		.type		= PERF_TYPE_BREAKPOINT,
		.size		= sizeof(attr),
		.bp_type	= HW_BREAKPOINT_W,
		.bp_addr	= (unsigned long)&watched,
		.bp_len		= HW_BREAKPOINT_LEN_4,
		.sample_period	= 1,
		.sample_type	= PERF_SAMPLE_IP | PERF_SAMPLE_TID,
		.exclude_kernel	= 1,
		.disabled	= 1,
	};

	return syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
}

/* ns per write: @consume advances data_tail after every batch. */
static double run(int prot, int consume, int prefill)
{
	long page = sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *pg;
	double t;
	int fd, i;

	fd = open_bp();
	if (fd < 0)
		return -1;
	pg = mmap(NULL, (PAGES + 1) * page, prot, MAP_SHARED, fd, 0);
	if (pg == MAP_FAILED) {
		close(fd);
		return -1;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (i = 0; i < prefill; i++)		/* fill a stalled buffer */
		watched = i;
	t = now_ns();
	for (i = 0; i < N; i++) {
		watched = i;
		if (consume && i % BATCH == BATCH - 1)
			__atomic_store_n(&pg->data_tail,
					 __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE),
					 __ATOMIC_RELEASE);
	}
	t = (now_ns() - t) / N;
	munmap(pg, (PAGES + 1) * page);
	close(fd);
	return t;
}

static double best(int prot, int consume, int prefill)
{
	double b = 1e30, v;
	int r;

	for (r = 0; r < ROUNDS; r++) {
		v = run(prot, consume, prefill);
		if (v < 0)
			return -1;
		if (v < b)
			b = v;
	}
	return b;
}

int main(void)
{
	long page = sysconf(_SC_PAGESIZE);
	/* A sample of IP and TID is 24 bytes: this many fill the buffer. */
	int full = PAGES * page / 24 + 1;
	double w, ro, drop;

	w = best(PROT_READ | PROT_WRITE, 1, 0);
	ro = best(PROT_READ, 0, 0);
	drop = best(PROT_READ | PROT_WRITE, 0, full);
	if (w < 0 || ro < 0 || drop < 0) {
		printf("bench: ringbuf unavailable\n");
		return 0;
	}
	printf("bench: ringbuf.writable %.0f records/s\n", 1e9 / w);
	printf("bench: ringbuf.readonly %.0f records/s\n", 1e9 / ro);
	printf("bench: ringbuf.dropped %.0f ns/record\n", drop);
	printf("bench: ringbuf.writable/readonly %.3f ratio\n", ro / w);
	return 0;
}
