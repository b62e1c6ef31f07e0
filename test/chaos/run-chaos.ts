/**
 * `npm run chaos`: the chaos run on its own. Prints the check table; exits 1 if any check failed.
 * CHAOS_SEED picks another reproducible run, CHAOS_SCALE shrinks or grows the workload.
 */
// As in the test suite: the handlers' INFO lines would bury the report.
process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
const { runChaos } = await import('./scenario.ts');
const outcome = await runChaos();
console.log(outcome.report);
process.exit(outcome.ok ? 0 : 1);
