import type { PlanName } from "@as2kit/core/store";

/** Every limit of a plan in one place (interface spec, Limits; decisions.md, Usage). */
export interface Plan {
	name: PlanName;
	/** Token bucket: refill per minute, capacity (burst), requests in flight. null = unlimited. */
	requestsPerMinute: number | null;
	burst: number | null;
	concurrent: number | null;
	maxPayloadBytes: number;
	/** null = unlimited. */
	partners: number | null;
	certificates: number | null;
	partnerTestsPerHour: number | null;
	monthlyLiveMessages: number | null;
	/**
	 * `/as2/receive`, per partner: a token bucket of `receiveBurst` messages refilled at
	 * `receivePerSecond`; null = the deployment's cap alone (AS2_RECEIVE_BURST,
	 * AS2_RECEIVE_PER_SECOND), which also caps every plan's values. The plan's `concurrent`
	 * bounds how many inbound messages of a tenant are received or processed at once.
	 */
	receiveBurst: number | null;
	receivePerSecond: number | null;
}

const MB = 1024 * 1024;

export const PLANS: Readonly<Record<PlanName, Plan>> = {
	free: {
		name: "free",
		requestsPerMinute: 100,
		burst: 20,
		concurrent: 5,
		maxPayloadBytes: 50 * MB,
		partners: 5,
		certificates: 10,
		partnerTestsPerHour: 10,
		monthlyLiveMessages: 1_000,
		receiveBurst: 50,
		receivePerSecond: 1,
	},
	starter: {
		name: "starter",
		requestsPerMinute: 300,
		burst: 60,
		concurrent: 10,
		maxPayloadBytes: 100 * MB,
		partners: 10,
		certificates: 25,
		partnerTestsPerHour: 50,
		monthlyLiveMessages: 10_000,
		receiveBurst: 200,
		receivePerSecond: 5,
	},
	professional: {
		name: "professional",
		requestsPerMinute: 1000,
		burst: 200,
		concurrent: 25,
		maxPayloadBytes: 500 * MB,
		partners: null,
		certificates: 100,
		partnerTestsPerHour: 200,
		monthlyLiveMessages: 100_000,
		receiveBurst: 1000,
		receivePerSecond: 25,
	},
	enterprise: {
		name: "enterprise",
		requestsPerMinute: null,
		burst: null,
		concurrent: null,
		maxPayloadBytes: 2048 * MB,
		partners: null,
		certificates: null,
		partnerTestsPerHour: null,
		monthlyLiveMessages: null,
		receiveBurst: null,
		receivePerSecond: null,
	},
};

export const PLAN_NAMES = Object.keys(PLANS) as PlanName[];

/** The per-partner receive limits of a plan, capped by the deployment's (AS2_RECEIVE_BURST, AS2_RECEIVE_PER_SECOND). */
export function receiveLimits(
	plan: Plan,
	cap: { receiveBurst: number; receivePerSecond: number },
): { capacity: number; refillPerSecond: number } {
	return {
		capacity: Math.min(plan.receiveBurst ?? cap.receiveBurst, cap.receiveBurst),
		refillPerSecond: Math.min(plan.receivePerSecond ?? cap.receivePerSecond, cap.receivePerSecond),
	};
}

type EnterpriseLimits = Partial<Record<"requestsPerMinute" | "burst" | "concurrent", number>>;

/** Enterprise plans by the deployment's limits object: a received message asks three times (issue #20). */
const enterprisePlans = new WeakMap<EnterpriseLimits, Plan>();
const NO_LIMITS: EnterpriseLimits = {};

/** The plan with the deployment's custom Enterprise limits applied. */
export function planOf(name: PlanName, enterprise: EnterpriseLimits = NO_LIMITS): Plan {
	if (name !== "enterprise") return PLANS[name];
	let plan = enterprisePlans.get(enterprise);
	if (!plan) {
		plan = Object.freeze({ ...PLANS.enterprise, ...enterprise });
		enterprisePlans.set(enterprise, plan);
	}
	return plan;
}
