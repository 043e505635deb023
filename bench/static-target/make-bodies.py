#!/usr/bin/env python3
"""Writes the static reply bodies the benchmark's nginx target serves (issue 7):
stream.sse: a role chunk, 256 one-token content chunks, a finish chunk, a usage chunk and [DONE], as vLLM sends them;
reply.json: the same reply as one non-streamed chat completion;
responses.sse: the same words as OpenAI's Responses API streams them (event lines, sequence numbers, the lifecycle
events around the 256 response.output_text.delta events, response.completed with the usage);
anthropic.sse: the same words as Anthropic's Messages API streams them (message_start, content_block_start, ping,
256 content_block_delta, content_block_stop, message_delta with the usage, message_stop);
embeddings.json: one embedding (1024 floats) with its usage. Usage: make-bodies.py DIR [TOKENS]"""
import json, sys, os

if len(sys.argv) < 2 or sys.argv[1].startswith("-"):  # '--help' once became a folder of that name
    sys.exit(__doc__ if len(sys.argv) >= 2 and sys.argv[1] in ("-h", "--help") else "usage: make-bodies.py DIR [TOKENS]")
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

def event(name, obj):
    return "event: " + name + "\ndata: " + json.dumps(obj, separators=(",", ":")) + "\n\n"

text = "".join(words)
resp = {"id": "resp_bench", "object": "response", "created_at": 1732000000, "status": "in_progress", "error": None,
        "incomplete_details": None, "model": "m", "output": [], "usage": None}
item = {"id": "msg_bench", "type": "message", "status": "in_progress", "content": [], "role": "assistant"}
part = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
seq = iter(range(1 << 30))
with open(os.path.join(out, "responses.sse"), "w") as f:
    f.write(event("response.created", {"type": "response.created", "sequence_number": next(seq), "response": resp}))
    f.write(event("response.in_progress", {"type": "response.in_progress", "sequence_number": next(seq), "response": resp}))
    f.write(event("response.output_item.added", {"type": "response.output_item.added", "sequence_number": next(seq),
                                                  "output_index": 0, "item": item}))
    f.write(event("response.content_part.added", {"type": "response.content_part.added", "sequence_number": next(seq),
                                                   "item_id": "msg_bench", "output_index": 0, "content_index": 0, "part": part}))
    for w in words:
        f.write(event("response.output_text.delta", {"type": "response.output_text.delta", "sequence_number": next(seq),
                                                      "item_id": "msg_bench", "output_index": 0, "content_index": 0,
                                                      "delta": w, "logprobs": []}))
    done_part = dict(part, text=text)
    done_item = dict(item, status="completed", content=[done_part])
    f.write(event("response.output_text.done", {"type": "response.output_text.done", "sequence_number": next(seq),
                                                 "item_id": "msg_bench", "output_index": 0, "content_index": 0,
                                                 "text": text, "logprobs": []}))
    f.write(event("response.content_part.done", {"type": "response.content_part.done", "sequence_number": next(seq),
                                                  "item_id": "msg_bench", "output_index": 0, "content_index": 0,
                                                  "part": done_part}))
    f.write(event("response.output_item.done", {"type": "response.output_item.done", "sequence_number": next(seq),
                                                 "output_index": 0, "item": done_item}))
    f.write(event("response.completed", {"type": "response.completed", "sequence_number": next(seq), "response": dict(
        resp, status="completed", output=[done_item], usage={"input_tokens": 9, "input_tokens_details": {"cached_tokens": 0},
                                                             "output_tokens": tokens, "output_tokens_details": {"reasoning_tokens": 0},
                                                             "total_tokens": 9 + tokens})}))
with open(os.path.join(out, "anthropic.sse"), "w") as f:
    f.write(event("message_start", {"type": "message_start", "message": {
        "id": "msg_bench", "type": "message", "role": "assistant", "model": "m", "content": [], "stop_reason": None,
        "stop_sequence": None, "usage": {"input_tokens": 9, "cache_creation_input_tokens": 0,
                                         "cache_read_input_tokens": 0, "output_tokens": 1}}}))
    f.write(event("content_block_start", {"type": "content_block_start", "index": 0,
                                          "content_block": {"type": "text", "text": ""}}))
    f.write(event("ping", {"type": "ping"}))
    for w in words:
        f.write(event("content_block_delta", {"type": "content_block_delta", "index": 0,
                                              "delta": {"type": "text_delta", "text": w}}))
    f.write(event("content_block_stop", {"type": "content_block_stop", "index": 0}))
    f.write(event("message_delta", {"type": "message_delta", "delta": {"stop_reason": "max_tokens", "stop_sequence": None},
                                    "usage": {"output_tokens": tokens}}))
    f.write(event("message_stop", {"type": "message_stop"}))
with open(os.path.join(out, "embeddings.json"), "w") as f:
    json.dump({"object": "list", "data": [{"object": "embedding", "index": 0,
                                           "embedding": [round(((i * 31) % 7 - 3) / 96.0, 6) for i in range(1024)]}],
               "model": "m", "usage": {"prompt_tokens": 9, "total_tokens": 9}}, f, separators=(",", ":"))
