// ttft-floor-tls: the https counterpart of ttft-floor.c at concurrency 1, for run-ttft-c1.sh's SCHEME=https mode. One
// thread, blocking sockets with TCP_NODELAY, OpenSSL (the system's libssl), one request at a time at a fixed RATE
// (an even schedule; at concurrency 1 nothing queues). The TLS set-up matches unibench's client: the server's chain is
// verified against the CA file and its certificate's IP address checked, ALPN offers http/1.1 only, TLS 1.2 or 1.3.
//
// TTFT = the read that completed the first SSE event carrying text ("content":"<non-empty>") minus the start: just
// before write() of the request on a kept connection, or (-N) just before socket(), so that a new connection's
// TCP connect and TLS handshake are inside it, as they are in unibench's TTFT. -N opens a connection per request and
// drops it after the reply (the server closes: keepalive_timeout 0); -R resumes the previous connection's TLS session
// (the ticket the server sent) as a client with a session cache would. The handshake time and how many handshakes
// were resumptions are printed, so the floor's TLS work is shown beside its TTFT.
//
// Usage: ttft-floor-tls -C ca.pem [-H 127.0.0.1] [-p port] [-u path] [-r rate] [-w warmup] [-n measured] [-N] [-R]
// Output: "TTFT from write p50 ..." lines as ttft-floor.c prints them (nearest rank), and the handshake figures.
// Exit status: 0 ok; 1 any connection, TLS or HTTP error; 2 bad arguments.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }

static int cmpd(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
static void printDist(const char *name, double *v, long n) {
  qsort(v, n, sizeof *v, cmpd);
  long r50 = (long)ceil(.5 * n), r90 = (long)ceil(.9 * n), r99 = (long)ceil(.99 * n);
  printf("%-24s n=%ld p50 %.3f p90 %.3f p99 %.3f max %.3f ms\n", name, n, v[r50 - 1] * 1e3, v[r90 - 1] * 1e3,
         v[r99 - 1] * 1e3, v[n - 1] * 1e3);
}

static void fail(const char *what) {
  fprintf(stderr, "ttft-floor-tls: %s\n", what);
  ERR_print_errors_fp(stderr);
  exit(1);
}

static SSL_CTX *ctx;
static struct sockaddr_in addr;
static const char *host = "127.0.0.1";
static SSL_SESSION *last;  // -R: the session to resume

// A connected, handshaken TLS connection; *handshake gets the handshake's duration, *resumed whether it resumed.
static SSL *open_tls(int resume, double *handshake, int *resumed) {
  int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
  if (fd < 0) fail("socket");
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0) fail("connect");
  SSL *ssl = SSL_new(ctx);
  SSL_set_fd(ssl, fd);
  X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host);
  if (resume && last) SSL_set_session(ssl, last);
  double t = now();
  if (SSL_connect(ssl) != 1) fail("handshake");
  *handshake = now() - t;
  *resumed = SSL_session_reused(ssl);
  return ssl;
}

static void close_tls(SSL *ssl, int resume) {
  if (resume) {  // the TLS 1.3 ticket came after the handshake, read with the reply: this session resumes
    if (last) SSL_SESSION_free(last);
    last = SSL_get1_session(ssl);
  }
  int fd = SSL_get_fd(ssl);
  SSL_set_quiet_shutdown(ssl, 1);  // the server closed; a connection freed unshut would mark the session unresumable
  SSL_shutdown(ssl);
  SSL_free(ssl);
  close(fd);
}

// Sends the request and reads the whole reply (Content-Length); returns the time of the first text event's read.
static double exchange(SSL *ssl, const char *request, size_t requestLen) {
  static char buf[65536], head[8192], ev[4096];
  size_t headLen = 0, evLen = 0, evScan = 0;
  long long bodyLeft = -1;
  double token = -1;
  if (SSL_write(ssl, request, (int)requestLen) != (int)requestLen) fail("write");
  while (bodyLeft != 0) {
    int n = SSL_read(ssl, buf, sizeof buf);
    double t = now();
    if (n <= 0) fail("read: closed before the reply ended");
    const char *p = buf; size_t len = n;
    if (bodyLeft < 0) {
      size_t take = len < sizeof head - headLen ? len : sizeof head - headLen;
      memcpy(head + headLen, p, take); headLen += take;
      char *end = memmem(head, headLen, "\r\n\r\n", 4);
      if (!end) continue;
      int status = 0;
      if (sscanf(head, "HTTP/1.%*d %d", &status) != 1 || status != 200) fail("status is not 200");
      size_t headBytes = end - head + 4;
      char *cl = strcasestr(head, "\r\ncontent-length:");
      if (!cl || cl > end) fail("no Content-Length");
      bodyLeft = atoll(cl + 17);
      size_t consumed = headBytes - (headLen - take);
      p += consumed; len -= consumed;
    }
    if (token < 0 && len) {
      size_t take = len < sizeof ev - evLen ? len : sizeof ev - evLen;
      memcpy(ev + evLen, p, take); evLen += take;
      char *e;
      while (token < 0 && (e = memmem(ev + evScan, evLen - evScan, "\n\n", 2))) {
        char *k = memmem(ev + evScan, e - (ev + evScan), "\"content\":\"", 11);
        if (k && k[11] != '"') token = t;
        evScan = e - ev + 2;
      }
    }
    bodyLeft -= (long long)len;
  }
  if (token < 0) fail("no text event in the reply's first 4 KiB");
  return token;
}

