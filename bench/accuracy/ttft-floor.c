// ttft-floor: the leanest open-loop HTTP/1.1 streaming client we could write, to measure this machine's TTFT floor
// at a fixed Poisson rate (issue 7: "TTFT p99 <= 1 ms at 1,000 req/s against the static body"). Whatever tail this
// client sees is the machine's (kernel, loopback, nginx, the VM's host), not a JVM's or a parser's.
//
// One thread, one epoll set, non-blocking keep-alive sockets with TCP_NODELAY, all connected before the warm-up.
// Arrivals: exponential gaps from a seeded splitmix64 PRNG, scheduled on CLOCK_MONOTONIC. The wait is a timerfd
// armed at the absolute arrival time (TFD_TIMER_ABSTIME) inside the same epoll set, with the thread's timer slack set
// to 1 ns (prctl PR_SET_TIMERSLACK; the default 50 us slack would delay every wake-up); no spinning. How late the
// writes start relative to their schedule is printed ("dispatch lag"), so the timer's precision is measured, not
// assumed. Like unibench's open loop (BenchmarkRunner.dispatchPaced), a warm-up phase runs and drains first, then the
// measured phase gets its own schedule (seed+1); an arrival that finds no idle connection waits in a FIFO and keeps
// its scheduled time (counted as "queued").
//
// Timestamps per request (all CLOCK_MONOTONIC, taken right after the syscall returns):
//   sched  the arrival time from the schedule
//   write  just before write() of the request (unibench's TTFT starts at LlmClient.send, i.e. before the pool hands
//          out a connection; here a connection is taken without waiting, so "from write" is the same start point)
//   first  the read that completed the first SSE event ("data: ...\n\n") of the body
//   token  the read that completed the first event carrying text ("content":"<non-empty>"); unibench's TTFT ends
//          here (first chunk carrying text). On the static body the two are nearly always the same read.
//   end    the read that completed the body (Content-Length), after which the connection is reused.
// TTFT = token - write ("from write", unibench's "TTFT"); token - sched ("from scheduled", unibench's
// "TTFT incl. Queue"). The body is NOT parsed as SSE beyond finding those two events: every other byte is only counted.
// Percentiles are nearest-rank: the value at rank ceil(q*n) of the sorted sample.
//
// With -N every request opens its own connection (non-blocking connect, TCP_NODELAY, then the write) and closes it
// after the reply, for servers that close after each reply (llama.cpp's server, nginx keepalive_timeout 0); "write"
// is then taken just before socket(), so TTFT includes the connection set-up, as unibench's does for a new connection.
//
// Usage: ttft-floor [-H host] [-p port] [-u path] [-r rate] [-c connections] [-w warmup] [-n measured] [-s seed]
//                   [-o rows.tsv] [-N]
// Defaults: 127.0.0.1 18080 /v1/chat/completions, 1000 req/s, 256 connections, 5000 warm-up, 20000 measured, seed 1.
// Rows file (measured requests only), tab-separated with a header: index, epoch ms of the write, mono s of sched,
// write, first, token, end, queued flag, ttft ms from write, ttft ms from sched.
// Exit status: 0 ok; 1 any connection or HTTP error (or the run timed out); 2 bad arguments.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define NONE (-1.0)
#define HEAD_MAX 8192
#define EVBUF_MAX 4096

typedef struct {
  double sched, write, first, token, end;
  int queued;
} Req;

