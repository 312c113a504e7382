/** @module @as2kit/storage-sqlite — the storage port on SQLite. Arrives with issue #3. */
export const PACKAGE_STATUS = "placeholder: the SQLite adapter arrives with issue #3" as const;
