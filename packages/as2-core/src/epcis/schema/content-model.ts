import type { SimpleType } from "./simple-types.ts";

export const UNBOUNDED = Number.POSITIVE_INFINITY;

export interface ElementParticle {
	kind: "element";
	/** Local name; `ns` null for the unqualified local elements of EPCIS (elementFormDefault="unqualified"). */
	name: string;
	ns: string | null;
	type: string;
	min: number;
	max: number;
	nillable?: boolean;
	abstract?: boolean;
}

/** `xsd:any processContents="lax"`: ##other = any namespace but the target's and no namespace; ##local = no namespace. */
export interface AnyParticle {
	kind: "any";
	namespace: "##other" | "##local";
	min: number;
	max: number;
}

export interface GroupParticle {
	kind: "sequence" | "choice";
	items: Particle[];
	min: number;
	max: number;
}

export type Particle = ElementParticle | AnyParticle | GroupParticle;
export type Leaf = ElementParticle | AnyParticle;

export interface AttributeUse {
	type: SimpleType;
	required?: boolean;
}

/** A complex type: element-only `content`, `simple` content, `mixed` (xsd:anyType) or empty. */
export interface ComplexType {
	attributes?: Record<string, AttributeUse>;
	anyAttribute?: boolean;
	content?: Particle;
	simple?: SimpleType;
	mixed?: boolean;
}

interface State {
	eps: number[];
	edges: { leaf: Leaf; to: number }[];
}

/** A content model compiled to a Thompson NFA: `xsd:sequence`/`choice` with 0/1/unbounded occurrences. */
export interface CompiledModel {
	states: State[];
	start: number;
	accept: number;
	/** Epsilon-closure of each state, computed on first use (frozen arrays). */
	closures: (readonly number[] | undefined)[];
}

export function compileModel(particle: Particle): CompiledModel {
	const states: State[] = [];
	const add = (): number => states.push({ eps: [], edges: [] }) - 1;
	const build = (p: Particle): [number, number] => {
		let inner: [number, number];
		if (p.kind === "element" || p.kind === "any") {
			const a = add();
			const b = add();
			states[a]!.edges.push({ leaf: p, to: b });
			inner = [a, b];
		} else if (p.kind === "sequence") {
			const a = add();
			let end = a;
			for (const item of p.items) {
				const [s, e] = build(item);
				states[end]!.eps.push(s);
				end = e;
			}
			inner = [a, end];
		} else {
			const a = add();
			const b = add();
			for (const item of p.items) {
				const [s, e] = build(item);
				states[a]!.eps.push(s);
				states[e]!.eps.push(b);
			}
			inner = [a, b];
		}
		if (p.min === 1 && p.max === 1) return inner;
		const a = add();
		const b = add();
		states[a]!.eps.push(inner[0]);
		states[inner[1]]!.eps.push(b);
		if (p.min === 0) states[a]!.eps.push(b);
		if (p.max === UNBOUNDED) states[inner[1]]!.eps.push(inner[0]);
		return [a, b];
	};
	const [start, accept] = build(particle);
	return { states, start, accept, closures: [] };
}

function closureOf(model: CompiledModel, state: number): number[] {
	let closure = model.closures[state];
	if (!closure) {
		const seen = new Set<number>([state]);
		const stack = [state];
		while (stack.length > 0) {
			const s = stack.pop()!;
			for (const t of model.states[s]!.eps) {
				if (!seen.has(t)) {
					seen.add(t);
					stack.push(t);
				}
			}
		}
		closure = Object.freeze([...seen]);
		model.closures[state] = closure;
	}
	return closure as number[];
}

function union(a: readonly number[], b: readonly number[]): number[] {
	const out = [...a];
	for (const x of b) if (!out.includes(x)) out.push(x);
	return out;
}

/** One run of the automaton over a list of children. */
export class ModelRun {
	private current: number[];

	constructor(private readonly model: CompiledModel) {
		this.current = closureOf(model, model.start);
	}

	/** Feeds one child; returns the particle it matched (an element before a wildcard), or null. */
	step(matches: (leaf: Leaf) => boolean): Leaf | null {
		let matched: Leaf | null = null;
		let next: number[] | null = null;
		for (const s of this.current) {
			for (const edge of this.model.states[s]!.edges) {
				if (!matches(edge.leaf)) continue;
				if (matched === null || (matched.kind === "any" && edge.leaf.kind === "element")) matched = edge.leaf;
				const reach = closureOf(this.model, edge.to);
				if (next === null) next = reach;
				else if (next !== reach) next = union(next, reach);
			}
		}
		if (matched === null || next === null) return null;
		this.current = next;
		return matched;
	}

	accepts(): boolean {
		return this.current.includes(this.model.accept);
	}

	/** What could come next, for messages. */
	expected(): string[] {
		const names = new Set<string>();
		for (const s of this.current) {
			for (const { leaf } of this.model.states[s]!.edges) {
				names.add(leaf.kind === "element" ? leaf.name : `(any element, ${leaf.namespace})`);
			}
		}
		return [...names];
	}
}
