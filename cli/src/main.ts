// Placeholder entry point: the CLI helper replaces it.
process.stderr.write('chronos: not built yet\n');
process.exitCode = 1;
