#!/usr/bin/env bash
# Starts nginx (Debian package) on 127.0.0.1:PORT serving static OpenAI replies to POST, for the client benchmarks:
#   POST /v1/chat/completions       -> stream.sse (text/event-stream: 256 one-token chunks + usage + [DONE])
#   POST /json/v1/chat/completions  -> reply.json (one non-streamed chat completion)
#   POST /v1/responses              -> responses.sse (the same 256 tokens as Responses API events)
#   POST /v1/messages               -> anthropic.sse (the same 256 tokens as Anthropic Messages events)
#   POST /v1/embeddings             -> embeddings.json (one 1024-float embedding)
# The same replies over https on TLS_PORT (env, default 18443) with an EC P-256 certificate for 127.0.0.1 and
# localhost made here by openssl (cert.pem is the CA file for the client's --ca-cert).
# Usage: bench/static-target/setup.sh [PORT=18080] [WORKERS=1] [TOKENS=256]; stop with teardown.sh.
# State lives in STATE_DIR (/tmp/unibench-static-target: pid file, logs, bodies, certificate); another STATE_DIR
# (with another TLS_PORT) runs a second instance. KEEPALIVE_TIMEOUT (600s) is nginx's keepalive_timeout: 0 closes
# after every reply (Connection: close).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
port="${1:-18080}"; workers="${2:-1}"; tokens="${3:-256}"; tls_port="${TLS_PORT:-18443}"
dir="${STATE_DIR:-/tmp/unibench-static-target}"; keepalive="${KEEPALIVE_TIMEOUT:-600s}"
command -v nginx >/dev/null || { echo "nginx missing: apt-get install -y nginx wrk" >&2; exit 1; }
[ -f "$dir/nginx.pid" ] && STATE_DIR="$dir" "$here/teardown.sh"
mkdir -p "$dir/www" "$dir/tmp"
python3 "$here/make-bodies.py" "$dir/www" "$tokens"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=localhost \
  -addext subjectAltName=IP:127.0.0.1,DNS:localhost -keyout "$dir/key.pem" -out "$dir/cert.pem" 2>/dev/null
cat > "$dir/nginx.conf" <<CONF
worker_processes $workers;
worker_rlimit_nofile 20000;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
daemon on;
events { worker_connections 16000; multi_accept on; }
http {
  access_log off;
  client_body_temp_path $dir/tmp; proxy_temp_path $dir/tmp; fastcgi_temp_path $dir/tmp;
  uwsgi_temp_path $dir/tmp; scgi_temp_path $dir/tmp;
  keepalive_requests 10000000;
  keepalive_timeout $keepalive;
  sendfile on; tcp_nopush off; tcp_nodelay on;
  etag off;
  server {
    listen 127.0.0.1:$port backlog=16384;
    listen 127.0.0.1:$tls_port ssl backlog=16384;
    ssl_certificate $dir/cert.pem; ssl_certificate_key $dir/key.pem;
    ssl_protocols TLSv1.2 TLSv1.3; ssl_session_cache shared:tls:10m;
    root $dir/www;
    # The static module answers POST with 405; error_page turns that into an internal GET of the body file.
    location = /v1/chat/completions { error_page 405 =200 /stream.sse; return 405; }
    location = /json/v1/chat/completions { error_page 405 =200 /reply.json; return 405; }
    location = /v1/responses { error_page 405 =200 /responses.sse; return 405; }
    location = /v1/messages { error_page 405 =200 /anthropic.sse; return 405; }
    location = /v1/embeddings { error_page 405 =200 /embeddings.json; return 405; }
    location = /responses.sse { internal; types { } default_type text/event-stream; add_header Cache-Control no-cache; }
    location = /anthropic.sse { internal; types { } default_type text/event-stream; add_header Cache-Control no-cache; }
    location = /embeddings.json { internal; types { } default_type application/json; }
    location = /stream.sse { internal; types { } default_type text/event-stream; add_header Cache-Control no-cache; }
    location = /reply.json { internal; types { } default_type application/json; }
  }
}
CONF
nginx -p "$dir" -c "$dir/nginx.conf"
for i in $(seq 1 50); do [ -s "$dir/nginx.pid" ] && break; sleep 0.1; done
echo "static target: http://127.0.0.1:$port/v1/chat/completions and https://127.0.0.1:$tls_port/... (CA file $dir/cert.pem) (pid $(cat "$dir/nginx.pid"), $workers worker(s), $tokens tokens)"
