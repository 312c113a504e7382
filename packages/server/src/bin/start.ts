// `npm start` until the reference server lands (issue #3): say what is available today.
console.log(`as2kit: the reference server is not built yet (issue #3).
Available today: the protocol engine @as2kit/core and its command line:
  npx as2kit keygen --name me --out ./keys
  npx as2kit build --payload FILE --from ME --to PARTNER ... --out-headers H --out-body B
  npx as2kit parse --headers H --body B ... --out-payload F
  npx as2kit mdn | verify-mdn ...   (npx as2kit --help for all options)`);
