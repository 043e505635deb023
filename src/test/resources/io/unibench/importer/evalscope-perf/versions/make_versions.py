#!/usr/bin/env python3
"""Writes the evalscope perf output folders of older key sets beside this script, from the one real run we have.

The run is ../qwen-plus/parallel_4_number_60 (evalscope perf v1.10+ against our simulator, 60 streamed requests at
concurrency 4). Its benchmark_data.db holds every request; each folder here is what the named evalscope release's
code (modelscope/evalscope, the tag named; the functions cited) writes for those requests: the summary keys, their
order, units and rounding, the percentile rows and their nearest-rank rule. The run's duration is the database's
wall time (last completed_time - first start_time), which reproduces the real summary's figures to its 4 decimals.
benchmark_args.json keeps the real run's arguments that the release's Arguments class has (unchanged values).

Run from this folder: python3 make_versions.py [--check]   (--check: also rebuilds v1.10's two files from the
database and compares them with the real ones, the test of this script).
"""
import json
import os
import sqlite3
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REAL = os.path.join(HERE, '..', 'qwen-plus', 'parallel_4_number_60')
POINT = 'parallel_4_number_60'

# Arguments fields of each release (dataclass fields of evalscope/perf/arguments.py at the tag) that the real run has
ARG_FIELDS = {
    'v0.8.0': ['model', 'api', 'tokenizer_path', 'port', 'url', 'headers', 'connect_timeout', 'read_timeout',
               'api_key', 'number', 'parallel', 'rate', 'log_every_n_query', 'debug', 'wandb_api_key', 'name',
               'outputs_dir', 'max_prompt_length', 'min_prompt_length', 'prefix_length', 'prompt', 'query_template',
               'dataset', 'dataset_path', 'frequency_penalty', 'logprobs', 'max_tokens', 'min_tokens', 'n_choices',
               'seed', 'stop', 'stop_token_ids', 'stream', 'temperature', 'top_p', 'top_k'],
}
ARG_FIELDS['v0.13.2'] = ARG_FIELDS['v0.8.0'] + ['swanlab_api_key', 'apply_chat_template']
ARG_FIELDS['v0.15.1'] = ARG_FIELDS['v0.13.2'] + ['sleep_interval']
ARG_FIELDS['v1.6.1'] = ARG_FIELDS['v0.15.1'] + ['model_id', 'attn_implementation', 'total_timeout', 'no_test_connection',
                                                'db_commit_interval', 'queue_size_multiplier',
                                                'in_flight_task_multiplier', 'visualizer', 'no_timestamp',
                                                'image_width', 'image_height', 'image_format', 'image_num',
                                                'image_patch_size', 'repetition_penalty', 'extra_args']
ARG_FIELDS['v1.9.1'] = ARG_FIELDS['v1.6.1'] + ['warmup_num', 'open_loop', 'duration', 'num_workers',
                                               'enable_progress_tracker', 'data_source', 'dataset_offset',
                                               'dataset_args', 'swanlab_host']


def load():
    con = sqlite3.connect(os.path.join(REAL, 'benchmark_data.db'))
    rows = con.execute('SELECT start_time, inter_token_latencies, success, completed_time, latency, '
                       'first_chunk_latency, prompt_tokens, completion_tokens, time_per_output_token '
                       'FROM result ORDER BY rowid').fetchall()
    out = []
    for start, itl, success, completed, latency, ttft, prompt, completion, tpot in rows:
        gaps = json.loads(itl) if itl else []
        chunk_times = [start + ttft]
        for g in gaps:
            chunk_times.append(chunk_times[-1] + g)
        out.append(dict(start=start, gaps=gaps, chunk_times=chunk_times, success=success, completed=completed,
                        latency=latency, ttft=ttft, prompt=prompt, completion=completion, tpot=tpot,
                        n_chunks=len(chunk_times) - 2, chunks_time=chunk_times[-2] - chunk_times[0]))
    return out


def write(tag, name, data):
    folder = os.path.join(HERE, tag, POINT)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), 'w') as f:  # write_json_file of evalscope/perf/utils/db_util.py
        json.dump(data, f, indent=4, ensure_ascii=False)


def args(tag, real_args):
    return {k: real_args[k] for k in ARG_FIELDS[tag] if k in real_args}


def nearest(data, percentiles, ndigits):
    """calculate_percentiles of db_util.py: sorted, data[int(n * p / 100)], rounded (p >= 100: the last, v1.8+)."""
    data = sorted(data)
    out = {}
    for p in percentiles:
        try:
            value = data[-1] if p >= 100 else data[int(len(data) * p / 100)]
            out[p] = round(value, ndigits)
        except IndexError:
            out[p] = float('nan')
    return out


