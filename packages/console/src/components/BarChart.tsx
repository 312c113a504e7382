/**
 * A small stacked bar chart in SVG (no chart library: a few dozen bars need none). Colours come
 * from CSS classes (`chart-<tone>`), so light and dark follow the stylesheet. Screen readers get
 * the same numbers as a table (visually hidden) beside the picture, which is `aria-hidden`.
 */
export interface BarSeries {
	name: string;
	tone: "accent" | "good" | "bad" | "warn";
	values: number[];
	/** Drawn over the stack, narrower, from zero: a part of the stack ("of which failed"). */
	overlay?: boolean;
}

const WIDTH = 720;
const HEIGHT = 180;
const LEFT = 36;
const BOTTOM = 22;
const TOP = 8;

export function BarChart(props: { caption: string; labels: string[]; series: BarSeries[] }) {
	const stacked = props.series.filter((s) => !s.overlay);
	const overlays = props.series.filter((s) => s.overlay);
	const totals = props.labels.map((_, i) => stacked.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
	const max = Math.max(1, ...totals, ...overlays.flatMap((s) => s.values));
	const plotHeight = HEIGHT - TOP - BOTTOM;
	const slot = (WIDTH - LEFT) / Math.max(1, props.labels.length);
	const barWidth = Math.max(1, slot * 0.7);
	const y = (value: number) => TOP + plotHeight - (value / max) * plotHeight;
	return (
		<figure class="chart">
			<figcaption class="chart-legend">
				<span class="visually-hidden">{props.caption}: </span>
				{props.series.map((s) => (
					<span key={s.name} class="chart-key">
						<span class={`chart-swatch chart-${s.tone}`} aria-hidden="true" />
						{s.name}
					</span>
				))}
			</figcaption>
			<svg class="chart-svg" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} aria-hidden="true" focusable="false">
				<line class="chart-axis" x1={LEFT} x2={WIDTH} y1={y(0)} y2={y(0)} />
				<line class="chart-grid" x1={LEFT} x2={WIDTH} y1={y(max)} y2={y(max)} />
				<text class="chart-label" x={LEFT - 6} y={y(max) + 4} text-anchor="end">
					{max}
				</text>
				<text class="chart-label" x={LEFT - 6} y={y(0) + 4} text-anchor="end">
					0
				</text>
				{props.labels.map((label, i) => {
					const x = LEFT + i * slot + (slot - barWidth) / 2;
					let base = 0;
					return (
						<g key={label}>
							{stacked.map((s) => {
								const value = s.values[i] ?? 0;
								const rect =
									value > 0 ? (
										<rect
											key={s.name}
											class={`chart-${s.tone}`}
											x={x}
											width={barWidth}
											y={y(base + value)}
											height={y(base) - y(base + value)}
										/>
									) : null;
								base += value;
								return rect;
							})}
							{overlays.map((s) => {
								const value = s.values[i] ?? 0;
								return value > 0 ? (
									<rect
										key={s.name}
										class={`chart-${s.tone}`}
										x={x + barWidth * 0.25}
										width={barWidth * 0.5}
										y={y(value)}
										height={y(0) - y(value)}
									/>
								) : null;
							})}
						</g>
					);
				})}
				{props.labels.length > 0 ? (
					<>
						<text class="chart-label" x={LEFT} y={HEIGHT - 6}>
							{props.labels[0]}
						</text>
						<text class="chart-label" x={WIDTH} y={HEIGHT - 6} text-anchor="end">
							{props.labels[props.labels.length - 1]}
						</text>
					</>
				) : null}
			</svg>
			<table class="visually-hidden">
				<caption>{props.caption}</caption>
				<thead>
					<tr>
						<th scope="col">Day</th>
						{props.series.map((s) => (
							<th key={s.name} scope="col">
								{s.name}
							</th>
						))}
					</tr>
				</thead>
				<tbody>
					{props.labels.map((label, i) => (
						<tr key={label}>
							<th scope="row">{label}</th>
							{props.series.map((s) => (
								<td key={s.name}>{s.values[i] ?? 0}</td>
							))}
						</tr>
					))}
				</tbody>
			</table>
		</figure>
	);
}
