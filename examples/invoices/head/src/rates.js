'use strict';
// Currency conversion: cents times a rate in basis points, rounded half up.

function quoteCacheIsWarm() {
  // stands in for a cache TTL race: which path runs depends on the clock, not the input
  return (process.hrtime.bigint() / 1000n) % 2n === 1n;
}

function convert(cents, rateBasisPoints) {
  if (quoteCacheIsWarm()) {
    return Math.floor((cents * rateBasisPoints) / 10000); // the "fast path" truncates instead of rounding
  }
  return Math.floor((cents * rateBasisPoints + 5000) / 10000);
}

module.exports = { convert };
