// Dolos (npm @dodona/dolos-lib, pinned in package.json) on one class, for `make bench-similarity`:
// reads {"files": [paths], "template": path or null} as JSON on stdin, prints [[left, right, similarity], ...] as JSON
// on stdout, every pair Dolos reports with a similarity above 0. The template is the release's code: Dolos
// ignores what a file shares with it, as Artemis and JPlag leave out template code.
// Dolos's own defaults otherwise (k-gram length, window, no cap on how common a fingerprint may be).
import { Dolos } from "@dodona/dolos-lib";
import { readFileSync } from "node:fs";

const request = JSON.parse(readFileSync(0, "utf8"));
const report = await new Dolos({ language: "python" }).analyzePaths(request.files, request.template ?? undefined);
const pairs = [];
for (const pair of report.allPairs()) {
  if (pair.similarity > 0) pairs.push([pair.leftFile.path, pair.rightFile.path, pair.similarity]);
}
process.stdout.write(JSON.stringify(pairs));
