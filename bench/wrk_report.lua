-- wrk script for `make bench`: after the run, print one JSON line with the numbers bench/report.py needs.
-- wrk counts responses with a status >= 400 in errors.status; bench/run.sh also counts every non-200
-- answer (3xx included) from gunicorn's access log, and checks each URL answers 200 before loading it.
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests": %d, "duration_us": %d, "bytes": %d, "errors_connect": %d, "errors_read": %d, ' ..
    '"errors_write": %d, "errors_status": %d, "errors_timeout": %d, "latency_mean_us": %.1f, ' ..
    '"latency_max_us": %d, "p50_us": %d, "p90_us": %d, "p99_us": %d}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency.mean, latency.max, latency:percentile(50), latency:percentile(90), latency:percentile(99)))
end
