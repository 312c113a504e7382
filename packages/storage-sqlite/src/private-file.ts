import { closeSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";

/**
 * Creates the database file, readable by its owner only (0600), in a directory of the same
 * (0700) if that has to be made, before SQLite opens it: SQLite creates a new database 0644,
 * and its -wal and -shm files take the mode of the database file (os_unix.c, findCreateFileMode),
 * so all three hold the data for the service's user alone. An existing file keeps its mode:
 * the operator may have chosen it.
 */
export function createPrivateDatabaseFile(path: string): void {
	mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
	try {
		closeSync(openSync(path, "wx", 0o600));
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
	}
}
