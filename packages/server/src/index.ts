/** @module @as2kit/server — the reference server. The REST host arrives with issue #3. */
export const PACKAGE_STATUS = "placeholder: the REST host arrives with issue #3" as const;
