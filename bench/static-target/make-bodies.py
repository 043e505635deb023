#!/usr/bin/env python3
"""Writes the static reply bodies the benchmark's nginx target serves (issue 7):
stream.sse: a role chunk, 256 one-token content chunks, a finish chunk, a usage chunk and [DONE], as vLLM sends them;
reply.json: the same reply as one non-streamed chat completion. Usage: make-bodies.py DIR [TOKENS]"""
import json, sys, os

out = sys.argv[1]
tokens = int(sys.argv[2]) if len(sys.argv) > 2 else 256
os.makedirs(out, exist_ok=True)
head = {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": 1732000000, "model": "m"}

def chunk(delta, finish=None, usage=None, choices=True):
    c = dict(head)
    c["choices"] = [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}] if choices else []
    c["usage"] = usage
    return "data: " + json.dumps(c, separators=(",", ":")) + "\n\n"

usage = {"prompt_tokens": 9, "completion_tokens": tokens, "total_tokens": 9 + tokens,
         "prompt_tokens_details": {"cached_tokens": 0}}
words = ["tok%d " % (i % 100) for i in range(tokens)]
with open(os.path.join(out, "stream.sse"), "w") as f:
    f.write(chunk({"role": "assistant", "content": ""}))
    for w in words:
        f.write(chunk({"content": w}))
    f.write(chunk({}, finish="length"))
    f.write(chunk(None, usage=usage, choices=False))
    f.write("data: [DONE]\n\n")
with open(os.path.join(out, "reply.json"), "w") as f:
    json.dump({"id": "chatcmpl-bench", "object": "chat.completion", "created": 1732000000, "model": "m",
               "choices": [{"index": 0, "message": {"role": "assistant", "content": "".join(words)},
                            "logprobs": None, "finish_reason": "length"}], "usage": usage}, f)
