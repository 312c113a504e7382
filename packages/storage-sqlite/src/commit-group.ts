/**
 * The callers whose writes share one physical write transaction (group commit): each is told
 * only once the COMMIT holding its writes succeeded, and all are told when it failed.
 */
export class CommitGroup {
	readonly openedAt = performance.now();
	private readonly settlers: Array<{ resolve: () => void; reject: (error: unknown) => void }> = [];

	get members(): number {
		return this.settlers.length;
	}

	/** A member whose writes are in; settles with the group's COMMIT. */
	join(): Promise<void> {
		return new Promise((resolve, reject) => this.settlers.push({ resolve, reject }));
	}

	committed(): void {
		for (const settler of this.settlers) settler.resolve();
	}

	failed(error: unknown): void {
		for (const settler of this.settlers) settler.reject(error);
	}
}
