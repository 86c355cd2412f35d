/** The `weir` command line: `weir run FILE.sql`, `--help`, `--version`. */
import { Command } from 'commander';
import { DEMO_SQL, runDemo } from './demo-command.js';
import { runDoctor } from './doctor-command.js';
import { readFile } from 'node:fs/promises';
import { METRICS_HOST_HELP, METRICS_PORT_HELP, parsePort, type MetricsFlags } from './metrics-flags.js';
import { runRepl } from './repl.js';
import { FORMATS, type OutputFormat } from './result-printer.js';
import { EXIT, runFile } from './run-command.js';
import { readStdin, runPiped } from './script-command.js';
import { runServe } from './serve-command.js';
import packageJson from '../../package.json' with { type: 'json' };

const program = new Command()
  .name('weir')
  .description('A streaming SQL engine: Flink SQL over streams, with exactly-once results in PostgreSQL.')
  .version(packageJson.version, '-V, --version', 'print the version')
  .option('--verbose', 'print stack traces with errors', false)
  .option('-f, --file <file>', 'run the statements of a file and exit (results in --format)')
  .option('-i, --init <file>', 'run a script before the statements or the shell')
  .option('--format <format>', `result format: ${FORMATS.join(', ')} (default: table on a terminal, ndjson otherwise)`)
  .option('--metrics-port <port>', METRICS_PORT_HELP, parsePort)
  .option('--metrics-host <host>', METRICS_HOST_HELP, '127.0.0.1')
  .option('--progress', 'show rows read, rate, percentage and ETA of running jobs on stderr (default: when stdout and stderr are terminals)')
  .option('--no-progress', 'never show progress')
  .configureHelp({ showGlobalOptions: true })
  .action(async (options: { verbose: boolean; file?: string; init?: string; format?: string; progress?: boolean } & MetricsFlags) => {
    const format = (options.format ?? (process.stdout.isTTY ? 'table' : 'ndjson')) as OutputFormat;
    if (!FORMATS.includes(format)) {
      process.stderr.write(`ERROR: unknown format '${options.format}'; use one of ${FORMATS.join(', ')}\n`);
      process.exitCode = EXIT.USAGE;
      return;
    }
    const init = { ...(options.init === undefined ? {} : { init: options.init }), ...metricsFlags(options) };
    if (options.file !== undefined) {
      let text: string;
      try {
        text = await readFile(options.file, 'utf8');
      } catch (error) {
        process.stderr.write(`ERROR: cannot read '${options.file}': ${(error as NodeJS.ErrnoException).code ?? String(error)}\n`);
        process.exitCode = EXIT.USAGE;
        return;
      }
      process.exitCode = await runPiped(text, options.file, { verbose: options.verbose, format, ...init });
    } else if (process.stdin.isTTY) {
      process.exitCode = await runRepl({ verbose: options.verbose, format, ...metricsFlags(options), ...(options.progress === undefined ? {} : { progress: options.progress }) });
    } else {
      process.exitCode = await runPiped(await readStdin(), 'stdin', { verbose: options.verbose, format, ...init });
    }
  })
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
    const global = program.opts<GlobalOptions>();
    process.exitCode = await runFile(file, {
      verbose: global.verbose,
      fresh: options.fresh,
      ...metricsFlags(global),
      ...(global.progress === undefined ? {} : { progress: global.progress }),
    });
  });

program
  .command('serve')
  .description("run the working directory's materialized views (.weir/catalog.json) until stopped; Ctrl-C or SIGTERM stops them with a final checkpoint")
  .action(async () => {
    const global = program.opts<GlobalOptions>();
    process.exitCode = await runServe({ verbose: global.verbose, ...metricsFlags(global) });
  });

program
  .command('demo')
  .description('run a live demo: generated orders kept in two materialized views in the embedded PostgreSQL, shown as they are committed')
  .option('--sql', 'print the demo script instead of running it', false)
  .action(async (options: { sql: boolean }) => {
    if (options.sql) {
      process.stdout.write(DEMO_SQL);
      return;
    }
    process.exitCode = await runDemo({ verbose: program.opts<{ verbose: boolean }>().verbose });
  });

program
  .command('doctor')
  .description("list what weir left in a PostgreSQL cluster (prepared transactions of exactly-once sinks, CDC replication slots) and finish them on request")
  .option('--url <url>', 'the server (default: DATABASE_URL, else the PG* variables)')
  .option('--rollback <gid...>', 'roll back these prepared transactions of weir')
  .option('--rollback-older-than <duration>', "roll back every prepared transaction of weir at least this old (e.g. '1 d')")
  .option('--drop-slot <name...>', 'drop these inactive replication slots')
  .action(async (options: { url?: string; rollback?: string[]; rollbackOlderThan?: string; dropSlot?: string[] }) => {
    process.exitCode = await runDoctor({ verbose: program.opts<{ verbose: boolean }>().verbose, ...options });
  });

/** The options of `weir` that its commands share (given before or after the command). */
type GlobalOptions = { verbose: boolean; progress?: boolean } & MetricsFlags;

/** The metrics options given, without undefined values. */
function metricsFlags(options: MetricsFlags): MetricsFlags {
  return options.metricsPort === undefined ? {} : { metricsPort: options.metricsPort, ...(options.metricsHost === undefined ? {} : { metricsHost: options.metricsHost }) };
}

program.showHelpAfterError();
program.exitOverride((error) => {
  process.exit(error.exitCode === 0 ? EXIT.OK : EXIT.USAGE);
});
await program.parseAsync(process.argv);
