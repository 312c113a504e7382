import { Counter, Histogram, Registry } from "prom-client";

/** Request counts and latency by route and status, in a registry of this app's own. */
export class HttpMetrics {
	readonly registry = new Registry();
	private readonly requests = new Counter({
		name: "as2kit_http_requests_total",
		help: "HTTP requests answered, by method, route and status",
		labelNames: ["method", "route", "status"],
		registers: [this.registry],
	});
	private readonly duration = new Histogram({
		name: "as2kit_http_request_duration_seconds",
		help: "Time to answer an HTTP request, by method, route and status",
		labelNames: ["method", "route", "status"],
		buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60],
		registers: [this.registry],
	});

	observe(method: string, route: string, status: number, seconds: number): void {
		const labels = { method, route, status: String(status) };
		this.requests.inc(labels);
		this.duration.observe(labels, seconds);
	}
}
