package io.unibench.web;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The service's own metrics in the Prometheus text format (version 0.0.4), written here: a few counters and gauges
 * do not earn a metrics library and its registry.
 */
final class ServiceMetrics {
    /** Requests by method, route template (not the raw path: ids would make unbounded series) and status. */
    private record Key(String method, String route, int status) {}

    private static final class Timing {
        final LongAdder count = new LongAdder();
        final LongAdder micros = new LongAdder();
    }

    private final Map<Key, Timing> requests = new ConcurrentHashMap<>();
    private final long startMillis;
    private final LongSupplier storedRuns;

    ServiceMetrics(long startMillis, LongSupplier storedRuns) {
        this.startMillis = startMillis;
        this.storedRuns = storedRuns;
    }

    void record(String method, String route, int status, double millis) {
        Timing t = requests.computeIfAbsent(new Key(method, route, status), k -> new Timing());
        t.count.increment();
        t.micros.add(Math.round(millis * 1000));
    }

    String render(long nowMillis) {
        StringBuilder sb = new StringBuilder(2048);
        sb.append("# HELP unibench_http_requests_total HTTP requests served, by method, route and status.\n");
        sb.append("# TYPE unibench_http_requests_total counter\n");
        Map<String, Timing> sorted = new TreeMap<>();
        requests.forEach((k, v) -> sorted.put("method=\"" + k.method + "\",route=\"" + escape(k.route)
                + "\",status=\"" + k.status + "\"", v));
        sorted.forEach((labels, t) -> sb.append("unibench_http_requests_total{").append(labels).append("} ")
                .append(t.count.sum()).append('\n'));
        sb.append("# HELP unibench_http_request_seconds_total Time spent serving them.\n");
        sb.append("# TYPE unibench_http_request_seconds_total counter\n");
        sorted.forEach((labels, t) -> sb.append("unibench_http_request_seconds_total{").append(labels).append("} ")
                .append(String.format(Locale.ROOT, "%.6f", t.micros.sum() / 1e6)).append('\n'));
        gauge(sb, "unibench_uptime_seconds", "Seconds since the service started.", (nowMillis - startMillis) / 1000.0);
        gauge(sb, "unibench_stored_runs", "Runs in the run history.", storedRuns.getAsLong());
        MemoryMXBean mem = ManagementFactory.getMemoryMXBean();
        gauge(sb, "unibench_jvm_heap_used_bytes", "JVM heap in use.", mem.getHeapMemoryUsage().getUsed());
        gauge(sb, "unibench_jvm_heap_max_bytes", "JVM heap limit (-Xmx).", mem.getHeapMemoryUsage().getMax());
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        gauge(sb, "unibench_jvm_threads", "Live platform threads.", threads.getThreadCount());
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            gauge(sb, "unibench_process_cpu_seconds_total", "CPU time of the service's process.",
                    os.getProcessCpuTime() / 1e9);
        }
        return sb.toString();
    }

    private static void gauge(StringBuilder sb, String name, String help, double value) {
        sb.append("# HELP ").append(name).append(' ').append(help).append('\n');
        sb.append("# TYPE ").append(name).append(name.endsWith("_total") ? " counter\n" : " gauge\n");
        sb.append(name).append(' ').append(value == Math.rint(value) ? Long.toString((long) value)
                : String.format(Locale.ROOT, "%.6f", value)).append('\n');
    }

    private static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }
}