typedef struct {
  int fd, busy, dead;
  long req;                      // index into the phase's request array, -1 when idle
  const char *out; size_t outLen, outOff;  // pending request bytes (a partial write waits for EPOLLOUT)
  char head[HEAD_MAX]; size_t headLen; int inBody;
  long long bodyLeft;
  char ev[EVBUF_MAX]; size_t evLen, evScan; int seenFirst, seenToken;  // body prefix until the first text event
} Conn;

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static double realNow(void) { struct timespec t; clock_gettime(CLOCK_REALTIME, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static double cpuSeconds(void) {
  struct rusage u; getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_utime.tv_usec * 1e-6 + u.ru_stime.tv_sec + u.ru_stime.tv_usec * 1e-6;
}

static uint64_t rng;
static uint64_t splitmix64(void) {
  uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL; z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL; return z ^ (z >> 31);
}
static double expGap(double rate) { double u = (splitmix64() >> 11) * 0x1.0p-53; return -log1p(-u) / rate; }

static int cmpd(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
static double rank(const double *sorted, long n, double q) {  // nearest rank
  long r = (long)ceil(q * n); if (r < 1) r = 1; if (r > n) r = n; return sorted[r - 1];
}
static void printDist(const char *name, double *v, long n) {
  if (n == 0) { printf("%-24s n=0\n", name); return; }
  qsort(v, n, sizeof *v, cmpd);
  printf("%-24s n=%ld p50 %.3f p90 %.3f p99 %.3f p99.9 %.3f max %.3f ms\n", name, n,
         rank(v, n, .5) * 1e3, rank(v, n, .9) * 1e3, rank(v, n, .99) * 1e3, rank(v, n, .999) * 1e3, v[n - 1] * 1e3);
}

static int ep, tfd, nconn;
static Conn *conns;
static int *idle, nidle;
static char request[1024]; static size_t requestLen;
static long errors;
static int fresh;                 // -N: a new connection per request
static struct sockaddr_in addr;

static void die(const char *m) { perror(m); exit(1); }

static void fail(Conn *c, const char *why) {
  if (!c->dead) fprintf(stderr, "ttft-floor: connection %d: %s\n", (int)(c - conns), why);
  errors++; c->dead = 1; epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL); close(c->fd);
}

// -N: the socket of one request; its connect completes (EPOLLOUT) before the request is written.
static int openConn(Conn *c) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0), one = 1;
  if (fd < 0) die("socket");
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  c->fd = fd;
  struct epoll_event e = {.events = EPOLLIN | EPOLLOUT, .data.u32 = (uint32_t)(c - conns)};
  if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e) < 0) die("epoll_ctl");
  if (connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0 && errno != EINPROGRESS) { fail(c, strerror(errno)); return 0; }
  return 1;
}

// Scans the new body bytes for the first event and the first text-carrying event; stops buffering after that.
static void scanEvents(Conn *c, Req *r, const char *p, size_t n, double t) {
  if (c->seenToken) return;
  size_t take = n < EVBUF_MAX - c->evLen ? n : EVBUF_MAX - c->evLen;
  memcpy(c->ev + c->evLen, p, take); c->evLen += take;
  for (;;) {
    char *end = memmem(c->ev + c->evScan, c->evLen - c->evScan, "\n\n", 2);
    if (!end) break;
    size_t evStart = c->evScan, evEnd = end - c->ev + 2;
    c->evScan = evEnd;
    if (evEnd - evStart < 6 || memcmp(c->ev + evStart, "data: ", 6) != 0) continue;
    if (!c->seenFirst) { c->seenFirst = 1; r->first = t; }
    char *k = memmem(c->ev + evStart, evEnd - evStart, "\"content\":\"", 11);
    if (k && k + 11 < c->ev + evEnd && k[11] != '"') { c->seenToken = 1; r->token = t; return; }
  }
  if (c->evLen == EVBUF_MAX) c->seenToken = 1;  // no text event in the first 4 KiB: leave token unset (counted)
}

static void startRequest(Conn *c, long idx, Req *r) {
  c->busy = 1; c->req = idx; c->headLen = 0; c->inBody = 0; c->bodyLeft = 0;
  c->evLen = c->evScan = 0; c->seenFirst = c->seenToken = 0;
  c->out = request; c->outLen = requestLen; c->outOff = 0;
  r->write = now();
  if (fresh) { openConn(c); return; }  // written once connected (EPOLLOUT)
  ssize_t w = write(c->fd, c->out, c->outLen);
  if (w < 0 && errno != EAGAIN) { fail(c, strerror(errno)); return; }
  if (w > 0) c->outOff = w;
  if (c->outOff < c->outLen) {
    struct epoll_event e = {.events = EPOLLIN | EPOLLOUT, .data.u32 = (uint32_t)(c - conns)};
    epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &e);
  }
}

