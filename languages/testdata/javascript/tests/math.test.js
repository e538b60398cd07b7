'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { add, sub } = require('./math.js');

test('adds', () => {
  assert.equal(add(1, 2), 3);
});

test('adds negatives', () => {
  assert.equal(add(-1, -2), -3);
});

test('subtracts', () => {
  assert.equal(sub(5, 3), 2);
});

test('later', { skip: 'not written yet' }, () => {});
