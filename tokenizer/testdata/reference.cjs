// reference.cjs refreshes reference.jsonl from OpenAI's own tiktoken (the
// Rust core compiled to WASM, npm package "tiktoken"), so the Go tests check
// tiktoken-go against the reference implementation rather than against
// itself. It is run by hand, never by the tests:
//
//   npm install --prefix /tmp/tkref tiktoken@1.0.22
//   NODE_PATH=/tmp/tkref/node_modules node testdata/reference.cjs
//
// Each line of reference.jsonl is {"s": text, "cl100k_base": ids,
// "o200k_base": ids}, or {"file": name, ...} for a text kept in its own
// file; to add a case, append a line with only "s" (or "file") and rerun.
// Ids come from encode(s, [], []), i.e. Python's
// encode(s, disallowed_special=()).
const fs = require("fs");
const path = require("path");
const { get_encoding } = require("tiktoken");

const file = path.join(__dirname, "reference.jsonl");
const names = ["cl100k_base", "o200k_base"];
const encs = names.map((n) => get_encoding(n));
const out = fs
  .readFileSync(file, "utf8")
  .split("\n")
  .filter((l) => l.length > 0)
  .map((l) => {
    const { s, file } = JSON.parse(l);
    const text = file ? fs.readFileSync(path.join(__dirname, file), "utf8") : s;
    const rec = file ? { file } : { s };
    names.forEach((n, i) => (rec[n] = Array.from(encs[i].encode(text, [], []))));
    return JSON.stringify(rec);
  });
fs.writeFileSync(file, out.join("\n") + "\n");
