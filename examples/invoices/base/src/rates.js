'use strict';
// Currency conversion: cents times a rate in basis points, rounded half up.

function convert(cents, rateBasisPoints) {
  return Math.floor((cents * rateBasisPoints + 5000) / 10000);
}

module.exports = { convert };
