// Entry for the runtimes with a command line (Node, Bun, Deno): reads the suite's input from
// the JSON file named by the first argument and prints `runSuite`'s result as one JSON line,
// or `benchSmall`'s when the second argument is `bench`.
import { readFileSync } from "node:fs";
import { benchSmall, runSuite } from "./roundtrip-suite.mjs";

const input = JSON.parse(readFileSync(process.argv[2], "utf8"));
const result = process.argv[3] === "bench" ? await benchSmall(input) : await runSuite(input);
console.log(JSON.stringify(result));
