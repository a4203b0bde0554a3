/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the benchmarks in this directory share: the clock, the sample of
 * one value per round, the lines they print for scripts/bench.sh, and a
 * pipe ping-pong on CPU 0. Include after defining _GNU_SOURCE.
 *
 * Method: each benchmark runs ROUNDS rounds; every round measures each of
 * its configurations once, round-robin, starting one configuration later
 * than the round before, so that drift in the machine's speed (QEMU TCG,
 * other guests) and the place in the round hit all configurations alike.
 * Each timed interval starts after settle(), so that what the interval
 * before left behind runs in neither.
 * A configuration's value is the median of its ROUNDS per-round values,
 * its spread the interquartile range (q1..q3). Quantiles interpolate
 * linearly between the two nearest ranks of the sorted sample (numpy's
 * default): with 21 samples the median, q1 and q3 are the 11th, 6th and
 * 16th values exactly.
 *
 * A ratio B/A of two configurations is the median of the per-round ratios
 * B_i/A_i (measured in the same round, so that drift cancels), with their
 * IQR. As an A/A control, the reference configuration A is measured twice
 * per round, as two configurations A and A2 interleaved like the others;
 * every ratio is printed with the median of the per-round A2_i/A_i, which
 * is 1 up to the noise of the method.
 *
 * Lines printed, one per value:
 *	bench: NAME MEDIAN UNIT iqr=Q1..Q3 n=ROUNDS
 *	bench: NAME.ratio VALUE x aa=AA iqr=Q1..Q3 n=ROUNDS
 * and "bench: NAME unavailable" where a benchmark cannot run.
 */

#ifndef BENCH_STATS_H
#define BENCH_STATS_H

#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS		21

#define ARRAY_SIZE(a)	((int)(sizeof(a) / sizeof((a)[0])))

/* One value per round. */
struct samples {
	double	v[ROUNDS];
	int	n;
};

static inline double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Pin this task to CPU 0: 0, or -1 with errno set (_GNU_SOURCE). */
static inline int pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/*
 * A pipe ping-pong between this task and a child, both on CPU 0 (this
 * task pins itself first): each round trip, one byte each way, is two
 * context switches. The child runs @setup(@arg), then sends back what it
 * reads until it reads 'q'.
 */
struct pingpong {
	int	out, in;
	pid_t	pid;
};

/* Fork the child: 0, or -1 with errno set. */
static inline int pingpong_start(struct pingpong *pp, int (*setup)(void *),
				 void *arg)
{
	int p2c[2], c2p[2];
	char b;

	if (pipe(p2c))
		return -1;
	if (pipe(c2p)) {
		close(p2c[0]);
		close(p2c[1]);
		return -1;
	}
	fflush(stdout);
	fflush(stderr);
	pp->pid = fork();
	if (pp->pid < 0)
		return -1;
	if (!pp->pid) {
		close(p2c[1]);
		close(c2p[0]);
		if (pin_cpu0() || setup(arg))
			_exit(1);
		for (;;) {
			if (read(p2c[0], &b, 1) != 1)
				_exit(1);
			if (b == 'q')
				_exit(0);
			if (write(c2p[1], &b, 1) != 1)
				_exit(1);
		}
	}
	close(p2c[0]);
	close(c2p[1]);
	pp->out = p2c[1];
	pp->in = c2p[0];
	return 0;
}

/* Microseconds per round trip of @iters after @warmup, or -1. */
static inline double pingpong_time(struct pingpong *pp, int warmup, int iters)
{
	double t = 0;
	char b = 'p';
	int i;

	for (i = -warmup; i < iters; i++) {
		if (!i)
			t = now_us();
		if (write(pp->out, &b, 1) != 1 || read(pp->in, &b, 1) != 1)
			return -1;
	}
	return (now_us() - t) / iters;
}

/* End the child: 0 if it exited 0, else -1. */
static inline int pingpong_stop(struct pingpong *pp)
{
	int status, ret = -1;
	char q = 'q';

	if (write(pp->out, &q, 1) == 1 && waitpid(pp->pid, &status, 0) == pp->pid &&
	    WIFEXITED(status) && !WEXITSTATUS(status))
		ret = 0;
	close(pp->out);
	close(pp->in);
	return ret;
}

/*
 * A pause before a timed interval: the work that the configuration
 * measured before left behind (RCU callbacks that free exited tasks and
 * closed events, kworkers) runs now, in no configuration's time. Under
 * QEMU's instruction counting (make bench-arm64) an idle guest's clock
 * jumps to its next timer, so the pause costs next to nothing there.
 */
static inline void settle(void)
{
	usleep(20000);
}

/* A thread that does nothing, for thread creation benchmarks. */
static inline void *nothing(void *arg)
{
	return arg;
}

static inline void sample_add(struct samples *s, double v)
{
	if (s->n >= ROUNDS) {
		fprintf(stderr, "bench: more than %d samples\n", ROUNDS);
		exit(1);
	}
	s->v[s->n++] = v;
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The @q quantile (0..1) of @s, interpolated between the nearest ranks. */
static inline double quantile(const struct samples *s, double q)
{
	struct samples t = *s;
	double h;
	int lo;

	if (!t.n)
		return 0;
	qsort(t.v, t.n, sizeof(t.v[0]), cmp_double);
	h = (t.n - 1) * q;
	lo = (int)h;
	if (lo >= t.n - 1)
		return t.v[t.n - 1];
	return t.v[lo] + (h - lo) * (t.v[lo + 1] - t.v[lo]);
}

static inline double median(const struct samples *s)
{
	return quantile(s, 0.5);
}

/* "bench: NAME MEDIAN UNIT iqr=Q1..Q3 n=N", @prec digits after the point. */
static inline void __attribute__((format(printf, 4, 5)))
print_median(const struct samples *s, int prec, const char *unit,
	     const char *fmt, ...)
{
	va_list ap;

	printf("bench: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" %.*f %s iqr=%.*f..%.*f n=%d\n", prec, median(s), unit,
	       prec, quantile(s, 0.25), prec, quantile(s, 0.75), s->n);
}

/* The per-round ratios @b_i / @a_i of two samples of the same rounds. */
static inline void ratios(struct samples *r, const struct samples *b,
			  const struct samples *a)
{
	int i;

	r->n = 0;
	for (i = 0; i < a->n && i < b->n; i++)
		sample_add(r, a->v[i] ? b->v[i] / a->v[i] : 0);
}

/*
 * "bench: NAME.ratio VALUE x aa=AA iqr=Q1..Q3 n=N": @b against the
 * reference @a, with the A/A control @a2 (a second sample of @a's
 * configuration).
 */
static inline void __attribute__((format(printf, 4, 5)))
print_ratio(const struct samples *b, const struct samples *a,
	    const struct samples *a2, const char *fmt, ...)
{
	struct samples r, aa;
	va_list ap;

	ratios(&r, b, a);
	ratios(&aa, a2, a);
	printf("bench: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(".ratio %.3f x aa=%.3f iqr=%.3f..%.3f n=%d\n", median(&r),
	       median(&aa), quantile(&r, 0.25), quantile(&r, 0.75), r.n);
}

#endif /* BENCH_STATS_H */
