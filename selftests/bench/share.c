// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark: PMU counter sharing, with the test PMU (CONFIG_TEST_PERF_PMU),
 * its sysfs switch share_counters on and off in the same boot:
 *   - accuracy: NR trigger events (config 1) counting on this task, with
 *     nr_counters=2 and a mux interval of 1 ms, while the task makes
 *     triggers in batches of BATCH for ACC_MS ms. share.accuracy.X.
 *     running_ratio is the least time_running/time_enabled of the events
 *     (1 when every event counted all of the time), share.accuracy.X.
 *     error_pct the largest error of an event's scaled estimate
 *     (value * enabled / running) against the triggers made, in percent
 *     (an event that did not count at all is 100% off). Sharing on should
 *     give 1 and 0; sharing off shows what multiplexing costs.
 *   - pingpong: a round trip of one byte each way through two pipes
 *     between a parent and a child pinned to CPU 0 (two context switches),
 *     each task with its own counting clock events (config 0) on itself:
 *     none, k1 (1 event), k4_shared (4 identical events, sharing on),
 *     k4_unshared (4 events, sharing off, nr_counters=4 so all fit) and
 *     k4_mux (4 events, sharing off, nr_counters=2). Microseconds per
 *     round trip, and each k4 configuration's ratio to k1 (1 when 4 events
 *     cost a context switch no more than 1 does).
 *   - pingpong.hw_*: the same with instruction events of the first
 *     hardware PMU that can share counters (arm64's PMUv3 in its guest;
 *     left out where there is none): hw_k1 (1 event), hw_k8_shared (8
 *     identical events, its share_counters on) and hw_k8_mux (8 events,
 *     sharing off, on 6 counters under QEMU: multiplexed), and the
 *     ratios of the two k8 to hw_k1.
 *   - open_close: perf_event_open() of a 4th identical trigger event
 *     while 3 count on this task, nr_counters=4 (no multiplexing either
 *     way), and close() of the new one (share.open_close: a dup joins
 *     and leaves its primary's ring) or of the oldest of the 4
 *     (share.open_close.handover: with sharing on the oldest is the
 *     primary, whose counter goes to the next member of the ring, the
 *     next oldest). Microseconds per open+close with sharing on and off,
 *     and the ratio on/off.
 *   - fork: fork()+exit()+wait() while N identical inherited trigger
 *     events count on this task (N = 1, 100, 1000), sharing on and off:
 *     microseconds per fork, and the ratio on/off for each N. Every
 *     inherited event looks for its partner in the child; the ratio must
 *     not grow with N (finding the partner is O(log N), not O(N)).
 *   - exec: the same with a child that execs EXEC_PATH (busybox true),
 *     and events opened disabled with enable_on_exec, as perf stat opens
 *     them: at the exec every inherited event is enabled and looks for
 *     its partner. Microseconds per fork+exec, ratio on/off per N.
 * The rotation interval is 1 ms for the accuracy runs and the original
 * one for the others. Each value is the median and IQR of ROUNDS rounds;
 * a round goes round-robin over the configurations of accuracy, then of
 * pingpong, of open_close (both kinds) and of fork and exec (together).
 * The reference of every ratio (k1, sharing off) is measured twice a
 * round as the ratio's A/A control (see stats.h). share_counters,
 * nr_counters and the mux interval are restored at the end. Without the
 * test PMU or its share_counters switch (a kernel without counter
 * sharing), or if anything fails, it prints "bench: share unavailable"
 * (the reason to stderr) and exits 0. Run as root.
 */

#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stats.h"

#define NR		4	/* events of a k4 configuration */
#define PP_ITERS	350	/* ping-pong round trips per round */
#define PP_WARMUP	50
#define OC_ITERS	75	/* open+close pairs per round */
#define ACC_MS		100	/* accuracy run, wall time */
#define FORK_ITERS	3	/* forks per round */
#define FORK_MAX	1000	/* inherited events, at most */
#define BATCH		10	/* triggers per write */

#define TEST_PMU_DIR		"/sys/bus/event_source/devices/test_pmu/"
#define TEST_PMU_TYPE		TEST_PMU_DIR "type"
#define TEST_PMU_MUX_INTERVAL	TEST_PMU_DIR "perf_event_mux_interval_ms"
#define TEST_PMU_SHARE		TEST_PMU_DIR "share_counters"
#define TEST_PMU_NR_COUNTERS	"/sys/kernel/debug/test_pmu/nr_counters"
#define TEST_PMU_TRIGGER_DEV	"/sys/kernel/debug/test_pmu/trigger"
#define SYSFS_PMUS		"/sys/bus/event_source/devices"
#define HW_NR			8	/* events of a hw_k8 configuration */

enum {
	TEST_PMU_CLOCK		= 0,
	TEST_PMU_TRIGGER	= 1,
};

/* One event's value with PERF_FORMAT_TOTAL_TIME_ENABLED | _RUNNING. */
struct value {
	uint64_t value;
	uint64_t enabled;
	uint64_t running;
};

enum { PP_NONE, PP_K1, PP_K1_AA, PP_K4_SHARED, PP_K4_UNSHARED, PP_K4_MUX,
       PP_HW_K1, PP_HW_K1_AA, PP_HW_K8_SHARED, PP_HW_K8_MUX };

/*
 * nr_counters: the test PMU's, for its events; hw: events of the hardware
 * PMU instead, which leave the test PMU as it is.
 */
static const struct pp_cfg {
	const char	*name;
	int		nr_events;
	int		share;
	int		nr_counters;
	int		hw;
} pp_cfgs[] = {
	[PP_NONE]	 = { "none",	      0,      0, 2 },
	[PP_K1]		 = { "k1",	      1,      0, 2 },
	[PP_K1_AA]	 = { "k1",	      1,      0, 2 },	/* A/A control of k1 */
	[PP_K4_SHARED]	 = { "k4_shared",    NR,     1, 2 },
	[PP_K4_UNSHARED] = { "k4_unshared",  NR,     0, 4 },
	[PP_K4_MUX]	 = { "k4_mux",	      NR,     0, 2 },
	[PP_HW_K1]	 = { "hw_k1",	      1,      0, 0, 1 },
	[PP_HW_K1_AA]	 = { "hw_k1",	      1,      0, 0, 1 },
	[PP_HW_K8_SHARED] = { "hw_k8_shared", HW_NR, 1, 0, 1 },
	[PP_HW_K8_MUX]	 = { "hw_k8_mux",    HW_NR,  0, 0, 1 },
};

#define NR_PP		ARRAY_SIZE(pp_cfgs)
#define MAX_EVENTS	HW_NR

static int pmu_type;
static int trigger_fd = -1;
/* The original settings, -1 until read. */
static long orig_share = -1, orig_nr_counters = -1, orig_mux = -1;
/* The hardware PMU's share_counters, "" without one; its original value. */
static char hw_share[PATH_MAX];
static long orig_hw_share = -1;

/* Read a decimal number from a sysfs file; -1 if it cannot. */
static long read_long(const char *path)
{
	char buf[32] = {};
	long val = -1;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	if (read(fd, buf, sizeof(buf) - 1) > 0)
		val = strtol(buf, NULL, 10);
	close(fd);
	return val;
}

static int write_long(const char *path, long val)
{
	char buf[32];
	int fd, len, ret;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	len = snprintf(buf, sizeof(buf), "%ld", val);
	ret = write(fd, buf, len) == len ? 0 : -1;
	if (close(fd))
		ret = -1;
	return ret;
}

static void restore(void)
{
	if (orig_share >= 0 && write_long(TEST_PMU_SHARE, orig_share))
		fprintf(stderr, "share: %s not put back\n", TEST_PMU_SHARE);
	if (orig_nr_counters >= 0 &&
	    write_long(TEST_PMU_NR_COUNTERS, orig_nr_counters))
		fprintf(stderr, "share: %s not put back\n", TEST_PMU_NR_COUNTERS);
	if (orig_mux >= 0 && write_long(TEST_PMU_MUX_INTERVAL, orig_mux))
		fprintf(stderr, "share: %s not put back\n", TEST_PMU_MUX_INTERVAL);
	if (orig_hw_share >= 0 && write_long(hw_share, orig_hw_share))
		fprintf(stderr, "share: %s not put back\n", hw_share);
}

/*
 * Find the first PMU other than the test PMU with a share_counters
 * switch, and read the switch; leave hw_share empty if there is none.
 */
static void find_hw_pmu(void)
{
	struct dirent *d;
	DIR *dir;

	dir = opendir(SYSFS_PMUS);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.' || !strcmp(d->d_name, "test_pmu"))
			continue;
		snprintf(hw_share, sizeof(hw_share),
			 SYSFS_PMUS "/%s/share_counters", d->d_name);
		orig_hw_share = read_long(hw_share);
		if (orig_hw_share >= 0)
			break;
	}
	closedir(dir);
	if (orig_hw_share < 0)
		hw_share[0] = 0;
}

