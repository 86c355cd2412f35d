/** The connectors weir ships with, for the engine to register. */
import type { Connector } from './api/connector.js';
import { blackholeConnector } from './blackhole/blackhole-connector.js';
import { datagenConnector } from './datagen/datagen-connector.js';
import { filesystemConnector } from './filesystem/filesystem-connector.js';
import { natsConnector } from './nats/nats-connector.js';
import { nexmarkConnector } from './nexmark/nexmark-connector.js';
import { postgresConnector } from './postgres/postgres-connector.js';
import { postgresCdcConnector } from './postgres-cdc/postgres-cdc-connector.js';
import { printConnector } from './print/print-connector.js';
import { writableTableConnector } from './table/writable-table-connector.js';

/** Every built-in connector; names (`descriptor.name`) are unique. */
export const builtinConnectors: readonly Connector[] = [datagenConnector, printConnector, blackholeConnector, filesystemConnector, postgresConnector, nexmarkConnector, natsConnector, postgresCdcConnector, writableTableConnector];
