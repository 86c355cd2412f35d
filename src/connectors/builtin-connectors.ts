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
import { createWritableTableConnector } from './table/writable-table-connector.js';

/** Every built-in connector for one engine (the writable tables keep per-engine state); names (`descriptor.name`) are unique. */
export function createBuiltinConnectors(): Connector[] {
  return [datagenConnector, printConnector, blackholeConnector, filesystemConnector, postgresConnector, nexmarkConnector, natsConnector, postgresCdcConnector, createWritableTableConnector()];
}
