export function summary(values) {
	const sorted = [...values].sort((a, b) => a - b);
	const median = sorted[Math.floor(sorted.length / 2)];
	return {
		median,
		min: sorted[0],
		max: sorted[sorted.length - 1],
		noisePct: ((sorted[sorted.length - 1] - sorted[0]) / median) * 100,
	};
}

export const fmt = (n, digits = 1) => n.toFixed(digits);