// Returns 1 when the response completed.
static int onReadable(Conn *c, Req *r) {
  static char buf[65536];
  ssize_t n = read(c->fd, buf, sizeof buf);
  double t = now();
  if (n == 0) { fail(c, "closed by server"); return 0; }
  if (n < 0) { if (errno == EAGAIN) return 0; fail(c, strerror(errno)); return 0; }
  if (!c->busy) { fail(c, "bytes on an idle connection"); return 0; }
  const char *p = buf; size_t len = n;
  if (!c->inBody) {
    size_t take = len < HEAD_MAX - c->headLen ? len : HEAD_MAX - c->headLen;
    memcpy(c->head + c->headLen, p, take);
    size_t scanFrom = c->headLen > 3 ? c->headLen - 3 : 0;
    c->headLen += take;
    char *hend = memmem(c->head + scanFrom, c->headLen - scanFrom, "\r\n\r\n", 4);
    if (!hend) { if (c->headLen == HEAD_MAX) fail(c, "headers over 8 KiB"); return 0; }
    size_t headBytes = hend - c->head + 4;
    int status = 0;
    if (sscanf(c->head, "HTTP/1.%*d %d", &status) != 1 || status != 200) {
      char line[128]; snprintf(line, sizeof line, "status line: %.*s", (int)(strcspn(c->head, "\r\n") < 80 ? strcspn(c->head, "\r\n") : 80), c->head); fail(c, line); return 0;
    }
    long long cl = -1;
    for (char *l = memchr(c->head, '\n', headBytes); l && l < c->head + headBytes; l = memchr(l + 1, '\n', c->head + headBytes - l - 1)) {
      if (strncasecmp(l + 1, "content-length:", 15) == 0) { cl = atoll(l + 16); break; }
    }
    if (cl < 0) { fail(c, "no Content-Length (chunked replies are not supported)"); return 0; }
    c->inBody = 1; c->bodyLeft = cl;
    size_t consumed = headBytes - (c->headLen - take);  // bytes of this read that were headers
    p += consumed; len -= consumed;
  }
  if ((long long)len > c->bodyLeft) { fail(c, "more bytes than Content-Length"); return 0; }
  if (len) scanEvents(c, r, p, len, t);
  c->bodyLeft -= len;
  if (c->bodyLeft == 0) {
    r->end = t; c->busy = 0; c->req = -1;
    if (fresh) { epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL); close(c->fd); c->fd = -1; }
    return 1;
  }
  return 0;
}

static void armTimer(double at) {
  struct itimerspec its = {0};
  its.it_value.tv_sec = (time_t)at; its.it_value.tv_nsec = (long)((at - (double)(time_t)at) * 1e9);
  if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0) its.it_value.tv_nsec = 1;
  timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

