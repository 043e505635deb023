// lag-floor: the leanest streaming client we could write, to measure this machine's floor for issue 7's timestamp
// lag target ("lag p99 <= 1 ms at 1,000 concurrent streams against the simulator, <= 5 ms at 5,000"). It runs the
// same workload as bench/accuracy/ShippedClientLagBench.java against `unibench sim --debug-send-times-in-text true`
// (every token's text is " " + the simulator's System.nanoTime() just before it wrote the chunk): STREAMS keep-alive
// connections, each streaming replies of MAX_TOKENS tokens back to back; lag = arrival - send stamp, both
// CLOCK_MONOTONIC (System.nanoTime's clock on Linux). Whatever tail it sees is the machine's (kernel, loopback, the
// simulator's bursts, the VM's host), not a JVM's.
//
// One thread, one epoll set (level-triggered), non-blocking sockets with TCP_NODELAY. The arrival stamp is taken
// right after each read() returns; every stamp in the bytes of that read gets it. The reply is not parsed as HTTP or
// SSE: the bytes are only searched for the token text ("content":" <digits>") and for the end of the reply
// ("[DONE]", then the last chunk "0\r\n\r\n"). Each connection's first reply is warm-up; stamps whose chunk arrives
// after SECONDS are not counted. Percentiles: nearest rank (the value at rank ceil(q*n) of the sorted sample).
//
// Usage: lag-floor STREAMS SECONDS [PORT=18090] [MAX_TOKENS=100]
// Exit status: 0 ok; 1 a connection failed or closed; 2 bad arguments.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define REPLY_MAX (1 << 20)

typedef struct {
  int fd;
  char *buf;       // the current reply's bytes so far
  size_t len;      // bytes in buf
  size_t scan;     // where the search for the next token stamp resumes
  int done_seen;   // "[DONE]" found: the reply ends at the next "0\r\n\r\n"
  size_t done_at;
  int warm;        // the first reply has ended
} Conn;

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

static char request[1024];
static size_t request_len;

static void send_request(Conn *c) {
  c->len = c->scan = c->done_at = 0;
  c->done_seen = 0;
  if (write(c->fd, request, request_len) != (ssize_t)request_len) {
    perror("lag-floor: write");
    exit(1);
  }
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: lag-floor STREAMS SECONDS [PORT=18090] [MAX_TOKENS=100]\n");
    return 2;
  }
  int streams = atoi(argv[1]), seconds = atoi(argv[2]);
  int port = argc > 3 ? atoi(argv[3]) : 18090, max_tokens = argc > 4 ? atoi(argv[4]) : 100;
  if (streams < 1 || seconds < 1 || port < 1 || max_tokens < 1) {
    fprintf(stderr, "lag-floor: STREAMS, SECONDS, PORT and MAX_TOKENS must be positive\n");
    return 2;
  }
  struct rlimit rl = {streams + 64, streams + 64};
  setrlimit(RLIMIT_NOFILE, &rl);
  char body[256];
  int body_len = snprintf(body, sizeof body, "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
                          "\"stream\":true,\"max_tokens\":%d,\"ignore_eos\":true}", max_tokens);
  request_len = (size_t)snprintf(request, sizeof request, "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                                 "Content-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: %d\r\n"
                                 "\r\n%s", port, body_len, body);
  int ep = epoll_create1(0);
  Conn *conns = calloc((size_t)streams, sizeof(Conn));
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  for (int i = 0; i < streams; i++) {
    Conn *c = &conns[i];
    c->fd = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(c->fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
      perror("lag-floor: connect");
      return 1;
    }
    c->buf = malloc(REPLY_MAX);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
    epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
    send_request(c);
  }
  size_t cap = 1 << 22, n = 0;
  int64_t *lags = malloc(cap * sizeof(int64_t));
  const char *needle = "\"content\":\" ";
  size_t needle_len = strlen(needle);
  int64_t start = now_ns(), end = start + (int64_t)seconds * 1000000000LL;
  int64_t measure_from = 0;  // the last connection's first reply ended: every stream is warm
  int warm_count = 0, active = streams;
  struct rusage ru0;
  getrusage(RUSAGE_SELF, &ru0);
  struct epoll_event events[1024];
  while (active > 0) {
    int k = epoll_wait(ep, events, 1024, 1000);
    for (int e = 0; e < k; e++) {
      Conn *c = events[e].data.ptr;
      if (c->len == REPLY_MAX) {
        fprintf(stderr, "lag-floor: a reply is larger than %d bytes\n", REPLY_MAX);
        return 1;
      }
      ssize_t r = read(c->fd, c->buf + c->len, REPLY_MAX - c->len);
      int64_t arrival = now_ns();
      if (r <= 0) {
        if (r < 0 && errno == EAGAIN) continue;
        fprintf(stderr, "lag-floor: connection closed by the simulator\n");
        return 1;
      }
      c->len += (size_t)r;
      // token stamps completed by this read
      while (c->scan + needle_len < c->len) {
        char *hit = memmem(c->buf + c->scan, c->len - c->scan, needle, needle_len);
        if (!hit) {
          c->scan = c->len - needle_len;
          break;
        }
        size_t digits = (size_t)(hit - c->buf) + needle_len, j = digits;
        while (j < c->len && c->buf[j] >= '0' && c->buf[j] <= '9') j++;
        if (j == c->len) {  // the stamp goes on in the next read
          c->scan = (size_t)(hit - c->buf);
          break;
        }
        int64_t sent = strtoll(c->buf + digits, NULL, 10);
        if (c->warm && measure_from && arrival <= end) {
          if (n == cap) lags = realloc(lags, (cap *= 2) * sizeof(int64_t));
          lags[n++] = arrival - sent;
        }
        c->scan = j;
      }
      if (!c->done_seen) {
        char *d = memmem(c->buf, c->len, "[DONE]", 6);
        if (d) {
          c->done_seen = 1;
          c->done_at = (size_t)(d - c->buf);
        }
      }
      if (c->done_seen && memmem(c->buf + c->done_at, c->len - c->done_at, "0\r\n\r\n", 5)) {
        if (!c->warm) {
          c->warm = 1;
          if (++warm_count == streams) measure_from = arrival;
        }
        if (arrival < end) {
          send_request(c);
        } else {
          epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
          close(c->fd);
          active--;
        }
      }
    }
  }
  struct rusage ru1;
  getrusage(RUSAGE_SELF, &ru1);
  double cpu = (double)(ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec + ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec)
               + (ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec + ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) / 1e6;
  double window = (double)(end - (measure_from ? measure_from : end)) / 1e9;
  printf("lag-floor: streams %d, measured %.1f s after the warm-up, chunks %zu (%.0f/s), CPU %.2f cores (whole run)\n",
         streams, window, n, window > 0 ? n / window : 0, cpu / ((now_ns() - start) / 1e9));
  if (n == 0) return 0;
  qsort(lags, n, sizeof(int64_t), cmp);
  double qs[] = {0.5, 0.9, 0.99, 0.999};
  printf("lag ms (nearest rank): min %.3f", lags[0] / 1e6);
  const char *names[] = {"p50", "p90", "p99", "p99.9"};
  for (int q = 0; q < 4; q++) {
    size_t rank = (size_t)ceil(qs[q] * (double)n);
    printf(" %s %.3f", names[q], lags[(rank ? rank : 1) - 1] / 1e6);
  }
  printf(" max %.3f\n", lags[n - 1] / 1e6);
  return 0;
}