/* Give up: @what failed, with errno @err if not 0. */
static void __attribute__((noreturn)) fail(const char *what, int err)
{
	printf("bench: share unavailable\n");
	fflush(stdout);
	if (err)
		fprintf(stderr, "share: %s: %s\n", what, strerror(err));
	else
		fprintf(stderr, "share: %s\n", what);
	restore();
	exit(0);
}

static void set_knob(const char *path, long val)
{
	if (write_long(path, val))
		fail(path, errno);
	if (read_long(path) != val)
		fail(path, 0);
}

/*
 * A counting event on this task, user and kernel mode: of the test PMU,
 * or with @hw an instruction event of the hardware PMU.
 */
static int __open_event(int config, int disabled, int hw)
{
	struct perf_event_attr attr = {
		.type		= hw ? PERF_TYPE_HARDWARE : pmu_type,
		.size		= sizeof(attr),
		.config		= hw ? PERF_COUNT_HW_INSTRUCTIONS : config,
		.read_format	= PERF_FORMAT_TOTAL_TIME_ENABLED |
				  PERF_FORMAT_TOTAL_TIME_RUNNING,
		.disabled	= disabled,
	};

	return syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
}

static int open_event(int config, int disabled)
{
	return __open_event(config, disabled, 0);
}

/* Open @n enabled events of @config (@hw) into @fd; 0, or -1 and errno. */
static int open_events(int config, int n, int *fd, int hw)
{
	int i, err;

	for (i = 0; i < n; i++) {
		fd[i] = __open_event(config, 0, hw);
		if (fd[i] < 0) {
			err = errno;
			while (i--)
				close(fd[i]);
			errno = err;
			return -1;
		}
	}
	return 0;
}

