'use strict';

function total(items) {
  const unused = 0;
  let sum = 0;
  for (const item of items) {
    if (item.price == null) continue;
    sum += item.price;
  }
  return sum + tax;
}

module.exports = { total };
