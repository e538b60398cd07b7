import { add, sub } from "./calc";

// Declared here because the fixture installs no @types/node.
declare function require(name: string): any;
const test = require("node:test");
const assert = require("node:assert/strict");

test("adds", () => {
  assert.equal(add(1, 2), 3);
});

test("subtracts", () => {
  assert.equal(sub(5, 3), 2);
});

test("later", { skip: "not written yet" }, () => {});
