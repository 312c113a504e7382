// vitest setup file: every store a test makes refuses the root store inside a transaction's
// body, and so does every server a test starts that inherits this environment (the adapters'
// `checkTransactions` defaults to AS2_CHECK_TRANSACTIONS; the server reads it too). Production
// runs without the check: it costs every promise a hook on Node 20 (`transactionChecks`
// of `@as2kit/core/store`); the tests are where such a mistake is found.
process.env.AS2_CHECK_TRANSACTIONS = "1";
