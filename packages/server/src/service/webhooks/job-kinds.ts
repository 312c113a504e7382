/** Written by `recordEvent` with every event: matches it to endpoints and creates the deliveries. */
export const FAN_OUT_JOB = "webhooks.fan_out";