static void close_events(int n, int *fd)
{
	int i;

	for (i = 0; i < n; i++)
		if (close(fd[i]))
			fail("close", errno);
}

static void read_event(int fd, struct value *v)
{
	ssize_t ret = read(fd, v, sizeof(*v));

	if (ret < 0)
		fail("read", errno);
	if (ret != sizeof(*v))
		fail("short read of an event", 0);
}

/*
 * One accuracy run, sharing on or off: the least running/enabled ratio
 * and the largest error of the scaled estimates, in percent.
 */
static void accuracy_once(int share, double *ratio, double *error)
{
	uint64_t triggers = 0;
	double t, r, e, d;
	struct value v;
	int fd[NR], i;
	char buf[8];
	int len;

	set_knob(TEST_PMU_SHARE, share);
	set_knob(TEST_PMU_NR_COUNTERS, 2);
	set_knob(TEST_PMU_MUX_INTERVAL, 1);
	for (i = 0; i < NR; i++) {
		fd[i] = open_event(TEST_PMU_TRIGGER, 1);
		if (fd[i] < 0)
			fail("perf_event_open (trigger)", errno);
	}
	/* No trigger is made between two enables: all count the same. */
	for (i = 0; i < NR; i++)
		if (ioctl(fd[i], PERF_EVENT_IOC_ENABLE, 0))
			fail("PERF_EVENT_IOC_ENABLE", errno);

	len = snprintf(buf, sizeof(buf), "%d", BATCH);
	t = now_us();
	do {
		if (write(trigger_fd, buf, len) != len)
			fail("write " TEST_PMU_TRIGGER_DEV, errno);
		triggers += BATCH;
	} while (now_us() - t < ACC_MS * 1e3);

	for (i = 0; i < NR; i++)
		if (ioctl(fd[i], PERF_EVENT_IOC_DISABLE, 0))
			fail("PERF_EVENT_IOC_DISABLE", errno);

	*ratio = 1;
	*error = 0;
	for (i = 0; i < NR; i++) {
		read_event(fd[i], &v);
		r = v.enabled ? (double)v.running / v.enabled : 0;
		if (!v.value || !v.running) {
			e = 100;
		} else {
			d = (double)v.value * v.enabled / v.running - triggers;
			e = (d < 0 ? -d : d) / triggers * 100;
		}
		if (r < *ratio)
			*ratio = r;
		if (e > *error)
			*error = e;
	}
	close_events(NR, fd);
	set_knob(TEST_PMU_MUX_INTERVAL, orig_mux);
}

