package io.unibench.schedule;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What one notification says, whatever the channel: the rule, the target, the value against the threshold, the last
 * rounds' values, how long it has been firing, and a link to the run when the service's public URL is known; in the
 * channel's language ({@code en} or {@code zh}). Stored as JSON in the outbox; each channel renders it ({@link Payloads}).
 *
 * @param kind       {@code fired}, {@code reminder}, {@code resolved}, {@code no_data}, {@code data_back}, or
 *                   {@code test} (a channel's test message: no rule, no target)
 * @param lastValues the rule's values for the target in the last rounds, oldest first (null = no data)
 * @param since      when the incident opened (epoch ms)
 * @param at         the moment of this notice: for {@code resolved}, when the incident closed
 * @param rounds     rounds since it opened, this one included
 * @param runUrl     the run in the service ({@code PUBLIC_URL/runs/ID}), or null
 * @param metric     the rule's metric ({@code ttft_p95_ms}, {@code error_rate[http_429]}) that names the values, or
 *                   null (a notice stored before it was kept: bare values)
 * @param language   {@code zh} or {@code en} (null: en)
 * @param interval   the value's 95 % confidence interval {@code [low, high]} in its unit, on which the rule decided
 *                   ({@link AlertRule#decide}); null when it had none (too few requests, a figure without one)
 */
public record Notice(String kind, String schedule, String rule, String condition, String unit, Target target,
                     Double value, Double threshold, Double worst, List<Double> lastValues, long since, long at,
                     int rounds, String roundId, String runId, String runUrl, String metric, String language,
                     List<Double> interval) {
    public static final String TEST = "test";

    public Notice {
        lastValues = java.util.Collections.unmodifiableList(new ArrayList<>(lastValues == null ? List.of() : lastValues));
        if (interval != null && (interval.size() != 2 || interval.get(0) == null || interval.get(1) == null)) {
            interval = null;
        }
        if (interval != null) interval = List.copyOf(interval);
    }

    /** Without an interval (a figure without one, or a notice stored before notices had it). */
    public Notice(String kind, String schedule, String rule, String condition, String unit, Target target,
                  Double value, Double threshold, Double worst, List<Double> lastValues, long since, long at,
                  int rounds, String roundId, String runId, String runUrl, String metric, String language) {
        this(kind, schedule, rule, condition, unit, target, value, threshold, worst, lastValues, since, at, rounds,
                roundId, runId, runUrl, metric, language, null);
    }

    /** Without the metric's name and in English (as before notices had them). */
    public Notice(String kind, String schedule, String rule, String condition, String unit, Target target,
                  Double value, Double threshold, Double worst, List<Double> lastValues, long since, long at,
                  int rounds, String roundId, String runId, String runUrl) {
        this(kind, schedule, rule, condition, unit, target, value, threshold, worst, lastValues, since, at, rounds,
                roundId, runId, runUrl, null, null);
    }

    /** A channel's test message: sent from the schedule page or API to see that the channel delivers. */
    public static Notice test(String schedule, String channel, long at, String language) {
        return new Notice(TEST, schedule, null, channel, null, null, null, null, null, List.of(), at, at, 0, null, null,
                null, null, language);
    }

    /** The same notice in {@code language} (the channel's; null: English). */
    public Notice in(String lang) {
        return new Notice(kind, schedule, rule, condition, unit, target, value, threshold, worst, lastValues, since, at,
                rounds, roundId, runId, runUrl, metric, lang, interval);
    }

    private boolean zh() {
        return "zh".equals(language);
    }

    /** {@code [FIRING] slow-first-token · deepseek (deepseek-chat) · chat · concurrency 8}; {@code [告警] …} in Chinese. */
    public String title() {
        boolean zh = zh();
        String state = switch (kind) {
            case "fired" -> zh ? "告警" : "FIRING";
            case "reminder" -> zh ? "持续告警" : "STILL FIRING";
            case "resolved" -> zh ? "已恢复" : "RESOLVED";
            case "no_data" -> zh ? "无数据" : "NO DATA";
            case TEST -> zh ? "测试" : "TEST";
            default -> zh ? "数据恢复" : "DATA BACK";
        };
        if (kind.equals(TEST)) {
            return "[" + state + "] " + (zh ? "巡检 " + schedule + " · 通知渠道 " + condition
                    : "schedule " + schedule + " · channel " + condition);
        }
        return "[" + state + "] " + rule + " · " + targetText();
    }

    private String targetText() {
        String t = target.display();
        if (!zh()) return t;
        return t.replace("concurrency ", "并发 ").replace("trace replay", "轨迹回放").replace("rate ", "速率 ");
    }

    /** Severity colour: red while firing, orange without data, green when resolved, blue for a test. */
    public String colour() {
        return switch (kind) {
            case "fired", "reminder" -> "red";
            case "no_data" -> "orange";
            case TEST -> "blue";
            default -> "green";
        };
    }

    /** The body: one fact a line, the same in every channel ({@code Label: value}; the label is bold where it renders). */
    public List<String> lines() {
        return zh() ? chinese() : english();
    }

    private List<String> english() {
        List<String> out = new ArrayList<>();
        out.add("Schedule: " + schedule);
        if (kind.equals(TEST)) {
            out.add("Channel: " + condition);
            out.add("Sent: " + Times.utc(at));
            out.add("Note: a test message from unibench; this schedule's alerts arrive here");
            return out;
        }
        out.add("Rule: " + rule + " (" + condition + ")");
        out.add("Target: " + targetText());
        switch (kind) {
            case "no_data" -> out.add("No value for " + rounds + " round(s) in a row (round failed, point missing or "
                    + "too few successful requests)");
            case "data_back" -> out.add("Value: " + valued(value) + intervalText() + " (values are back after " + rounds
                    + " round(s))");
            case "resolved" -> {
                out.add("Value: " + valued(value) + intervalText() + thresholdText());
                out.add("Fired " + Times.utc(since) + ", lasted " + lasted() + " (" + rounds + " rounds); worst "
                        + valued(worst));
            }
            default -> {
                out.add("Value: " + valued(value) + intervalText() + thresholdText());
                if (kind.equals("reminder")) out.add("Firing since " + Times.utc(since) + " (" + rounds + " rounds); worst "
                        + valued(worst));
            }
        }
        if (!lastValues.isEmpty()) out.add("Last rounds: " + lastRounds() + " (oldest first)");
        if (runUrl != null) out.add("Run: " + runUrl);
        else if (runId != null) out.add("Run: " + runId);
        return out;
    }

    private List<String> chinese() {
        List<String> out = new ArrayList<>();
        out.add("巡检：" + schedule);
        if (kind.equals(TEST)) {
            out.add("通知渠道：" + condition);
            out.add("发送时间：" + Times.utc(at));
            out.add("说明：这是 unibench 的测试消息，该巡检的告警会发送到这里");
            return out;
        }
        out.add("规则：" + rule + "（" + condition + "）");
        out.add("目标：" + targetText());
        switch (kind) {
            case "no_data" -> out.add("无数据：连续 " + rounds + " 轮没有取到值（巡检失败、缺少该测试点或成功请求过少）");
            case "data_back" -> out.add("当前值：" + valued(value) + intervalText() + "（连续 " + rounds
                    + " 轮无数据后恢复取值）");
            case "resolved" -> {
                out.add("当前值：" + valued(value) + intervalText() + thresholdText());
                out.add("告警开始：" + Times.utc(since) + "，持续 " + lasted() + "（" + rounds + " 轮）；最差 "
                        + valued(worst));
            }
            default -> {
                out.add("当前值：" + valued(value) + intervalText() + thresholdText());
                if (kind.equals("reminder")) out.add("告警开始：" + Times.utc(since) + "（已 " + rounds + " 轮）；最差 "
                        + valued(worst));
            }
        }
        if (!lastValues.isEmpty()) out.add("最近几轮：" + lastRounds() + "（从旧到新）");
        if (runUrl != null) out.add("运行：" + runUrl);
        else if (runId != null) out.add("运行：" + runId);
        return out;
    }

    /** {@code , 95% CI [388, 440]}: the interval the rule decided on; empty without one. */
    private String intervalText() {
        if (interval == null || value == null) return "";
        String range = "[" + Numbers.readable(interval.get(0)) + ", " + Numbers.readable(interval.get(1)) + "]";
        return zh() ? "，95% 置信区间 " + range : ", 95% CI " + range;
    }

    private String thresholdText() {
        if (threshold == null) return "";
        return zh() ? "（阈值 " + numberWithUnit(threshold) + "）" : " (threshold " + numberWithUnit(threshold) + ")";
    }

    /** {@code TTFT p95 1,012.9 ms}: the metric's name, the value, its unit. */
    private String valued(Double v) {
        if (v == null) return zh() ? "无数据" : "no data";
        Metric m = Metric.ofLabel(metric);
        return (m != null ? m.display(language) + " " : "") + numberWithUnit(v);
    }

    private String numberWithUnit(Double v) {
        return Numbers.withUnit(v, Metric.unit(unit, language), zh() ? "无数据" : "no data");
    }

    private String lastRounds() {
        List<String> v = new ArrayList<>();
        for (Double d : lastValues) v.add(d == null ? (zh() ? "无数据" : "no data") : Numbers.readable(d));
        String u = Metric.unit(unit, language);
        Metric m = Metric.ofLabel(metric);
        return (m != null ? m.display(language) + " " : "") + String.join(" → ", v)
                + (u == null || u.isEmpty() ? "" : u.equals("%") ? " %" : " " + u);
    }

    /** From the incident's opening to this notice (its close), to the second: {@code 56s}, {@code 1h30m}; {@code 56秒}. */
    private String lasted() {
        Duration d = Duration.ofMillis(Math.max(0, at - since));
        if (!zh()) return Durations.format(d);
        long s = d.toSeconds();
        if (s == 0) return "0秒";
        StringBuilder b = new StringBuilder();
        long[] units = {86_400, 3600, 60, 1};
        String[] names = {"天", "小时", "分", "秒"};
        for (int i = 0; i < units.length; i++) {
            if (s >= units[i]) {
                b.append(s / units[i]).append(names[i]);
                s %= units[i];
            }
        }
        return b.toString();
    }

    public String text() {
        return title() + "\n" + String.join("\n", lines());
    }

    @Override
    public String toString() {
        return kind.toUpperCase(Locale.ROOT) + " " + (kind.equals(TEST) ? schedule + " " + condition
                : rule + " " + target.key());
    }
}
