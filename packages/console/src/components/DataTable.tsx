/**
 * A table of one API page with its pager. Columns say how to render a row; the caption names
 * the table for screen readers. Pair it with usePagedList (../use-paged-list.ts).
 */
import type { ComponentChildren } from "preact";
import type { Pagination } from "../api.ts";
import { Pager } from "./Pager.tsx";

export interface Column<T> {
	header: string;
	render: (row: T) => ComponentChildren;
	/** Right-align numbers. */
	numeric?: boolean;
}

export function DataTable<T>(props: {
	caption: string;
	columns: Column<T>[];
	rows: T[];
	rowKey: (row: T) => string;
	pagination?: Pagination | null;
	onPage?: (page: number) => void;
}) {
	return (
		<div class="table-wrap">
			<table class="table">
				<caption class="visually-hidden">{props.caption}</caption>
				<thead>
					<tr>
						{props.columns.map((column) => (
							<th key={column.header} scope="col" class={column.numeric ? "numeric" : undefined}>
								{column.header}
							</th>
						))}
					</tr>
				</thead>
				<tbody>
					{props.rows.map((row) => (
						<tr key={props.rowKey(row)}>
							{props.columns.map((column) => (
								<td key={column.header} class={column.numeric ? "numeric" : undefined}>
									{column.render(row)}
								</td>
							))}
						</tr>
					))}
				</tbody>
			</table>
			{props.pagination && props.onPage ? <Pager pagination={props.pagination} onPage={props.onPage} /> : null}
		</div>
	);
}