def rows_of(columns, labels):
    """transpose_results of db_util.py: one dict per percentile, keys in the columns' order."""
    headers = list(columns.keys())
    return [dict(zip(headers, row)) for row in zip(*columns.values())]


def main():
    reqs = load()
    ok = [r for r in reqs if r['success']]
    n, n_total = len(ok), len(reqs)
    total_time = max(r['completed'] for r in reqs) - min(r['start'] for r in reqs)
    prompt = sum(r['prompt'] for r in ok)
    completion = sum(r['completion'] for r in ok)
    avg_ttft = sum(r['ttft'] for r in ok) / n
    avg_latency = sum(r['latency'] for r in ok) / n
    all_gaps = [g for r in ok for g in r['gaps']]
    real_args = json.load(open(os.path.join(REAL, 'benchmark_args.json')))
    db_path = 'outputs/' + POINT + '/benchmark_data.db'

    # v0.8.0 (94a83868): BenchmarkMetrics.create_message of benchmark_util.py, default_ndigits=3; summary_result adds
    # the expected number and the db path; get_percentile_results: success rows sorted by the column, round 4.
    n_chunks = sum(r['n_chunks'] for r in ok)
    chunks_time = sum(r['chunks_time'] for r in ok)
    write('v0.8.0', 'benchmark_summary.json', {
        'Time taken for tests (senconds)': round(total_time, 3),
        'Number of concurrency': real_args['parallel'],
        'Total requests': int(n_total),
        'Succeed requests': n,
        'Failed requests': n_total - n,
        'Average QPS': round(n / total_time, 3),
        'Average latency (s)': round(avg_latency, 3),
        'Average time to first token (s)': round(avg_ttft, 3),
        'Average time per output token (s)': round(total_time / completion, 5),
        'Average package latency (s)': round(chunks_time / n_chunks, 3),
        'Average package per request': round(n_chunks / n, 3),
        'Throughput(average output tokens per second)': round(completion / total_time, 3),
        'Average input tokens per request': round(prompt / n, 3),
        'Average output tokens per request': round(completion / n, 3),
        'Expected number of requests': real_args['number'],
        'Result DB path': db_path,
    })
    pcts = [10, 25, 50, 66, 75, 80, 90, 95, 98, 99]
    ttft = nearest([r['ttft'] for r in ok], pcts, 4)
    lat = nearest([r['latency'] for r in ok], pcts, 4)
    write('v0.8.0', 'benchmark_percentile.json', rows_of({
        'Percentile': [f'{p}%' for p in pcts],
        'First Chunk Latency (s)': [ttft[p] for p in pcts],
        'Latency (s)': [lat[p] for p in pcts],
    }, pcts))
    write('v0.8.0', 'benchmark_args.json', args('v0.8.0', real_args))

    # v0.13.2: create_message with default_ndigits=3 (TPOT too since v0.12.0); TPOT per request = latency / output
    # tokens (5bc798a7); percentiles via calculate_percentiles, 'TPOT (s)' being every inter-chunk gap.
    def old_columns(ok, tpot_label, itl_label, tpot_values, throughput):
        cols = {'Percentile': [f'{p}%' for p in pcts]}
        metrics = {'TTFT (s)': [r['ttft'] for r in ok]}
        if itl_label:
            metrics[itl_label] = [g for r in ok for g in (r['chunk_times'][i + 1] - r['chunk_times'][i]
                                                          for i in range(len(r['chunk_times']) - 1))]
        if tpot_label:
            metrics[tpot_label] = tpot_values
        metrics['Latency (s)'] = [r['latency'] for r in ok]
        metrics['Input tokens'] = [r['prompt'] for r in ok]
        metrics['Output tokens'] = [r['completion'] for r in ok]
        metrics.update(throughput)
        for name, data in metrics.items():
            q = nearest(data, pcts, 4)
            cols[name] = [q[p] for p in pcts]
        return cols

    write('v0.13.2', 'benchmark_summary.json', {
        'Time taken for tests (s)': round(total_time, 3),
        'Number of concurrency': real_args['parallel'],
        'Total requests': int(n_total),
        'Succeed requests': n,
        'Failed requests': n_total - n,
        'Throughput(average tokens/s)': round(completion / total_time, 3),
        'Average QPS': round(n / total_time, 3),
        'Average latency (s)': round(avg_latency, 3),
        'Average time to first token (s)': round(avg_ttft, 3),
        'Average time per output token (s)': round(sum(r['latency'] / r['completion'] for r in ok) / n, 3),
        'Average input tokens per request': round(prompt / n, 3),
        'Average output tokens per request': round(completion / n, 3),
        'Average package latency (s)': round(chunks_time / n_chunks, 3),
        'Average package per request': round(n_chunks / n, 3),
        'Expected number of requests': real_args['number'],
        'Result DB path': db_path,
    })
    write('v0.13.2', 'benchmark_percentile.json', rows_of(old_columns(
        ok, None, 'TPOT (s)', None,
        {'Throughput(tokens/s)': [r['completion'] / r['latency'] for r in ok]}), pcts))
    write('v0.13.2', 'benchmark_args.json', args('v0.13.2', real_args))

    # v0.15.1: create_message of v0.14.0 (default_ndigits=4); TPOT per request = (last chunk but one - first chunk)
    # / output tokens (b0f2b5f4); percentile columns of v0.15.0.
    tpot_v015 = [r['chunks_time'] / r['completion'] for r in ok]
    write('v0.15.1', 'benchmark_summary.json', {
        'Time taken for tests (s)': round(total_time, 4),
        'Number of concurrency': real_args['parallel'],
        'Total requests': int(n_total),
        'Succeed requests': n,
        'Failed requests': n_total - n,
        'Output token throughput (tok/s)': round(completion / total_time, 4),
        'Total token throughput (tok/s)': round((prompt + completion) / total_time, 4),
        'Request throughput (req/s)': round(n / total_time, 4),
        'Average latency (s)': round(avg_latency, 4),
        'Average time to first token (s)': round(avg_ttft, 4),
        'Average time per output token (s)': round(sum(tpot_v015) / n, 4),
        'Average input tokens per request': round(prompt / n, 4),
        'Average output tokens per request': round(completion / n, 4),
        'Average package latency (s)': round(chunks_time / n_chunks, 4),
        'Average package per request': round(n_chunks / n, 4),
        'Expected number of requests': real_args['number'],
        'Result DB path': db_path,
    })
    cols = old_columns(ok, 'TPOT (s)', 'ITL (s)', tpot_v015, {
        'Output throughput(tok/s)': [r['completion'] / r['latency'] for r in ok],
        'Total throughput(tok/s)': [(r['prompt'] + r['completion']) / r['latency'] for r in ok]})
    write('v0.15.1', 'benchmark_percentile.json', rows_of(cols, pcts))
    write('v0.15.1', 'benchmark_args.json', args('v0.15.1', real_args))

    # v1.6.1: MetricsAccumulator.create_message (_build_common_fields, _build_llm_fields, multi-turn when > 0,
    # speculative when avg decoded tokens per iteration > 0), ndigits=4; TPOT per request = (latency - first chunk)
    # / (output tokens - 1), the database's time_per_output_token; PercentileMetrics in seconds, 'Percentiles'.
    decoded = [(r['completion'] - 1) / (len(r['gaps'])) for r in ok if r['completion'] > 1 and len(r['gaps']) > 0]
    summary = {
        'Time taken for tests (s)': round(total_time, 4),
        'Number of concurrency': real_args['parallel'],
        'Request rate (req/s)': real_args['rate'],
        'Total requests': int(n_total),
        'Succeed requests': n,
        'Failed requests': n_total - n,
        'Request throughput (req/s)': round(n / total_time, 4),
        'Average latency (s)': round(avg_latency, 4),
        'Average input tokens per request': round(prompt / n, 4),
        'Output token throughput (tok/s)': round(completion / total_time, 4),
        'Total token throughput (tok/s)': round((prompt + completion) / total_time, 4),
        'Average time to first token (s)': round(avg_ttft, 4),
        'Average time per output token (s)': round(sum(r['tpot'] for r in ok) / n, 4),
        'Average inter-token latency (s)': round(sum(all_gaps) / len(all_gaps), 4),
        'Average output tokens per request': round(completion / n, 4),
    }
    if decoded:
        L = sum(decoded) / len(decoded)
        summary['Average decoded tokens per iter (tok/iter)'] = round(L, 4)
        summary['Approx speculative decoding acceptance rate'] = round(max(0.0, min(1.0, 1.0 - 1.0 / L)), 4)
    write('v1.6.1', 'benchmark_summary.json', summary)
    metrics = {
        'TTFT (s)': [r['ttft'] for r in ok],
        'ITL (s)': all_gaps,
        'TPOT (s)': [r['tpot'] for r in ok],
        'Latency (s)': [r['latency'] for r in ok],
        'Input tokens': [r['prompt'] for r in ok],
        'Output tokens': [r['completion'] for r in ok],
        'Output (tok/s)': [r['completion'] / r['latency'] for r in ok],
        'Total (tok/s)': [(r['prompt'] + r['completion']) / r['latency'] for r in ok],
    }
    cols = {'Percentiles': [f'{p}%' for p in pcts]}
    for name, data in metrics.items():
        q = nearest(data, pcts, 4)
        cols[name] = [q[p] for p in pcts]
    write('v1.6.1', 'benchmark_percentile.json', rows_of(cols, pcts))
    write('v1.6.1', 'benchmark_args.json', args('v1.6.1', real_args))

    # v1.9.1 and v1.10.0: BenchmarkSummary.to_dict of perf_models.py (pydantic, by alias, None excluded, the fields'
    # order; 0.0 defaults written), TTFT/TPOT/ITL in ms rounded to 2; PercentileResult rows (v1.8.0+: a 'max' row,
    # v1.10.0: a 'min' row first), ms columns and 'Decode (tok/s)', rounded to 2.
    def new_files(tag):
        v110 = tag == 'v1.10.0'
        s = {
            'Test Duration (s)': round(total_time, 4),
            'Concurrency': real_args['parallel'],
            'Request Rate (req/s)': real_args['rate'],
            'Total Requests': int(n_total),
            'Success Requests': n,
            'Failed Requests': n_total - n,
        }
        if v110:
            s['Stream Requests'] = n
            s['Non-Stream Requests'] = 0
        s.update({
            'Req Throughput (req/s)': round(n / total_time, 4),
            'Avg Latency (s)': round(avg_latency, 4),
            'Avg Input Tokens': round(prompt / n, 4),
            'Output Throughput (tok/s)': round(completion / total_time, 4),
            'Total Throughput (tok/s)': round((prompt + completion) / total_time, 4),
            ('Avg TTFT (ms)' if v110 else 'TTFT (ms)'): round(avg_ttft * 1000, 2),
            ('Avg TPOT (ms)' if v110 else 'TPOT (ms)'): round(sum(r['tpot'] for r in ok) / n * 1000, 2),
            ('Avg ITL (ms)' if v110 else 'ITL (ms)'): round(sum(all_gaps) / len(all_gaps) * 1000, 2),
            'Avg Output Tokens': round(completion / n, 4),
            'Input Throughput (tok/s)': 0.0,
        })
        # no multi-turn keys (a single-turn run); no speculative-decoding keys: v1.9.1 and v1.10.0 count a request's
        # decoded tokens per iteration only above 1 (here 63 tokens over 65 gaps each); no cache figure in v1.9.1
        # (v1.10.0 also counts the server's cached tokens of single-turn runs: the real file's 0.0)
        ps = [1, 5, 10, 25, 50, 75, 90, 95, 99]
        labels = (['min'] if v110 else []) + [f'{p}%' for p in ps] + ['max']
        allp = ([0] if v110 else []) + ps + [100]
        metrics = {
            'Latency (s)': [r['latency'] for r in ok],
            'TTFT (ms)': [r['ttft'] * 1000 for r in ok],
            'ITL (ms)': [g * 1000 for g in all_gaps],
            'TPOT (ms)': [r['tpot'] * 1000 for r in ok],
            'Input tokens': [r['prompt'] for r in ok],
            'Output tokens': [r['completion'] for r in ok],
            'Output (tok/s)': [r['completion'] / r['latency'] for r in ok],
            'Total (tok/s)': [(r['prompt'] + r['completion']) / r['latency'] for r in ok],
            'Decode (tok/s)': [1.0 / r['tpot'] for r in ok],
        }
        rows = []
        for i, label in enumerate(labels):
            row = {'Percentiles': label}
            for name, data in metrics.items():  # PercentileRow's field order
                row[name] = nearest(data, [allp[i]], 2)[allp[i]]
            rows.append(row)
        return s, rows

    s, rows = new_files('v1.9.1')
    write('v1.9.1', 'benchmark_summary.json', s)
    write('v1.9.1', 'benchmark_percentile.json', rows)
    write('v1.9.1', 'benchmark_args.json', args('v1.9.1', real_args))

    if '--check' in sys.argv:
        s, rows = new_files('v1.10.0')
        real_s = json.load(open(os.path.join(REAL, 'benchmark_summary.json')))
        real_p = json.load(open(os.path.join(REAL, 'benchmark_percentile.json')))
        for k, v in real_s.items():
            if k in s and s[k] != v:
                print('summary differs', k, s[k], v)
        print('summary keys only in the real file:', [k for k in real_s if k not in s])
        for mine, real in zip(rows, real_p):
            for k, v in real.items():
                if mine.get(k) != v:
                    print('percentile differs', real['Percentiles'], k, mine.get(k), v)


if __name__ == '__main__':
    main()
