-- wrk script: POST a small chat body, as the benchmark client does
wrk.method = "POST"
wrk.body = '{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true}'
wrk.headers["Content-Type"] = "application/json"
