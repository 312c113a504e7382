/** Every case of the round-trip suite, by name. */
export function suiteCases(): { name: string; options: Record<string, unknown> }[];