/* The child's events: those of the configuration @arg. */
static int child_events(void *arg)
{
	const struct pp_cfg *c = arg;
	int fd[MAX_EVENTS];

	if (open_events(TEST_PMU_CLOCK, c->nr_events, fd, c->hw)) {
		fprintf(stderr, "share: child: perf_event_open (%s): %s\n",
			c->hw ? "instructions" : "clock", strerror(errno));
		return 1;
	}
	return 0;
}

/* Microseconds per round trip in configuration @c. */
static double pingpong_once(const struct pp_cfg *c)
{
	int fd[MAX_EVENTS], i;
	struct pingpong pp;
	struct value v;
	double t;

	set_knob(c->hw ? hw_share : TEST_PMU_SHARE, c->share);
	if (!c->hw)
		set_knob(TEST_PMU_NR_COUNTERS, c->nr_counters);
	if (pingpong_start(&pp, child_events, (void *)c))
		fail("fork", errno);

	/* The parent is pinned to CPU 0 already, see main(). */
	if (open_events(TEST_PMU_CLOCK, c->nr_events, fd, c->hw))
		fail(c->hw ? "perf_event_open (instructions)" :
		     "perf_event_open (clock)", errno);
	t = pingpong_time(&pp, PP_WARMUP, PP_ITERS);
	if (t < 0)
		fail("ping-pong", errno);
	if (pingpong_stop(&pp))
		fail("ping-pong child failed", 0);

	/* Did the configuration take? Shared events run all of the time. */
	for (i = 0; c->share && i < c->nr_events; i++) {
		read_event(fd[i], &v);
		if (v.running != v.enabled)
			fprintf(stderr, "share: %s: an event ran %llu of %llu ns\n",
				c->name, (unsigned long long)v.running,
				(unsigned long long)v.enabled);
	}
	close_events(c->nr_events, fd);
	return t;
}

#define EXEC_PATH	"/bin/busybox"

static const int fork_n[] = { 1, 100, FORK_MAX };
#define NR_FORK		ARRAY_SIZE(fork_n)

/* fork(), the child execs EXEC_PATH if @exec and exits, wait(). */
static void fork_wait(int exec)
{
	pid_t pid = fork();

	if (pid < 0)
		fail("fork", errno);
	if (pid == 0) {
		if (exec)
			execl(EXEC_PATH, "true", (char *)NULL);
		_exit(0);
	}
	if (waitpid(pid, NULL, 0) != pid)
		fail("waitpid", errno);
}

/*
 * Microseconds per fork()+exit()+wait() with @n inherited trigger events
 * on this task, sharing on or off.
 */
