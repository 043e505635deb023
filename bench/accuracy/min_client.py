#!/usr/bin/env python3
"""Minimal stdlib streaming client (issue 31): the TTFT floor against a real server at concurrency 1.

One connection per request (llama-server closes after each reply). TTFT = start (before connect) -> the first SSE
chunk with non-empty delta content; the server's timings.prompt_ms from the last chunks; written = start -> the
request's bytes handed to the socket (http.client sends the head and a bytes body in one send). Prints one line per
request: ttft_ms prompt_ms written_ms ("- -" for a reply without content or timings). Usage: min_client.py HOST PORT N PROMPT MAX_TOKENS
"""
import http.client
import json
import sys
import time

host, port, n, prompt, max_tokens = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
body = json.dumps({"model": "tiny", "messages": [{"role": "user", "content": prompt}], "max_tokens": max_tokens,
                   "stream": True}).encode()
for _ in range(n):
    start = time.perf_counter()
    conn = http.client.HTTPConnection(host, port)
    conn.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
    written = (time.perf_counter() - start) * 1000
    resp = conn.getresponse()
    ttft = None
    prompt_ms = None
    for line in resp:
        if not line.startswith(b"data: ") or line.startswith(b"data: [DONE]"):
            continue
        chunk = json.loads(line[6:])
        if ttft is None:
            choices = chunk.get("choices") or []
            if choices and (choices[0].get("delta") or {}).get("content"):
                ttft = (time.perf_counter() - start) * 1000
        if "timings" in chunk:
            prompt_ms = chunk["timings"].get("prompt_ms")
    conn.close()
    if ttft is None or prompt_ms is None:  # no content (the tiny model can emit only empty pieces) or no timings
        print(f"- - {written:.3f}")
    else:
        print(f"{ttft:.3f} {prompt_ms:.3f} {written:.3f}")
