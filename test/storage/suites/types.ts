import type { As2Store } from "@as2kit/core/store";

export type ConformanceTest = (context: { store: As2Store }) => Promise<void>;