// Runs one phase of `count` Poisson arrivals at `rate`; returns the wall time from the first arrival to the last
// completion. Fills reqs[0..count).
static double runPhase(Req *reqs, long count, double rate, double deadlineAfter) {
  long nextArrival = 0, done = 0, qHead = 0, qTail = 0;
  long *queue = malloc(sizeof(long) * (count + 1));
  double anchor = now() + 0.001, t = 0;
  for (long i = 0; i < count; i++) { t += expGap(rate); reqs[i] = (Req){anchor + t, NONE, NONE, NONE, NONE, 0}; }
  double deadline = anchor + t + deadlineAfter, armed = -1;
  struct epoll_event evs[512];
  while (done < count) {
    double tn = now();
    if (tn > deadline) { fprintf(stderr, "ttft-floor: run timed out with %ld requests open\n", count - done); errors++; break; }
    while (nextArrival < count && reqs[nextArrival].sched <= tn) {  // arrivals that are due go to the FIFO
      queue[qTail++] = nextArrival++;
    }
    while (qHead < qTail && nidle > 0) {
      long i = queue[qHead++];
      Conn *c = &conns[idle[--nidle]];
      startRequest(c, i, &reqs[i]);
      if (c->dead) { reqs[i].write = NONE; done++; }
    }
    for (long k = qHead; k < qTail; k++) reqs[queue[k]].queued = 1;  // still waiting: no idle connection
    if (nextArrival < count && reqs[nextArrival].sched != armed) { armed = reqs[nextArrival].sched; armTimer(armed); }
    int n = epoll_wait(ep, evs, 512, 100);
    if (n < 0) { if (errno == EINTR) continue; die("epoll_wait"); }
    for (int e = 0; e < n; e++) {
      if (evs[e].data.u32 == UINT32_MAX) { uint64_t x; if (read(tfd, &x, sizeof x) < 0 && errno != EAGAIN) die("timerfd"); continue; }
      Conn *c = &conns[evs[e].data.u32];
      if (c->dead) continue;
      if (evs[e].events & EPOLLOUT) {
        ssize_t w = write(c->fd, c->out + c->outOff, c->outLen - c->outOff);
        if (w < 0 && errno != EAGAIN) { fail(c, strerror(errno)); done++; continue; }
        if (w > 0) c->outOff += w;
        if (c->outOff == c->outLen) {
          struct epoll_event m = {.events = EPOLLIN, .data.u32 = evs[e].data.u32};
          epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &m);
        }
      }
      if (evs[e].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
        long i = c->req;
        if (!c->busy) { onReadable(c, NULL); continue; }  // an idle connection became readable: EOF or an error
        if (onReadable(c, &reqs[i])) { done++; idle[nidle++] = (int)(c - conns); }
        else if (c->dead) done++;
      }
    }
    if (nidle == 0 && errors > 0) {
      int alive = 0; for (int k = 0; k < nconn; k++) alive += !conns[k].dead;
      if (!alive) { fprintf(stderr, "ttft-floor: every connection failed\n"); break; }
    }
  }
  free(queue);
  double lastEnd = anchor;
  for (long i = 0; i < count; i++) if (reqs[i].end > lastEnd) lastEnd = reqs[i].end;
  return lastEnd - reqs[0].sched;
}

static int connectAll(const char *host, int port) {
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
  if (inet_pton(AF_INET, host, &a.sin_addr) != 1) { fprintf(stderr, "ttft-floor: host must be an IPv4 address\n"); exit(2); }
  addr = a;
  for (int k = 0; k < nconn; k++) {
    if (fresh) { conns[k] = (Conn){.fd = -1, .req = -1}; idle[nidle++] = k; continue; }
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    if (fd < 0) die("socket");
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) die("connect");  // blocking: only before the run
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    conns[k] = (Conn){.fd = fd, .req = -1};
    struct epoll_event e = {.events = EPOLLIN, .data.u32 = (uint32_t)k};
    if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e) < 0) die("epoll_ctl");
    idle[nidle++] = k;
  }
  return 0;
}

