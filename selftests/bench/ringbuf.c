// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark: the perf ring buffer as a consumer sees it. A write
 * breakpoint with sample_period 1 makes one sample per write; measured:
 *   - records per second to a consumer that keeps up (writable mapping,
 *     data_tail advanced after every batch) and to a read-only
 *     (overwrite) mapping, and the ratio writable/readonly of the two;
 *   - the cost of a record that is dropped because a stalled consumer's
 *     writable buffer is full (lost accounting only).
 * Each value is the median and IQR of ROUNDS interleaved rounds of N
 * writes, and the read-only mapping is measured twice a round as the
 * ratio's A/A control (see stats.h). If a run cannot be set up it prints
 * "bench: ringbuf unavailable".
 */

#define _GNU_SOURCE

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "stats.h"

#define PAGES	8	/* data pages */
#define BATCH	64	/* writes between two consumer catch-ups */
#define N	3200	/* writes per round */

/* The configurations of a round. */
enum { WRITABLE, READONLY, READONLY_AA, DROPPED, NR_CFG };

static volatile int watched;

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

/* ns per write, or -1: @consume advances data_tail after every batch. */
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
	t = now_us();
	for (i = 0; i < N; i++) {
		watched = i;
		if (consume && i % BATCH == BATCH - 1)
			__atomic_store_n(&pg->data_tail,
					 __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE),
					 __ATOMIC_RELEASE);
	}
	t = (now_us() - t) * 1e3 / N;
	munmap(pg, (PAGES + 1) * page);
	close(fd);
	return t;
}

int main(void)
{
	long page = sysconf(_SC_PAGESIZE);
	/* A sample of IP and TID is 24 bytes: this many fill the buffer. */
	int full = PAGES * page / 24 + 1;
	static struct samples s[NR_CFG];
	int j, k, r;
	double v;

	for (r = 0; r < ROUNDS; r++) {
		for (j = 0; j < NR_CFG; j++) {
			k = (r + j) % NR_CFG;
			if (k == WRITABLE)
				v = run(PROT_READ | PROT_WRITE, 1, 0);
			else if (k == DROPPED)
				v = run(PROT_READ | PROT_WRITE, 0, full);
			else
				v = run(PROT_READ, 0, 0);
			if (v <= 0) {
				printf("bench: ringbuf unavailable\n");
				return 0;
			}
			/* Records per second, but ns per dropped record. */
			sample_add(&s[k], k == DROPPED ? v : 1e9 / v);
		}
	}
	print_median(&s[WRITABLE], 0, "records/s", "ringbuf.writable");
	print_median(&s[READONLY], 0, "records/s", "ringbuf.readonly");
	print_median(&s[DROPPED], 0, "ns/record", "ringbuf.dropped");
	print_ratio(&s[WRITABLE], &s[READONLY], &s[READONLY_AA], "ringbuf.writable");
	return 0;
}
