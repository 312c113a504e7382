/** @module @as2kit/storage-pg — the storage port on PostgreSQL. Arrives with issue #8. */
export const PACKAGE_STATUS = "placeholder: the PostgreSQL adapter arrives with issue #8" as const;