int main(int argc, char **argv) {
  const char *host = "127.0.0.1", *path = "/v1/chat/completions", *rows = NULL;
  int port = 18080; double rate = 1000; long warmup = 5000, number = 20000; uint64_t seed = 1; nconn = 256;
  int o;
  while ((o = getopt(argc, argv, "H:p:u:r:c:w:n:s:o:N")) != -1) {
    switch (o) {
      case 'H': host = optarg; break; case 'p': port = atoi(optarg); break; case 'u': path = optarg; break;
      case 'r': rate = atof(optarg); break; case 'c': nconn = atoi(optarg); break; case 'w': warmup = atol(optarg); break;
      case 'n': number = atol(optarg); break; case 's': seed = strtoull(optarg, NULL, 10); break; case 'o': rows = optarg; break;
      case 'N': fresh = 1; break;
      default:
        fprintf(stderr, "usage: ttft-floor [-H host] [-p port] [-u path] [-r rate] [-c connections] [-w warmup] "
                        "[-n measured] [-s seed] [-o rows.tsv] [-N]\n");
        return 2;
    }
  }
  if (rate <= 0 || nconn < 1 || number < 1 || warmup < 0 || port < 1) { fprintf(stderr, "ttft-floor: bad arguments\n"); return 2; }
  if (prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0) != 0) perror("prctl(PR_SET_TIMERSLACK)");
  const char *body = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":true}";
  requestLen = snprintf(request, sizeof request,
                        "POST %s HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\n"
                        "Content-Length: %zu\r\n\r\n%s", path, host, port, strlen(body), body);
  ep = epoll_create1(0); if (ep < 0) die("epoll_create1");
  tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK); if (tfd < 0) die("timerfd_create");
  struct epoll_event te = {.events = EPOLLIN, .data.u32 = UINT32_MAX};
  epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &te);
  conns = calloc(nconn, sizeof *conns); idle = malloc(sizeof(int) * nconn);
  connectAll(host, port);

  if (warmup > 0) {
    rng = seed; Req *w = malloc(sizeof(Req) * warmup);
    runPhase(w, warmup, rate, 30); free(w);
    if (errors) { fprintf(stderr, "ttft-floor: %ld errors in the warm-up\n", errors); return 1; }
  }
  rng = seed + 1;
  Req *r = malloc(sizeof(Req) * number);
  double realOff = realNow() - now();
  double cpu0 = cpuSeconds();
  double span = runPhase(r, number, rate, 30);
  double cpu = cpuSeconds() - cpu0;

  double *fromWrite = malloc(sizeof(double) * number), *fromSched = malloc(sizeof(double) * number),
         *lag = malloc(sizeof(double) * number), *firstEv = malloc(sizeof(double) * number),
         *total = malloc(sizeof(double) * number);
  long ok = 0, queued = 0, noToken = 0;
  for (long i = 0; i < number; i++) {
    if (r[i].queued) queued++;
    if (r[i].end == NONE) continue;
    if (r[i].token == NONE) { noToken++; continue; }
    fromWrite[ok] = r[i].token - r[i].write; fromSched[ok] = r[i].token - r[i].sched;
    lag[ok] = r[i].write - r[i].sched; firstEv[ok] = r[i].first - r[i].write; total[ok] = r[i].end - r[i].write; ok++;
  }
  if (rows) {
    FILE *f = fopen(rows, "w"); if (!f) die(rows);
    fprintf(f, "index\twrite_epoch_ms\tsched_mono_s\twrite_mono_s\tfirst_mono_s\ttoken_mono_s\tend_mono_s\tqueued\tttft_ms\tttft_sched_ms\n");
    for (long i = 0; i < number; i++) {
      Req *q = &r[i];
      fprintf(f, "%ld\t%.3f\t%.6f\t%.6f\t%.6f\t%.6f\t%.6f\t%d\t%.4f\t%.4f\n", i, (q->write + realOff) * 1e3, q->sched, q->write,
              q->first, q->token, q->end, q->queued, q->token == NONE || q->write == NONE ? -1 : (q->token - q->write) * 1e3,
              q->token == NONE ? -1 : (q->token - q->sched) * 1e3);
    }
    fclose(f);
  }
  printf("ttft-floor: %s:%d%s rate %.0f/s connections %d%s warm-up %ld measured %ld seed %llu (timerfd, slack 1 ns)\n",
         host, port, path, rate, nconn, fresh ? " (a new one per request)" : "", warmup, number, (unsigned long long)seed);
  printf("achieved %.2f req/s (%ld completed over %.3f s, first arrival -> last completion); queued %ld; errors %ld; no text event %ld\n",
         ok / span, ok, span, queued, errors, noToken);
  printf("CPU %.3f s user+sys in the measured phase = %.4f CPU-s per 1,000 requests (no SSE parsing: bytes counted, 2 events located)\n",
         cpu, ok ? cpu * 1000 / ok : 0);
  printf("percentiles: nearest rank\n");
  printDist("TTFT from write", fromWrite, ok);
  printDist("TTFT from scheduled", fromSched, ok);
  printDist("first event from write", firstEv, ok);
  printDist("dispatch lag (write-sched)", lag, ok);
  printDist("latency (write->end)", total, ok);
  return errors || ok < number ? 1 : 0;
}
