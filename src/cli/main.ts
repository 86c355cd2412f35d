/** The `weir` command line: `weir run FILE.sql`, `--help`, `--version`. */
import { Command } from 'commander';
import { DEMO_SQL } from './demo-command.js';
import { EXIT, runFile, runScript } from './run-command.js';
import packageJson from '../../package.json' with { type: 'json' };

const program = new Command()
  .name('weir')
  .description('A streaming SQL engine: Flink SQL over streams, with exactly-once results in PostgreSQL.')
  .version(packageJson.version, '-V, --version', 'print the version')
  .option('--verbose', 'print stack traces with errors', false)
  .addHelpText(
    'after',
    `
Exit codes:
  ${EXIT.OK}    success
  ${EXIT.ERROR}    a statement or a job failed
  ${EXIT.USAGE}    bad usage (unknown command, unreadable file)
  ${EXIT.INTERRUPTED}  interrupted (Ctrl-C or SIGTERM; running jobs are stopped with a savepoint)`,
  );

program
  .command('run')
  .description('run the statements of a SQL script; INSERTs run as jobs until their sources end')
  .argument('<file>', 'the script (statements separated by ;)')
  .option('--fresh', 'discard the checkpoints of the script\'s jobs and start them from scratch', false)
  .action(async (file: string, options: { fresh: boolean }) => {
    process.exitCode = await runFile(file, { verbose: program.opts<{ verbose: boolean }>().verbose, fresh: options.fresh });
  });

program
  .command('demo')
  .description('run a small live demo: generated orders aggregated per customer, printed as a changelog')
  .option('--sql', 'print the demo script instead of running it', false)
  .action(async (options: { sql: boolean }) => {
    if (options.sql) {
      process.stdout.write(DEMO_SQL);
      return;
    }
    process.exitCode = await runScript(DEMO_SQL, 'demo.sql', { verbose: program.opts<{ verbose: boolean }>().verbose });
  });

program.showHelpAfterError();
program.exitOverride((error) => {
  process.exit(error.exitCode === 0 ? EXIT.OK : EXIT.USAGE);
});
await program.parseAsync(process.argv);
