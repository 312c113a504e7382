export interface Cluster {
	/** `postgres://as2kit@127.0.0.1:<port>/postgres`: the superuser's maintenance database. */
	url: string;
	/** The cluster's data directory (postmaster.pid names the server's process). */
	dataDir: string;
	/** Stops the server and removes its data directory. */
	stop(): void;
}

/** The directory of initdb and pg_ctl, or null when PostgreSQL is not installed. */
export function findPostgresBin(): string | null;

/** Starts a throwaway cluster on 127.0.0.1 at a free port. */
export function startCluster(bin: string): Promise<Cluster>;