int main(int argc, char **argv) {
  const char *path = "/v1/chat/completions", *ca = NULL;
  int port = 18443, fresh = 0, resume = 0, o;
  double rate = 300;
  long warmup = 500, number = 3000;
  while ((o = getopt(argc, argv, "C:H:p:u:r:w:n:NR")) != -1) {
    switch (o) {
      case 'C': ca = optarg; break; case 'H': host = optarg; break; case 'p': port = atoi(optarg); break;
      case 'u': path = optarg; break; case 'r': rate = atof(optarg); break; case 'w': warmup = atol(optarg); break;
      case 'n': number = atol(optarg); break; case 'N': fresh = 1; break; case 'R': resume = 1; break;
      default:
        fprintf(stderr, "usage: ttft-floor-tls -C ca.pem [-H host] [-p port] [-u path] [-r rate] [-w warmup] "
                        "[-n measured] [-N] [-R]\n");
        return 2;
    }
  }
  if (!ca || rate <= 0 || number < 1 || warmup < 0) { fprintf(stderr, "ttft-floor-tls: bad arguments (-C is required)\n"); return 2; }
  addr = (struct sockaddr_in){.sin_family = AF_INET, .sin_port = htons(port)};
  if (inet_pton(AF_INET, host, &addr.sin_addr) != 1) { fprintf(stderr, "ttft-floor-tls: host must be an IPv4 address\n"); return 2; }
  ctx = SSL_CTX_new(TLS_client_method());
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
  if (SSL_CTX_load_verify_locations(ctx, ca, NULL) != 1) fail("cannot read the CA file");
  static const unsigned char alpn[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
  SSL_CTX_set_alpn_protos(ctx, alpn, sizeof alpn);
  if (!resume) SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);

  const char *body = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":true}";
  char request[1024];
  size_t requestLen = snprintf(request, sizeof request,
                               "POST %s HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\n"
                               "Accept: text/event-stream\r\nContent-Length: %zu\r\n\r\n%s",
                               path, host, port, strlen(body), body);
  double *ttft = malloc(sizeof(double) * number), *hs = malloc(sizeof(double) * number);
  long handshakes = 0, resumptions = 0;
  SSL *kept = NULL;
  double h; int r;
  if (!fresh) kept = open_tls(0, &h, &r);  // before the clock, as ttft-floor.c connects before its warm-up
  double next = now();
  for (long i = 0; i < warmup + number; i++) {
    next += 1 / rate;
    double start = now();
    SSL *ssl = kept;
    if (fresh) {
      ssl = open_tls(resume, &h, &r);
      if (i >= warmup) { hs[handshakes++] = h; resumptions += r; }
    }
    double token = exchange(ssl, request, requestLen);
    if (fresh) close_tls(ssl, resume);
    if (i >= warmup) ttft[i - warmup] = token - start;
    double wait = next - now();
    if (wait > 0) { struct timespec ts = {(time_t)wait, (long)((wait - (time_t)wait) * 1e9)}; nanosleep(&ts, NULL); }
  }
  printf("ttft-floor-tls: %s:%d%s rate %.0f/s concurrency 1%s%s warm-up %ld measured %ld (%s)\n", host, port, path,
         rate, fresh ? ", a new connection per request" : ", one kept connection", resume ? ", sessions resumed" : "",
         warmup, number, OpenSSL_version(OPENSSL_VERSION));
  printDist("TTFT from write", ttft, number);
  if (handshakes) {
    printf("handshakes %ld, of them resumed %ld\n", handshakes, resumptions);
    printDist("handshake", hs, handshakes);
  }
  return 0;
}