static double fork_once(int n, int share, int exec)
{
	struct perf_event_attr attr = {
		.type		= pmu_type,
		.size		= sizeof(attr),
		.config		= TEST_PMU_TRIGGER,
		.inherit	= 1,
		.disabled	= exec,
		.enable_on_exec	= exec,
	};
	static int fd[FORK_MAX];
	double t;
	int i;

	set_knob(TEST_PMU_SHARE, share);
	for (i = 0; i < n; i++) {
		fd[i] = syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
		if (fd[i] < 0)
			fail("perf_event_open (inherit)", errno);
	}
	/*
	 * One fork untimed, then settle(): the frees of the round before
	 * (RCU callbacks of up to FORK_MAX events) run now, not in this
	 * round's time.
	 */
	fork_wait(exec);
	settle();
	t = now_us();
	for (i = 0; i < FORK_ITERS; i++)
		fork_wait(exec);
	t = (now_us() - t) / FORK_ITERS;
	close_events(n, fd);
	return t;
}

/*
 * Microseconds per open of a 4th identical trigger event while 3 count,
 * and close of one of the 4, sharing on or off: of the new one, or with
 * @handover of the oldest (with sharing on, the primary).
 */
static double open_close_once(int share, int handover)
{
	int fd[NR], i, ev, old = 0;
	double t;

	set_knob(TEST_PMU_SHARE, share);
	set_knob(TEST_PMU_NR_COUNTERS, NR);
	if (open_events(TEST_PMU_TRIGGER, NR - 1, fd, 0))
		fail("perf_event_open (trigger)", errno);
	t = now_us();
	for (i = 0; i < OC_ITERS; i++) {
		ev = open_event(TEST_PMU_TRIGGER, 0);
		if (ev < 0)
			fail("perf_event_open (trigger)", errno);
		if (handover) {
			/* fd[] is a ring, the oldest at fd[old]. */
			fd[(old + NR - 1) % NR] = ev;
			ev = fd[old];
			old = (old + 1) % NR;
		}
		if (close(ev))
			fail("close", errno);
	}
	t = (now_us() - t) / OC_ITERS;
	for (i = 0; i < NR - 1; i++)
		if (close(fd[(old + i) % NR]))
			fail("close", errno);
	return t;
}

/* Sharing on, off, and off again: the A/A control of the ratio on/off. */
enum { ON, OFF, OFF_AA, NR_ONOFF };

