import type { NodeVersion } from "./harness.mjs";

export const NODE_VERSIONS: NodeVersion[];
/** How long the first install may take, download included. */
export const INSTALL_TIMEOUT_MS: number;
export function nodeVersionBinary(name: NodeVersion, dir?: string): string;
export function installNodeVersions(): Promise<void>;
export function installNodeVersionsIn(dir: string, env?: Record<string, string>): Promise<void>;
