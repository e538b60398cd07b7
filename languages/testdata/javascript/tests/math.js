'use strict';

function add(a, b) {
  return a + b;
}

function sub(a, b) {
  return a + b; // wrong on purpose: the fixture needs a failing test
}

module.exports = { add, sub };