int main(void)
{
	static const char * const forkexec[] = { "fork", "exec" };
	static const char * const onoff[] = { "on", "off" };
	static const char * const ocname[] = { "open_close", "open_close.handover" };
	static struct samples acc_ratio[2], acc_error[2], pp[NR_PP];
	static struct samples oc[2][NR_ONOFF], fk[2][NR_FORK][NR_ONOFF];
	/* Configurations of the open_close and fork/exec benchmarks. */
	const int nr_oc = 2 * NR_ONOFF, nr_fk = 2 * NR_FORK * NR_ONOFF;
	struct rlimit rl = { FORK_MAX + 64, FORK_MAX + 64 };
	int j, k, r, s, n, x, nr_pp;
	double v, e;

	pmu_type = read_long(TEST_PMU_TYPE);
	if (pmu_type < 0 || access(TEST_PMU_SHARE, F_OK)) {
		printf("bench: share unavailable\n");
		fprintf(stderr, "share: no test PMU with %s\n", TEST_PMU_SHARE);
		return 0;
	}
	/* Read all three first: restore() writes back only what it read. */
	orig_share = read_long(TEST_PMU_SHARE);
	orig_nr_counters = read_long(TEST_PMU_NR_COUNTERS);
	orig_mux = read_long(TEST_PMU_MUX_INTERVAL);
	if (orig_share < 0 || orig_nr_counters < 0 || orig_mux < 0) {
		orig_share = -1;
		orig_nr_counters = -1;
		orig_mux = -1;
		fail("cannot read the test PMU's settings", 0);
	}
	/* The hw_* ping-pong configurations are last: left out without one. */
	find_hw_pmu();
	nr_pp = hw_share[0] ? NR_PP : PP_HW_K1;
	trigger_fd = open(TEST_PMU_TRIGGER_DEV, O_WRONLY);
	if (trigger_fd < 0)
		fail("open " TEST_PMU_TRIGGER_DEV, errno);
	/* A ping-pong child that failed must not kill us with SIGPIPE. */
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		fail("signal", errno);
	/* Everything on CPU 0: the ping-pong needs it, the rest is steadier. */
	if (pin_cpu0())
		fail("sched_setaffinity", errno);
	if (setrlimit(RLIMIT_NOFILE, &rl))
		fail("setrlimit", errno);

	open_close_once(1, 0);		/* warm up: caches, allocators */
	for (r = 0; r < ROUNDS; r++) {
		for (j = 0; j < 2; j++) {	/* on, off */
			k = (r + j) % 2;
			accuracy_once(k == ON, &v, &e);
			sample_add(&acc_ratio[k], v);
			sample_add(&acc_error[k], e);
		}
		for (j = 0; j < nr_pp; j++) {
			k = (r + j) % nr_pp;
			sample_add(&pp[k], pingpong_once(&pp_cfgs[k]));
		}
		for (j = 0; j < nr_oc; j++) {	/* dup, handover */
			k = (r + j) % nr_oc;
			x = k / NR_ONOFF;
			s = k % NR_ONOFF;
			sample_add(&oc[x][s], open_close_once(s == ON, x));
		}
		for (j = 0; j < nr_fk; j++) {	/* fork, exec */
			k = (r + j) % nr_fk;
			x = k / (NR_FORK * NR_ONOFF);
			n = k / NR_ONOFF % NR_FORK;
			s = k % NR_ONOFF;
			sample_add(&fk[x][n][s], fork_once(fork_n[n], s == ON, x));
		}
	}
	restore();
	if (close(trigger_fd))
		fail("close " TEST_PMU_TRIGGER_DEV, errno);

	for (k = 0; k < 2; k++) {
		print_median(&acc_ratio[k], 4, "ratio",
			     "share.accuracy.%s.running_ratio", onoff[k]);
		print_median(&acc_error[k], 3, "%",
			     "share.accuracy.%s.error_pct", onoff[k]);
	}
	for (k = 0; k < nr_pp; k++)
		if (k != PP_K1_AA && k != PP_HW_K1_AA)
			print_median(&pp[k], 2, "us", "share.pingpong.%s",
				     pp_cfgs[k].name);
	for (k = PP_K4_SHARED; k <= PP_K4_MUX; k++)
		print_ratio(&pp[k], &pp[PP_K1], &pp[PP_K1_AA], "share.pingpong.%s",
			    pp_cfgs[k].name);
	for (k = PP_HW_K8_SHARED; k < nr_pp; k++)
		print_ratio(&pp[k], &pp[PP_HW_K1], &pp[PP_HW_K1_AA],
			    "share.pingpong.%s", pp_cfgs[k].name);
	for (x = 0; x < 2; x++) {
		for (s = ON; s <= OFF; s++)
			print_median(&oc[x][s], 2, "us", "share.%s.%s", ocname[x],
				     onoff[s]);
		print_ratio(&oc[x][ON], &oc[x][OFF], &oc[x][OFF_AA], "share.%s",
			    ocname[x]);
	}
	for (x = 0; x < 2; x++) {
		for (n = 0; n < NR_FORK; n++) {
			for (s = ON; s <= OFF; s++)
				print_median(&fk[x][n][s], 1, "us", "share.%s.n%d.%s",
					     forkexec[x], fork_n[n], onoff[s]);
			print_ratio(&fk[x][n][ON], &fk[x][n][OFF], &fk[x][n][OFF_AA],
				    "share.%s.n%d", forkexec[x], fork_n[n]);
		}
	}
	return 0;
}
